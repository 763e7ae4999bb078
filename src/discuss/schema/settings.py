"""The settings of a discussion, as people write them in panels.yaml and as discussion.yaml keeps them.

The shared settings' defaults live once, in the domain's `Settings`; this
module adds the types, the camelCase names and the bounds, and refuses
anything else. Each protocol declares its own as a subclass of
`ProtocolSettings` (with their defaults and bounds); they travel in
`Settings.own`. A renamed setting keeps its old name in `MOVED` (or its
model's `moved`), so a discussion written under the old name still loads;
one that every discussion once recorded and a single protocol now owns is
in `ONCE_SHARED`, so other protocols' discussions that recorded it still
load.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from functools import cache, lru_cache
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator
from pydantic.alias_generators import to_camel

from ..domain import NOT_SHARED, Settings
from ..errors import InputError
from . import validated

STRICT = ConfigDict(strict=True, extra="forbid", alias_generator=to_camel, populate_by_name=True,
                    allow_inf_nan=False)
FRACTION = {"ge": 0.0, "le": 1.0}
# Each setting's bounds; a setting not named here takes any value of its type.
BOUNDS: dict[str, dict[str, Any]] = {
    "max_rounds": {"ge": 1, "le": 100},
    "max_reply_chars": {"ge": 1000},
    "vote_attempts": {"ge": 1, "le": 10},
    "context_tokens": {"ge": 100},
    "source_tokens": {"ge": 100},
    "person_wait_hours": {"ge": 0},
    "max_response_words": {"ge": 1},
    "timeout_seconds": {"gt": 0},
    "attempts": {"ge": 1, "le": 10},
    "retry_base_delay": {"ge": 0},
    "consensus_at": FRACTION,
    "contested_at": FRACTION,
    "max_calls": {"ge": 0},
    "max_tokens": {"ge": 0},
    "max_cost": {"ge": 0},
}
CHOICES: dict[str, Any] = {
    "agreement_measure": Literal["lexical", "embedding"],
    "prompt_cache": Literal["auto", "off"],
}


def _model() -> type[BaseModel]:
    hints = typing.get_type_hints(Settings)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(Settings):
        if f.name in NOT_SHARED:
            continue
        kind = CHOICES.get(f.name, hints[f.name])
        fields[f.name] = (kind, Field(f.default, **BOUNDS.get(f.name, {})))
    return create_model("SettingsModel", __config__=STRICT, **fields)


SettingsModel = _model()


# Shared settings renamed since discussions were first written: old camelCase name -> new one.
MOVED: dict[str, str] = {}
# Settings that every discussion once recorded, whatever its protocol, and that are now one
# protocol's own: a discussion of another protocol that recorded one keeps it as it was, unread.
ONCE_SHARED = frozenset({
    "selfVoteWeight", "consecutiveConcludeRounds", "consecutiveConcludeVotes", "quorum", "convergenceRounds",
    "convergenceScore", "contextRounds", "conclusionAuthor", "escalateBelow", "debateChairman", "drafter",
    "critiqueRounds", "convergenceTest", "convergenceThreshold", "matchDebate", "personas", "minPersonas",
    "triage", "deliberateBelow"})


def renamed(raw: dict[str, Any], moved: dict[str, str]) -> dict[str, Any]:
    """`raw` with each old name replaced by the new one, in place in the order (the new name wins)."""
    return {moved.get(k, k): v for k, v in raw.items() if not (k in moved and moved[k] in raw)}


def to_settings(model: BaseModel, own: dict[str, Any] | None = None) -> Settings:
    return Settings(**model.model_dump(), own=dict(own or {}))


def refuse_shared(given: typing.Iterable[str]) -> None:
    """InputError for any of `given` that is a shared setting where only a protocol's own are taken."""
    if shared := sorted(set(given) & {to_camel(name) for name in SettingsModel.model_fields}):
        raise InputError(f"{', '.join(shared)}: a setting every protocol shares, given in panels.yaml (or by an "
                         "option of its own, such as --max-rounds), not as one of the protocol's own")


def shared_values(settings: Settings) -> dict[str, Any]:
    """The shared settings by camelCase name, in the order `Settings` declares them."""
    return {camel: getattr(settings, name) for name, camel in _shared_names()}


@functools.cache
def _shared_names() -> tuple[tuple[str, str], ...]:
    """(field, camelCase name) of each shared setting: asked for every index a run writes."""
    return tuple((f.name, to_camel(f.name)) for f in dataclasses.fields(Settings) if f.name not in NOT_SHARED)


def shared_settings(raw: dict[str, Any], where: str, own: dict[str, Any] | None = None) -> Settings:
    """The shared settings in `raw` (camelCase, as a file has them), checked; `own` kept beside them."""
    return to_settings(validated(SettingsModel, renamed(raw, MOVED), where, noun="setting"), own)


def updated(settings: Settings, changes: dict[str, Any], where: str) -> Settings:
    """`settings` with `changes` (by field name), checked like a file's."""
    changed = shared_settings({**shared_values(settings), **{to_camel(k): v for k, v in changes.items()}},
                              where, settings.own)
    return dataclasses.replace(changed, recorded=settings.recorded)


class ProtocolSettings(BaseModel):
    """A protocol's own settings: subclass it with typed fields, defaults and bounds.

    Fields are snake_case in code and camelCase in files. `moved` maps an old
    camelCase name to the new one when a setting is renamed.
    """

    # Frozen: `of` hands the same instance to every caller with the same settings.
    model_config = ConfigDict(**STRICT, frozen=True)
    moved: ClassVar[dict[str, str]] = {}
    # Fields a new discussion records only when they differ from their defaults, so discussions
    # recorded before the setting existed, and those that leave it alone, keep the bytes they had.
    quiet: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, value: Any) -> Any:
        return renamed(value, cls.moved) if isinstance(value, dict) else value

    @classmethod
    def of(cls, settings: Settings) -> Self:
        """A discussion's settings of this model, typed; those it does not give at their defaults."""
        names = cls.names()
        # Read on every call a protocol makes: validated once per distinct set of values (typed, so 1, 1.0
        # and True are not taken for one another).
        given = tuple((k, type(v), v) for k, v in settings.own.items() if k in names)
        try:
            return typing.cast(Self, _typed(cls, given))
        except TypeError:  # a value that cannot be a key (a list): validated as it is
            return cls.model_validate({k: v for k, _, v in given})

    @classmethod
    def names(cls) -> frozenset[str]:
        """Every name a file may give one of these settings: current and old."""
        return _names(cls)


@cache
def _names(model: type[ProtocolSettings]) -> frozenset[str]:
    return frozenset({to_camel(name) for name in model.model_fields} | set(model.moved))


@lru_cache(maxsize=256)
def _typed(model: type[ProtocolSettings], given: tuple[tuple[str, type, Any], ...]) -> ProtocolSettings:
    return model.model_validate({k: v for k, _, v in given})
