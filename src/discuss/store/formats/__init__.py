"""Threads another tool wrote, read and continued in that tool's own shape: formats at the store's level.

The store knows that an index is not its own (`summary.is_legacy`); reading
such a thread, writing its index back and going on with it are its
format's. Each format names the protocol that ran its threads (Project
Dyson's: the vote), and is found by that name or as the format of a
foreign index; nothing below the store knows of it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

from ...domain import Discussion, Panel, Settings

# protocol -> "module:object"; the module is imported only when a thread of its format is met.
FORMATS = {"vote": "discuss.store.formats.dyson:FORMAT"}
LEGACY = "vote"  # the format of an index that is not ours


class ThreadFormat(ABC):
    protocol: str = ""

    @abstractmethod
    def load(self, data: dict[str, Any], folder: Path) -> Discussion:
        """The discussion an index in this format holds, the rounds discuss added to it included."""

    @abstractmethod
    def index(self, d: Discussion) -> dict[str, Any]:
        """`d`'s index as the other tool reads it, our own rounds included."""

    @abstractmethod
    def round_winners(self, rounds: list[dict[str, Any]]) -> list[str | None] | None:
        """The winner each round entry of such an index records; None where one is not a word."""

    @abstractmethod
    def adopt(self, d: Discussion, phase: str) -> None:
        """Keep a new discussion of a question that belongs to the other tool's site in its shape."""

    @abstractmethod
    def continued(self, d: Discussion, settings: Settings, panel: Panel) -> tuple[Settings, Panel]:
        """The settings and panel a thread goes on under: the thread's own on top of the panel's."""


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
