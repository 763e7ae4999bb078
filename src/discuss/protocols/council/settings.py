"""The council family's own settings: who drafts, when auto escalates, whether a debate has a chairman.

The plain council has none. Each is recorded with the discussions of the
protocols that read it.
"""

from __future__ import annotations

from pydantic import Field

from discuss.plugin import ProtocolSettings


class DebateSettings(ProtocolSettings):
    # False: the debate ends with the revised answers, without the chairman's synthesis.
    debate_chairman: bool = True


class AdversarialSettings(ProtocolSettings):
    drafter: str = ""  # the member who drafts (its id); empty: the first member


class AutoSettings(AdversarialSettings):
    # A council whose first answers agree less than this goes on into the debate's rounds.
    escalate_below: float = Field(0.5, ge=0.0, le=1.0)
