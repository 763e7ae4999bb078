"""`discuss check`: every question file discuss, or Project Dyson's content rules, would refuse; nothing changed.

A file is refused for what reading it says, for Dyson's rules, for a name that
differs from another's only by case or Unicode form (one file on macOS and
Windows), and for a recorded outcome its ballots do not bear out. Round
folders a thread's index does not list are noticed, never counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..archive.report import inconsistent
from ..domain import Discussion
from ..errors import InputError
from ..store import discussions as store
from ..store.dysonrules import problems
from ..store.layout import Layout, clashes, question_files
from ..store.questions import read_question
from .results import Result


@dataclass
class Finding(Result):
    path: str  # from the project's root
    problem: str


@dataclass
class Notice(Result):
    path: str
    note: str


@dataclass
class Checked(Result):
    """How many question files there are, those refused and why, and what is only noticed."""

    files: int
    refused: list[Finding]
    notices: list[Notice]


def check(layout: Layout) -> Checked:
    files = question_files(layout.content)
    found: list[tuple[Path, str]] = []
    for path in files:
        try:
            read_question(path)
        except InputError as exc:
            found.append((path, str(exc).removeprefix(f"{path}: ")))
    found += problems(layout.content)
    found += [(path, f"differs from {other.name} only by case or Unicode form: on macOS and Windows they are one "
                     "file; rename one") for path, other in clashes(files).items()]
    loaded = _loaded(files)
    found += _inconsistent(loaded)
    def shown(path: Path) -> str:
        return path.relative_to(layout.root).as_posix()

    return Checked(len(files), [Finding(shown(path), problem) for path, problem in sorted(found, key=lambda x: str(x[0]))],
                   [Notice(shown(path), note) for path, note in _orphans(loaded)])


def _loaded(files: list[Path]) -> list[tuple[Path, Discussion]]:
    """Each question file with its discussion, read once; one that cannot be read is `status`'s and `show`'s
    to report."""
    found = []
    for path in files:
        try:
            d = store.load(path.with_suffix(""))
        except InputError:
            continue
        if d is not None:
            found.append((path, d))
    return found


def _inconsistent(loaded: list[tuple[Path, Discussion]]) -> list[tuple[Path, str]]:
    """Discussions whose recorded outcome their ballots do not bear out (`verify` says it all)."""
    return [(path, "its recorded outcome does not follow from its ballots: " + "; ".join(lines[:3]))
            for path, d in loaded if (lines := inconsistent(d))]


def _orphans(loaded: list[tuple[Path, Discussion]]) -> list[tuple[Path, str]]:
    """Round folders a finished thread's index does not list: not refused, never counted, said."""
    return [(path.with_suffix(""), f"{', '.join(f'round-{n}/' for n in d.foreign.orphan_rounds)} not listed "
                                   "in discussion.yaml: left out, never counted")
            for path, d in loaded if d.foreign is not None and d.foreign.orphan_rounds]
