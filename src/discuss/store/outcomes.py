"""What happened after a discussion ended, as `discuss resolve` recorded it: its folder's outcome.md.

Front matter: questionSlug, type (outcome), resolved (when), resolvedBy (a
person's name), answer (one of the question's options, where it offers
some), decision and bornOut (the panel's decision and whether the answer
bears it out), evidence (web addresses, and files of the project with their
sha256); the body says what happened. The file is sealed onto the record's
chain (`chain.with_outcome`), so an outcome edited afterwards is named by
`discuss verify`. A file that cannot be read is no outcome: readers say so
rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..domain import Discussion
from ..protocols import get_protocol
from ..rules.forecasts import PANEL_RULE, panel_probability
from . import documents
from .chain import OUTCOME


@dataclass(frozen=True)
class Outcome:
    resolved: str
    resolved_by: str
    text: str
    answer: str = ""
    decision: str = ""
    born_out: bool | None = None
    evidence: list[dict[str, str]] = field(default_factory=list)

    def json(self) -> dict[str, object]:
        return {"resolved": self.resolved, "resolvedBy": self.resolved_by, "answer": self.answer or None,
                "decision": self.decision or None, "bornOut": self.born_out, "evidence": self.evidence,
                "text": self.text}


def read_outcome(folder: Path) -> Outcome | None:
    """The discussion's outcome, or None where it has none (or one that cannot be read)."""
    path = folder / OUTCOME
    if not path.is_file():
        return None
    try:
        meta, body = documents.read(path, written=True)
    except (ValueError, OSError):
        return None
    text = body.strip().removeprefix("# What happened").strip()
    evidence = [{str(k): str(v) for k, v in e.items()} for e in meta.get("evidence") or [] if isinstance(e, dict)]
    born = meta.get("bornOut")
    return Outcome(str(meta.get("resolved") or ""), str(meta.get("resolvedBy") or ""), text,
                   str(meta.get("answer") or ""), str(meta.get("decision") or ""),
                   born if isinstance(born, bool) else None, evidence)


def forecasts_by_round(d: Discussion) -> list[tuple[int, dict[str, float | None]]]:
    """Each finished round's number and probabilities of yes by member (None: the member gave none, an
    abstention), as its protocol's figures give them; [] where no round holds a forecast."""
    figures = get_protocol(d.protocol).figures
    rounds = [(r.number, dict(figures.of_round(r).forecasts)) for r in d.rounds if r.complete]
    if not any(given for _, given in rounds):
        return []
    return [(n, {pid: given.get(pid) for pid in d.panel.ids}) for n, given in rounds]


def panel_forecast(d: Discussion) -> dict[str, Any] | None:
    """What the conclusion records of the forecasts: {probability, rule, members} from the last finished round
    (a member without one abstains); None for a discussion without forecasts."""
    rounds = forecasts_by_round(d)
    if not rounds:
        return None
    last = rounds[-1][1]
    return {"probability": panel_probability(last), "rule": PANEL_RULE, "members": dict(last)}
