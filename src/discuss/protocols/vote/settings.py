"""The vote protocol's own settings: how ballots show the answers, and what earlier rounds show.

Both are left out of a discussion's record at their defaults, so every vote
discussion recorded before they existed reads, and writes, as it did.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from ...schema.settings import ProtocolSettings


class VoteSettings(ProtocolSettings):
    record_defaults: ClassVar[bool] = False

    # anonymised: answers under letters, shuffled per voter (ours); named: under their authors'
    # names in the panel's order, as Project Dyson's reference tool showed them. Ties go by the
    # same fair rule either way.
    ballots: Literal["anonymised", "named"] = "anonymised"
    # False: earlier rounds are shown without saying which answer won (Dyson's paper's ablation).
    show_winner: bool = True
