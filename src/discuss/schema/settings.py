"""The settings of a discussion, as people write them in panels.yaml and as discussion.yaml keeps them.

The defaults live once, in the domain's `Settings`; this module adds the
types, the camelCase names and the bounds, and refuses anything else.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.alias_generators import to_camel

from ..domain import Settings

STRICT = ConfigDict(strict=True, extra="forbid", alias_generator=to_camel, populate_by_name=True,
                    allow_inf_nan=False)
FRACTION = {"ge": 0.0, "le": 1.0}
# Each setting's bounds; a setting not named here takes any value of its type.
BOUNDS: dict[str, dict[str, Any]] = {
    "max_rounds": {"ge": 1, "le": 100},
    "self_vote_weight": FRACTION,
    "consecutive_conclude_rounds": {"ge": 1},
    "consecutive_conclude_votes": {"ge": 1},
    "quorum": {"ge": 0.0, "lt": 1.0},
    "max_reply_chars": {"ge": 1000},
    "convergence_rounds": {"ge": 1},
    "convergence_score": FRACTION,
    "vote_attempts": {"ge": 1, "le": 10},
    "context_tokens": {"ge": 100},
    "source_tokens": {"ge": 100},
    "person_wait_hours": {"ge": 0},
    "context_rounds": {"ge": 0},
    "max_response_words": {"ge": 1},
    "timeout_seconds": {"gt": 0},
    "attempts": {"ge": 1, "le": 10},
    "retry_base_delay": {"ge": 0},
    "conclusion_author": {"min_length": 1},
    "escalate_below": FRACTION,
    "consensus_at": FRACTION,
    "contested_at": FRACTION,
    "critique_rounds": {"ge": 1, "le": 100},
    "convergence_threshold": FRACTION,
    "min_personas": {"ge": 1},
    "deliberate_below": FRACTION,
    "max_calls": {"ge": 0},
    "max_tokens": {"ge": 0},
    "max_cost": {"ge": 0},
}
CHOICES: dict[str, Any] = {
    "agreement_measure": Literal["lexical", "embedding"],
    "convergence_test": Literal["judge", "titles", "agreement"],
}


def _model() -> type[BaseModel]:
    hints = typing.get_type_hints(Settings)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(Settings):
        kind = CHOICES.get(f.name, hints[f.name])
        fields[f.name] = (kind, Field(f.default, **BOUNDS.get(f.name, {})))
    return create_model("SettingsModel", __config__=STRICT, **fields)


SettingsModel = _model()


def to_settings(model: BaseModel) -> Settings:
    return Settings(**model.model_dump())


def updated(settings: Settings, changes: dict[str, Any], where: str) -> Settings:
    """`settings` with `changes` (by field name), checked like a file's."""
    from . import validated

    merged = {to_camel(k): v for k, v in {**dataclasses.asdict(settings), **changes}.items()}
    return to_settings(validated(SettingsModel, merged, where, noun="setting"))
