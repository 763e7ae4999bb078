"""What a vote round records beyond its votes: the text convergence test, when one is chosen."""

from __future__ import annotations

from typing import cast

from typing_extensions import TypedDict

from discuss.plugin import Convergence, Round


class BallotCut(TypedDict):
    tokensPerAnswer: int  # each answer's share of contextTokens in a ballot
    cut: list[str]  # whose answers were longer than that, so every ballot shows them cut


class VoteNotes(TypedDict, total=False):
    convergence: Convergence
    ballotCut: BallotCut


def notes(rnd: Round) -> VoteNotes:
    return cast(VoteNotes, rnd.notes)
