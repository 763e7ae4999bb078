"""Earlier discussions ranked by how near they are to a question: the archive read as a memory.

Each question of the project is one document: its title, its background and,
once concluded, its conclusion (summary, key points, decision). The ranking is
Okapi BM25 (`rules.passages.bm25`, the one the sources' passages use), so the
same archive and the same question give the same order; nothing is sent
anywhere and no model is asked. Ties keep the slugs' order. A question that
cannot be read is left out and named in the warnings, never a failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..domain import Conclusion, Question
from ..errors import InputError
from ..rules.passages import bm25, words
from ..store import discussions as store
from ..store.layout import question_files
from ..store.questions import find_question, read_question


@dataclass(frozen=True)
class Earlier:
    """One discussion of the archive as the ranking reads it."""

    question: Question
    status: str  # `not started`, `active`, `concluded` or `closed`
    conclusion: Conclusion | None

    @property
    def decision(self) -> str:
        return self.conclusion.decision if self.conclusion else ""

    @property
    def text(self) -> str:
        """What the ranking reads: the title twice (a title says most in fewest words), background, conclusion."""
        q, c = self.question, self.conclusion
        parts = [q.title, q.title, q.background]
        if c is not None:
            parts += [c.summary, *c.key_points, c.decision]
        return "\n".join(p for p in parts if p)


@dataclass(frozen=True)
class Related:
    slug: str
    title: str
    status: str
    decision: str
    score: float
    concluded: str  # when its conclusion was written (ISO date and time), "" before it has one


def archive(content: Path) -> tuple[list[Earlier], list[str]]:
    """Every question under `content` with its status and conclusion; warnings for files left out."""
    found, warnings = [], []
    for path in question_files(content):
        try:
            q = read_question(path)
            s = store.summary(q.folder)
            end = q.folder / store.CONCLUSION_FILE
            c = store.read_conclusion(end) if end.is_file() else None
        except (InputError, ValueError, OSError) as exc:
            warnings.append(f"{path.relative_to(content).as_posix()}: left out: {exc}")
            continue
        found.append(Earlier(q, s.status if s is not None else "not started", c))
    return found, warnings


def query_of(content: Path, asked: str, earlier: list[Earlier]) -> tuple[str, str | None]:
    """The text to rank by and the slug to leave out: a question of the project (its slug or file) is ranked by
    its title and background and is not its own relative; anything else is the text itself."""
    by_slug = {e.question.slug: e for e in earlier}
    if asked in by_slug or asked.endswith(".md"):
        q = by_slug[asked].question if asked in by_slug else find_question(content, asked)
        return f"{q.title}\n{q.background}", q.slug
    return asked, None


def rank(earlier: list[Earlier], query: str, leave_out: set[str] | None = None, limit: int = 5,
         concluded_only: bool = False) -> list[Related]:
    """The `limit` discussions nearest to `query`, best first; only those sharing a word with it."""
    if not words(query):
        raise InputError("give a question with some words to look for (not only common words like 'the')")
    pool = [e for e in earlier if e.question.slug not in (leave_out or set())
            and (not concluded_only or (e.status == "concluded" and e.conclusion is not None))]
    scores = bm25([e.text for e in pool], query)
    order = sorted(range(len(pool)), key=lambda i: (-scores[i], pool[i].question.slug))
    return [Related(e.question.slug, e.question.title, e.status, e.decision, scores[i],
                    e.conclusion.generated if e.conclusion else "")
            for i in order[:limit] if scores[i] > 0 for e in [pool[i]]]
