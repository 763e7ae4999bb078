"""Threads another tool wrote, read and continued in that tool's own shape: what a protocol offers for them.

The store knows only that an index is not its own (`store.summary.is_legacy`);
reading such a thread, writing its index back and going on with it are
the concern of the protocol whose package defines the format (Project
Dyson's threads, the vote protocol's). `legacy_format()` in the registry
names that protocol, so nothing outside `protocols/` imports it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..domain import Discussion, Panel, Round, Settings

# How the store reads one Markdown document with front matter: (meta, body).
ReadDoc = Callable[[Path], tuple[dict[str, Any], str]]


class ThreadFormat(ABC):
    @abstractmethod
    def load(self, data: dict[str, Any], folder: Path, read_own: Callable[[dict[str, Any]], Round],
             read: ReadDoc) -> Discussion:
        """The discussion an index in this format holds; rounds of ours inside it through `read_own`."""

    @abstractmethod
    def index(self, d: Discussion, failures: Callable[[Round], list[dict[str, Any]]],
              usage: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
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
