"""A question's file before a run: read, its background given as a file read, and its background checked."""

from __future__ import annotations

from pathlib import Path

from ..domain import Question
from ..store.documents import read_text
from ..store.questions import background_problem as problem
from ..store.questions import read_question

__all__ = ["background_problem", "background_text", "question_at"]


def question_at(path: Path) -> Question:
    return read_question(path)


def background_problem(q: Question) -> str | None:
    """What is wrong with a question's background (empty, or still the template's text), None where nothing is."""
    return problem(q)


def background_text(path: Path, limit: int) -> str:
    """A background given as a file, read whole up to `limit` bytes; ValueError where it cannot be read."""
    return read_text(path, limit=limit)
