"""The vote protocol's own settings: its stopping rules, its ballots, and what earlier rounds show.

`ballots` and `showWinner` are left out of a new discussion's record at their
defaults, so every vote discussion recorded before they existed reads, and
writes, as it did.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from discuss.plugin import InputError, ProtocolSettings


class VoteSettings(ProtocolSettings):
    quiet: ClassVar[frozenset[str]] = frozenset({"ballots", "show_winner"})

    # What an approval of one's own answer counts, against 1 for another's.
    self_vote_weight: float = Field(0.5, ge=0.0, le=1.0)
    consecutive_conclude_rounds: int = Field(2, ge=1)
    # CONCLUDE votes the consecutive rule needs in each of those rounds ("2+ models").
    consecutive_conclude_votes: int = Field(2, ge=1)
    # Termination votes of a round count only if more than this share of the panel cast one.
    quorum: float = Field(0.5, ge=0.0, lt=1.0)
    convergence_rounds: int = Field(3, ge=1)
    # Fraction of the highest weighted score a reply could get.
    convergence_score: float = Field(0.8, ge=0.0, le=1.0)
    # titles or agreement: a text test on the answers may stop the vote too; judge: none (no judge here).
    convergence_test: Literal["judge", "titles", "agreement"] = "judge"
    context_rounds: int = Field(3, ge=0)  # earlier rounds an answer prompt shows at most, newest first
    conclusion_author: str = Field("winner", min_length=1)  # winner, or a member's id

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
