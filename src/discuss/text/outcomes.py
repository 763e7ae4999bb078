"""Why a discussion stopped, in words: every termination reason any protocol records."""

from __future__ import annotations

REASONS = {
    "unanimous-conclude": "every panelist that voted asked to conclude",
    "consecutive-conclude": "a majority asked to conclude in consecutive rounds",
    "convergence": "the same panelist won consecutive rounds with a high score",
    "max-rounds": "the maximum number of rounds was reached",
    "forced": "the conclusion was requested by hand",
    "completed": "every stage of the protocol ran",
    "converged": "the panel's positions converged",
    "gate-failed": "the consensus did not pass its gates, so no decision was written",
    "confident": "triage found the question clear enough for the chair to answer alone",
    "budget": "the budget would have been exceeded",
    "no-valid-ballots": "the panel cast no valid ballot, so nobody could decide anything",
    "no-valid-replies": "no participant gave a reply that could be used, however often asked",
    "no-valid-verdict": "a judge never gave a usable verdict, so nothing was decided",
}


def describe(reason: str | None) -> str:
    return REASONS.get(reason or "", reason or "")
