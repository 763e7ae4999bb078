"""What a protocol asks of a model and what comes back, as plain values.

A `CallSpec` is one call a protocol wants made; a `CallResult` is how it
went. Both are data: this module imports nothing heavy, so protocols,
budgets and tests can build and read calls without a provider in sight.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .domain import Panelist, Usage

Move = Callable[[str, dict[str, Any], dict[str, Any]], str]


@dataclass(frozen=True)
class PersonForm:
    """How a person answers a structured call by hand: the YAML to fill in, and the reply it makes.

    Declared by the protocol that asks (the vote protocol's ballot), so the
    forms for people never need to know what a protocol's replies look like.
    """

    how: str  # the instructions above the form
    blank: Callable[[list[str]], dict[str, Any]]  # the YAML to fill in, given the answers' labels
    reply: Callable[[dict[str, Any]], dict[str, Any] | None]  # the filled YAML as the reply; None while not filled
    check: Callable[[str, list[str]], Any] | None = None  # raises ValueError for a reply that would be refused
    ballot: bool = False  # filled through `discuss vote` (else `discuss reply`)


@dataclass
class CallSpec:
    key: str
    panelist: Panelist
    messages: list[dict[str, str]]
    task: str
    max_tokens: int = 2000
    # Raises ReplyError for a reply to re-ask about; returns the parsed value.
    validate: Callable[[str], Any] | None = None
    # The JSON schema of a structured reply, sent to providers that constrain output to one; None with
    # `validate` set: any JSON object.
    schema: dict[str, Any] | None = None
    # What a stand-in provider (offline panel, estimator) needs to play its part without reading prompts.
    context: dict[str, Any] = field(default_factory=dict)
    # How the offline panel plays this task, (persona name, persona, context) -> reply; None: a plain answer.
    offline: Move | None = None
    # The estimator's stand-in where the offline move is not the costliest reply; None: the offline move.
    worst_case: Move | None = None
    # The form a person on the panel fills in for this call; None: free text below a line.
    form: PersonForm | None = None


    def reply_schema(self) -> dict[str, Any] | None:
        """What a structured reply must be, as a JSON schema; None for free text."""
        if self.validate is None:
            return None
        return self.schema or {"type": "object"}


@dataclass
class CallResult:
    spec: CallSpec
    text: str | None = None
    value: Any = None
    error: str | None = None
    invalid: bool = False
    lasting: bool = False  # the provider's error is not one that passes (a wrong key or model): asking again fails
    timed_out: bool = False
    attempts: int = 0
    asks: int = 0
    usage: Usage = field(default_factory=Usage)
    latency_ms: int = 0  # what is recorded: 0 for a stand-in, whose files must not change from run to run
    elapsed_ms: int = 0  # what the call took here, always: what progress shows
    # The reply's length in characters when it was longer than the cap and cut to it.
    cut_from: int | None = None
    # Why the provider stopped, where it was not the reply's end ("length": at max_tokens).
    finish_reason: str | None = None
    # A person's form to fill in: nothing to record yet; the run stops after the phase.
    waiting: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.waiting is None


# Where a prompt template ends the part that repeats across a panelist's calls (`{{ cache_break }}`):
# the providers that cache only what is marked are told to cache up to here (its first place). Every
# copy is taken out of every prompt before any provider, person or stand-in sees it, so one typed
# into a background or written by a model moves a cache mark at most, and never reaches anyone.
CACHE_BREAK = "\ue000cache-break\ue000"


def without_break(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**m, "content": m["content"].replace(CACHE_BREAK, "")} if isinstance(m.get("content"), str)
            else m for m in messages]
