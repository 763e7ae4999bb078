"""The tournament's own setting: whether the two sides of a match answer each other before the judge decides."""

from __future__ import annotations

from discuss.plugin import ProtocolSettings


class TournamentSettings(ProtocolSettings):
    match_debate: bool = True
