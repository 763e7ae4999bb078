"""Reading a voter's JSON ballot and checking it against the labels it was shown.

A ballot must vote on every label exactly once, only on labels it was
shown, with APPROVE, NEUTRAL or REJECT, and cast CONCLUDE or CONTINUE.
Nothing is filled in: a ballot that breaks a rule is refused with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from discuss.plugin import (
    TEXT,
    ReplyError,
    extract_object,
    listed,
    obj,
    one_of,
    per_label,
    probability_of,
    text_field,
    with_probability,
)

from .record import TERMINATION_CHOICES, VOTE_SCORES


@dataclass(frozen=True)
class ParsedBallot:
    votes: list[tuple[str, str, str]]  # (label, vote, reasoning), in label order
    termination: str
    termination_reasoning: str
    probability: float | None = None  # of yes, where the question asks for a forecast and the voter gave one


def _entries(raw: object) -> list[dict[str, Any]]:
    if isinstance(raw, dict):
        # {"A": {"vote": ..., "reasoning": ...}} or {"A": "APPROVE"}
        return [
            {"label": k, **(v if isinstance(v, dict) else {"vote": v})} for k, v in raw.items()
        ]
    if isinstance(raw, list) and all(isinstance(e, dict) for e in raw):
        return raw
    raise ReplyError("'votes' must be a list of objects with label, vote and reasoning")


def _vote(entry: dict[str, Any], label: str) -> tuple[str, str, str]:
    vote = str(entry.get("vote", "")).strip().upper()
    if vote not in VOTE_SCORES:
        raise ReplyError(f"vote on {label} must be APPROVE, NEUTRAL or REJECT, not {vote or '(none)'!r}")
    reasoning = entry.get("reasoning", "")
    return label, vote, reasoning.strip() if isinstance(reasoning, str) else str(reasoning)


def ballot_schema(labels: list[str], forecast: bool = False) -> dict[str, Any]:
    """A ballot as a JSON schema: a vote from the choices on each label shown, and the termination vote (and,
    for a forecast, the optional probability of yes)."""
    vote = obj({"label": one_of(labels), "vote": one_of(list(VOTE_SCORES)), "reasoning": TEXT})
    schema = obj({"votes": listed(vote, len(labels), len(labels)),
                  "termination": obj({"vote": one_of(list(TERMINATION_CHOICES)), "reasoning": TEXT})})
    return with_probability(schema) if forecast else schema


def parse_ballot(text: str, labels: list[str], forecast: bool = False) -> ParsedBallot:
    obj = extract_object(text)
    if "votes" not in obj:
        raise ReplyError("'votes' is missing")
    votes = per_label(_entries(obj["votes"]), labels, "label", _vote,
                      "label {label} was voted on more than once",
                      "no vote for {labels}; vote on every label exactly once")
    term = obj.get("termination")
    if not isinstance(term, dict):
        raise ReplyError("'termination' must be an object with vote and reasoning")
    choice = str(term.get("vote", "")).strip().upper()
    if choice not in TERMINATION_CHOICES:
        raise ReplyError(f"termination vote must be CONCLUDE or CONTINUE, not {choice or '(none)'!r}")
    return ParsedBallot(
        votes=list(votes.values()),
        termination=choice,
        termination_reasoning=text_field(term, "reasoning", required=False),
        probability=probability_of(obj) if forecast else None,
    )
