"""Who splits a decomposed question (and reassembles its answer)."""

from __future__ import annotations

from discuss.plugin import Discussion, Panelist

from .settings import DecomposeSettings


def splitter(d: Discussion) -> Panelist:
    chosen = DecomposeSettings.of(d.settings).drafter
    return d.panel.member(chosen) if chosen else d.panel.members[0]
