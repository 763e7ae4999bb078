"""The vote protocol's own settings: how ballots show the answers, and what earlier rounds show.

Both are left out of a discussion's record at their defaults, so every vote
discussion recorded before they existed reads, and writes, as it did.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from ...errors import InputError
from ...schema.settings import ProtocolSettings


class VoteSettings(ProtocolSettings):
    quiet: ClassVar[frozenset[str]] = frozenset({"ballots", "show_winner"})

    # anonymised: answers under letters, shuffled per voter (ours); named: under their authors'
    # names in the panel's order, as Project Dyson's reference tool showed them. Ties go by the
    # same fair rule either way.
    ballots: Literal["anonymised", "named"] = "anonymised"
    # False: earlier rounds are shown without saying which answer won (Dyson's paper's ablation).
    show_winner: bool = True


# `discuss run --method`: the word on the command line for each way of showing ballots.
METHOD_FLAGS = {"anonymised": "anonymised", "dyson": "named"}


def from_flags(method: str | None, hide_winner: bool | None) -> dict[str, object]:
    """These settings as `run --method` and `--hide-winner/--show-winner` give them (None: not given)."""
    if method is not None and method not in METHOD_FLAGS:
        raise InputError(f"--method {method}: give one of {', '.join(METHOD_FLAGS)}")
    return {"ballots": METHOD_FLAGS.get(method or ""), "showWinner": None if hide_winner is None else not hide_winner}
