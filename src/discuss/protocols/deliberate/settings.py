"""The deliberate protocol's own settings: its personas, its first gate, and the triage before it all."""

from __future__ import annotations

from pydantic import Field

from discuss.plugin import ProtocolSettings


class DeliberateSettings(ProtocolSettings):
    personas: str = ""  # persona ids, comma-separated; empty: a diverse default
    # Gate 1 passes only when at least this many personas finished their ranking.
    min_personas: int = Field(2, ge=1)
    # True: the chair first rates how uncertain the question is; a confident one skips deliberation.
    triage: bool = False
    deliberate_below: float = Field(0.70, ge=0.0, le=1.0)  # the confidence under which triage deliberates
