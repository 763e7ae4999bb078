"""What a vote round records beyond its votes: the text convergence test, when one is chosen."""

from __future__ import annotations

from typing import cast

from typing_extensions import TypedDict

from ...domain import Round
from ...rules.convergence import Convergence


class VoteNotes(TypedDict, total=False):
    convergence: Convergence


def notes(rnd: Round) -> VoteNotes:
    return cast(VoteNotes, rnd.notes)
