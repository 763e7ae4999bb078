"""A discussion's `config:` in discussion.yaml: read into `Settings`, written back as it was recorded.

A new discussion records the shared settings in the order `Settings` declares
them, then its protocol's own in the order its model declares them; a quiet
setting only where it is not at its default. A discussion read from disk is
written back in the order it was recorded, and what it recorded that is no
setting of its protocol today (another protocol's numbers, from when every
config held every protocol's) is written as it was read; a setting it did not
record (one added since) is added only once it is not at its default: loading
and saving a recorded discussion changes no byte of it.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any

from ..domain import QUIET_SETTINGS, Settings
from ..protocols import get_protocol, own_settings
from ..text.naming import camel

if TYPE_CHECKING:
    from ..schema.settings import ProtocolSettings

# The settings' schema (pydantic) is imported where a config is read or written, not with the store:
# `discuss status` reads discussions without either.


def read_config(raw: Any, where: str, protocol: str) -> Settings:
    """The settings a discussion of `protocol` recorded: shared, its own, and the rest kept as recorded."""
    from ..schema.settings import ONCE_SHARED, shared_settings

    raw = raw if raw is not None else {}
    if not isinstance(raw, dict):
        raise ValueError("config: expected a mapping of settings")
    handler = get_protocol(protocol)
    model = handler.settings_model
    mine = model.names() if model is not None else set()
    own = own_settings(handler, {k: v for k, v in raw.items() if k in mine}, f"{where}: config")
    others = {k: v for k, v in raw.items() if k not in mine and k not in ONCE_SHARED}
    return dataclasses.replace(shared_settings(others, f"{where}: config", own), recorded=dict(raw))


def config_of(settings: Settings, protocol: str) -> dict[str, Any]:
    """What discussion.yaml records under `config:` (see the module's docstring for the order)."""
    from ..schema.settings import MOVED, shared_values

    model = get_protocol(protocol).settings_model
    current = {**shared_values(settings), **_own_values(settings.own, model)}
    defaults = _defaults(model)
    quiet = {camel(n) for n in QUIET_SETTINGS | (model.quiet if model is not None else frozenset())}
    renames = {**MOVED, **(model.moved if model is not None else {})}
    out: dict[str, Any] = {}
    for key, value in settings.recorded.items():
        now = renames.get(key, key)
        out[key] = current.pop(now) if now in current else value
    out.update({k: v for k, v in current.items() if not ((k in quiet or settings.recorded) and v == defaults[k])})
    return out


@functools.lru_cache(maxsize=64)
def _defaults(model: type[ProtocolSettings] | None) -> dict[str, Any]:
    """Every setting's default by camelCase name, a protocol's own included (read, never changed)."""
    from ..schema.settings import shared_values

    return {**shared_values(Settings()), **_own_values({}, model)}


def _own_values(own: dict[str, Any], model: type[ProtocolSettings] | None) -> dict[str, Any]:
    return model.model_validate(own).model_dump(by_alias=True) if model is not None else {}
