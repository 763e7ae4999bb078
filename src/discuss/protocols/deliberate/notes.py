"""What each deliberate round records in its round.yaml."""

from __future__ import annotations

from typing import cast

from typing_extensions import TypedDict

from discuss.plugin import Round


class Alternative(TypedDict):
    title: str
    description: str


class Ranking(TypedDict):
    scores: dict[str, dict[str, float]]  # alternative label -> dimension -> 0..1
    concern: str
    confidence: float


class Check(TypedDict):
    check: str
    passed: bool
    detail: str


class Gate(TypedDict):
    passed: bool
    checks: list[Check]


class Consensus(TypedDict, total=False):
    means: dict[str, float]
    best: str | None
    bestTitle: str  # the best alternative's title, so a reader need not look it up
    score: float
    preferred: dict[str, str | None]
    taskType: str
    threshold: float
    dissenters: list[str]
    initialConfidence: float | None
    finalConfidence: float | None


class Triage(TypedDict, total=False):
    scores: dict[str, float]  # dimension -> 0..1
    reasoning: str
    confidence: float
    below: float
    deliberate: bool


class DeliberateNotes(TypedDict, total=False):
    triage: Triage  # triage: the chair's rating of the question
    confidence: dict[str, float]  # research: each persona's confidence
    alternatives: list[Alternative]  # alternatives: what the chair proposed
    rankings: dict[str, Ranking]  # ranking: each persona's scores
    consensus: Consensus
    gate1: Gate
    gate2: Gate
    conformity: list[str]


def notes(rnd: Round) -> DeliberateNotes:
    return cast(DeliberateNotes, rnd.notes)
