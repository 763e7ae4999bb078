"""Who answers a call: one seam, several providers.

A provider turns a `CallSpec` into text and usage. `litellm` reaches real
models (and is the only module that imports litellm); `offline` plays the
simulated panel; `scripted` follows a script per panelist; `estimator`
answers with worst-case stand-ins to price a run. The gateway asks `route(panelist)` for the provider of each call and
knows none of them by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..calls import CallSpec
from ..domain import SCRIPTED_PREFIX, Panelist, Usage
from ..errors import InputError

OnTokens = Callable[[int], None]  # told how many pieces of a streamed reply have arrived


class Local:
    """The defaults of a provider that answers here: no key to set, no cost, nothing to load."""

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        return 0.0

    def missing_keys(self, panelists: list[Panelist]) -> list[str]:
        return []

    def warm_up(self) -> None:
        pass


class Waiting(Exception):
    """A call that only a person can answer, who has not yet: `path` is their form."""

    def __init__(self, path: Path, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path, self.problem = path, problem


class TransientError(Exception):
    """A failure worth retrying (rate limit, server error, lost connection); `wait` from Retry-After."""

    def __init__(self, message: str, wait: float | None = None, usage: Usage | None = None):
        super().__init__(message)
        self.wait = wait
        self.usage = usage  # what the failed attempt cost, where the provider said or it can be counted


@dataclass(frozen=True)
class Diagnosis:
    """What `discuss doctor` shows for one panelist: each entry `ok...`, `warn: ...` or `fail: ...`."""

    key: str
    price: str
    endpoint: str


# A reply's text and usage, and the provider's finish_reason where it was not "stop" (cut at max_tokens...).
Completed = tuple[str, Usage] | tuple[str, Usage, str]


class Provider(Protocol):
    # Stand-ins record no latency: their files must not change from run to run.
    simulated: bool

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float,
                       on_tokens: OnTokens | None = None) -> Completed:
        """The reply's text and usage (and why it stopped, if not at its end).

        Raises TransientError for what may pass, anything else to fail.

        With `on_tokens`, a provider that can streams the reply and reports the
        pieces received so far; the text and usage returned are the same.
        """
        ...

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        """What a call would cost; None where no price is known."""
        ...

    def missing_keys(self, panelists: list[Panelist]) -> list[str]:
        """'VAR (for id)' for every key these panelists need and the environment lacks."""
        ...

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        ...

    def warm_up(self) -> None:
        """Load what the first call needs, so its timeout counts only the provider's time."""
        ...


def route(p: Panelist, scripts: Path | None = None, people: Provider | None = None) -> Provider:
    """The provider that answers for `p`; `scripts` is the folder of the scripted panel's scripts,
    `people` the one that turns a person's calls into forms in their discussion's folder."""
    if p.human:
        from .human import HumanProvider

        return people or HumanProvider()
    if p.model.startswith(SCRIPTED_PREFIX):
        from .scripted import ScriptedProvider

        return ScriptedProvider(scripts)
    if p.simulated:
        from .offline import OFFLINE

        return OFFLINE
    from .litellm import LITELLM

    return LITELLM


def price(p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
    return route(p).price(p, prompt_tokens, completion_tokens)


def key_names(panelists: list[Panelist]) -> list[str]:
    """Every variable these panelists read a key from, set here or not: the secrets a CI needs."""
    import os

    saved = dict(os.environ)
    try:
        for name in [k for k in os.environ if k.endswith(("_KEY", "_TOKEN", "_SECRET"))]:
            del os.environ[name]  # so that every key a panelist reads shows as missing
        return sorted({m.split(" ")[0] for m in missing_keys(panelists)})
    finally:
        os.environ.clear()
        os.environ.update(saved)


def missing_keys(panelists: list[Panelist]) -> list[str]:
    by_provider: dict[int, tuple[Provider, list[Panelist]]] = {}
    for p in panelists:
        provider = route(p)
        by_provider.setdefault(id(provider), (provider, []))[1].append(p)
    return [m for provider, members in by_provider.values() for m in provider.missing_keys(members)]


def check_keys(panelists: list[Panelist]) -> None:
    missing = missing_keys(panelists)
    if missing:
        raise InputError("missing API key: set " + ", ".join(missing) + " in the environment")
