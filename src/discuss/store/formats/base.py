"""What a thread format is: how another tool's threads are read, written back and continued.

Its own module, so a format imports it without importing the registry that names the format.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

from ...domain import Discussion, Panel, Settings


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
