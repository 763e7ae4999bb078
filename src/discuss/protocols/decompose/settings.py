"""The decompose protocol's own setting: who splits the question and reassembles the answer."""

from __future__ import annotations

from discuss.plugin import ProtocolSettings


class DecomposeSettings(ProtocolSettings):
    drafter: str = ""  # the member who splits and reassembles (its id); empty: the first member
