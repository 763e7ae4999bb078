"""What the CLI shows once a run is over (or before one starts): the protocols a run may name, a question's file
read, its background checked, and what its discussion came to, as text, as JSON, or as the batch's table."""

from __future__ import annotations

from pathlib import Path

from ..domain import Question, Usage
from ..protocols import BUILT_IN, DEFAULT  # the CLI's help names them: imported with it, as before
from .results import JSON

__all__ = ["BUILT_IN", "DEFAULT", "background_problem", "background_text", "batch_table", "question_at", "result"]


def question_at(path: Path) -> Question:
    from ..store.questions import read_question

    return read_question(path)


def background_problem(q: Question) -> str | None:
    """What is wrong with a question's background (empty, or still the template's text), None where nothing is."""
    from ..store.questions import background_problem as problem

    return problem(q)


def background_text(path: Path, limit: int) -> str:
    """A background given as a file, read whole up to `limit` bytes; ValueError where it cannot be read."""
    from ..store.documents import read_text

    return read_text(path, limit=limit)


def result(path: Path, as_json: bool = False, concluded: bool = False) -> str | dict[str, JSON] | None:
    """What the discussion of the question at `path` came to, as `ask` prints it (the conclusion and how it
    ended), or `show --json`'s record; None where there is no discussion (`concluded`: or it has not ended)."""
    from ..archive.export import discussion_json
    from ..archive.report import result_text
    from ..store import discussions as store
    from ..store.questions import read_question

    d = store.load(read_question(path).folder)
    if d is None or (concluded and not d.concluded):
        return None
    return discussion_json(d) if as_json else result_text(d)


def batch_table(questions: list[Question]) -> tuple[str, Usage]:
    """`run --all`'s table of its discussions as their files now are, and what they spent in all."""
    from ..archive.listing import STATUS_HEADER, status_row
    from ..store import discussions as store
    from ..text.tables import table

    summaries = [(q.slug, store.summary(q.folder)) for q in questions]
    total = Usage()
    for _, s in summaries:
        if s is not None:
            total.add(s.usage)
    return table(STATUS_HEADER, [status_row(slug, s) for slug, s in summaries]), total
