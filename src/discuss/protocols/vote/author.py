"""Who writes a vote discussion's conclusion: the rule the protocol runs and `verify` checks."""

from __future__ import annotations

from discuss.plugin import Discussion, Panelist

from .record import ballot_box
from .settings import VoteSettings


def conclusion_author(d: Discussion) -> Panelist:
    wanted = VoteSettings.of(d.settings).conclusion_author
    if wanted != "winner":
        return d.panel.member(wanted)
    last = next((ballot_box(r).winner_id for r in reversed(d.rounds) if ballot_box(r).winner_id), None)
    return d.panel.member(last) if last in d.panel.ids else d.panel.members[0]
