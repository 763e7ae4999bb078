"""What the CLI shows once a run is over: what its discussion came to, as text, as JSON, or as the batch's
table."""

from __future__ import annotations

from pathlib import Path

from ..archive.export import discussion_json
from ..archive.listing import STATUS_HEADER, status_row
from ..archive.report import result_text
from ..domain import Question, Usage
from ..store import discussions as store
from ..store.questions import read_question
from ..text.tables import table
from .results import JSON

__all__ = ["batch_table", "result"]


def result(path: Path, as_json: bool = False, concluded: bool = False) -> str | dict[str, JSON] | None:
    """What the discussion of the question at `path` came to, as `ask` prints it (the conclusion and how it
    ended), or `show --json`'s record; None where there is no discussion (`concluded`: or it has not ended)."""
    d = store.load(read_question(path).folder)
    if d is None or (concluded and not d.concluded):
        return None
    return discussion_json(d) if as_json else result_text(d)


def batch_table(questions: list[Question]) -> tuple[str, Usage]:
    """`run --all`'s table of its discussions as their files now are, and what they spent in all."""
    summaries = [(q.slug, store.summary(q.folder)) for q in questions]
    total = Usage()
    for _, s in summaries:
        if s is not None:
            total.add(s.usage)
    return table(STATUS_HEADER, [status_row(slug, s) for slug, s in summaries]), total
