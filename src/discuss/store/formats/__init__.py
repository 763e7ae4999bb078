"""Threads another tool wrote, read and continued in that tool's own shape: formats at the store's level.

The store knows that an index is not its own (`summary.is_legacy`); reading
such a thread, writing its index back and going on with it are its
format's. Each format names the protocol that ran its threads (Project
Dyson's: the vote), and is found by that name or as the format of a
foreign index; nothing below the store knows of it.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

from .base import ThreadFormat

__all__ = ["FORMATS", "LEGACY", "ThreadFormat", "for_protocol", "legacy"]

# protocol -> "module:object"; the module is imported only when a thread of its format is met.
FORMATS = {"vote": "discuss.store.formats.dyson:FORMAT"}
LEGACY = "vote"  # the format of an index that is not ours


@cache
def _load(target: str) -> ThreadFormat:
    module, name = target.split(":")
    found: ThreadFormat = getattr(import_module(module), name)
    return found


def for_protocol(name: str) -> ThreadFormat | None:
    """The foreign format whose threads `name` ran, if any."""
    return _load(FORMATS[name]) if name in FORMATS else None


def legacy() -> ThreadFormat:
    """The format of an index that is not ours (Project Dyson's)."""
    return _load(FORMATS[LEGACY])
