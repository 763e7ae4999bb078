"""The critique protocol's own settings: how many rounds of critique, and the test that ends them early."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from discuss.plugin import ProtocolSettings


class CritiqueSettings(ProtocolSettings):
    critique_rounds: int = Field(4, ge=1, le=100)
    # judge: the judge's score reaches `convergence_threshold`; titles: the answers' headings settle;
    # agreement: the answers agree at `consensusAt`.
    convergence_test: Literal["judge", "titles", "agreement"] = "judge"
    convergence_threshold: float = Field(0.85, ge=0.0, le=1.0)
