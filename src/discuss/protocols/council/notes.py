"""What a council-family round records in its round.yaml."""

from __future__ import annotations

from typing import cast

from typing_extensions import TypedDict

from discuss.plugin import Round


class Critique(TypedDict):
    critic: str
    target: str
    critique: str


class Similarity(TypedDict):
    a: str
    b: str
    score: float


class Escalation(TypedDict):
    debate: bool
    agreement: float | None
    below: float
    reason: str


class Route(TypedDict):
    protocol: str  # council (and maybe a debate) or adversarial
    reason: str


class CouncilNotes(TypedDict, total=False):
    route: Route  # auto: where the question was sent, and why
    critiques: list[Critique]  # cross-examination: who critiqued whom, and what
    similarity: list[Similarity]  # every pair of answers, by the agreement measure
    escalation: Escalation  # auto: whether the first round's agreement sent the panel into a debate


def notes(rnd: Round) -> CouncilNotes:
    return cast(CouncilNotes, rnd.notes)
