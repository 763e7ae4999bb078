"""Finding every question and its discussion under the site's docs folder.

A discussion that cannot be read does not break the build: its entry
carries the error, and the page says what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..domain import Discussion, Question
from ..errors import InputError
from ..store import discussions as store
from ..store import documents
from ..store.questions import question_files, read_question


@dataclass
class Entry:
    question: Question
    src_uri: str  # the question page, relative to the docs folder, with '/'
    discussion: Discussion | None = None
    error: str | None = None

    @property
    def folder_uri(self) -> str:
        return self.src_uri[: -len(".md")] + "/"


def collect(docs_dir: Path, questions_dir: str = "") -> tuple[list[Entry], list[str]]:
    """Entries sorted by page path, and warnings about files that are not questions."""
    root = docs_dir / questions_dir if questions_dir else docs_dir
    entries, warnings = [], []
    for path in question_files(root) if root.is_dir() else []:
        try:
            meta, _ = documents.read(path)
        except ValueError:
            meta = {"title": True}  # looks like a question with broken front matter: say so below
        if not meta.get("title"):
            continue  # an ordinary page, not a question
        try:
            q = read_question(path)
        except InputError as exc:
            warnings.append(str(exc))
            continue
        entry = Entry(q, path.relative_to(docs_dir).as_posix())
        try:
            entry.discussion = store.load(q.folder)
        except InputError as exc:
            entry.error = str(exc)
        entries.append(entry)
    return entries, warnings
