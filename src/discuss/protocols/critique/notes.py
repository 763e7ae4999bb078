"""What a critique round records in its round.yaml."""

from __future__ import annotations

from typing import NotRequired, cast

from typing_extensions import TypedDict

from discuss.plugin import Convergence, Round


class Stance(TypedDict):
    confidence: float
    agreements: list[dict[str, str]]  # {"with": id, "on": what}
    disagreements: list[dict[str, str]]  # {"with": id, "on": what, "why": reason}
    probability: NotRequired[float]  # of yes, where the question asks for a forecast and the reply gave one


class Verdict(TypedDict, total=False):
    judgeId: str
    recommendation: float
    keyFacts: float
    caveats: float
    score: float | None
    failed: bool
    debated: bool  # the judge is also a debater (no referee was free)


class CritiqueNotes(TypedDict, total=False):
    stances: dict[str, Stance]  # by panelist id
    judge: Verdict
    convergence: Convergence


def notes(rnd: Round) -> CritiqueNotes:
    return cast(CritiqueNotes, rnd.notes)
