"""Finding every question and its discussion under the site's docs folder.

A discussion that cannot be read does not break the build: its entry
carries the error, and the page says what is wrong. While `mkdocs serve`
rebuilds, a question whose files have not changed (same names, sizes and
modification times, its discussion's files and the sources they record) is
not read again: an edit re-reads one discussion.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..archive.integrity import checked, held
from ..domain import Discussion, Question
from ..errors import InputError
from ..store import discussions as store
from ..store import documents
from ..store.followups import part_files
from ..store.questions import question_files, read_question
from ..store.sources import recorded_paths
from . import boundary


@dataclass
class Entry:
    question: Question
    src_uri: str  # the question page, relative to the docs folder, with '/'
    discussion: Discussion | None = None
    error: str | None = None
    signature: tuple = ()  # the files it was read from; the same signature, the same entry
    part: int = 1  # 2 and up: a follow-up, shown after the parts before it on the same page
    parts: list[Entry] = field(default_factory=list)
    trial: int | None = None  # K for `<question>/trials/trial-K/`: published as data, never as a page
    trials: list[Entry] = field(default_factory=list)
    verified: bool | None = None  # whether its record holds under `discuss verify`'s checks (None: not known)
    findings: list[str] = field(default_factory=list)  # what those checks found, in words

    @property
    def prefix(self) -> str:
        """Before every id on the page, so parts' rounds and tabs never collide."""
        return f"part-{self.part}-" if self.part > 1 else ""

    @property
    def unsound(self) -> bool:
        """Whether the record of this discussion, or of one of its follow-ups, does not hold."""
        return any(x.verified is False for x in (self, *self.parts))

    @property
    def folder_uri(self) -> str:
        return self.src_uri[: -len(".md")] + "/"


def _read(q: Question, src_uri: str, sig: tuple, docs_dir: Path, part: int = 1) -> Entry:
    entry = Entry(q, src_uri, signature=sig, part=part)
    try:
        entry.discussion = store.load(q.folder)
    except InputError as exc:
        # Said on a published page: paths relative to the docs folder, never this machine's.
        entry.error = str(exc).replace(f"{docs_dir.resolve()}{os.sep}", "").replace(f"{docs_dir}{os.sep}", "")
    return entry


def verified(entry: Entry) -> Entry:
    """The entry with whether its record holds under the checks `discuss verify` runs without a base, and
    their findings in words: the page, the index, the home page and the navigation mark one that does not."""
    if entry.discussion is not None:
        try:
            found, notes = checked(entry.discussion, entry.question.folder, entry.question)
        except (InputError, ValueError, OSError):
            found, notes = [{"message": "its index cannot be read again to be checked"}], []
        entry.verified, entry.findings = held(found, notes), [str(f["message"]) for f in found]
    return entry


_READ: dict[Path, Entry] = {}  # what this process has read, by question file: rebuilds reuse it


def forget() -> None:
    """Drop what this process has read: the next `collect` reads every file, as a new process does."""
    _READ.clear()


def signature(path: Path) -> tuple:
    """The question file and every file of its discussion, as (path, size, modification time)."""
    found = [path]
    for folder, _, files in os.walk(path.with_suffix("")):
        found += [Path(folder, f) for f in files]
    return _stats(sorted(found))


def _stats(paths: list[Path]) -> tuple:
    stats = []
    for f in paths:
        try:
            s = f.stat()
        except OSError:
            continue
        stats.append((str(f), s.st_size, s.st_mtime_ns))
    return tuple(stats)


def steady(signature: tuple) -> bool:
    """Whether the files of a signature are as they were when it was taken, none written so lately that a
    write in the same tick of the file system's clock could hide behind its time (a second where times
    are whole seconds, else 50 ms: Linux stamps files at its timer's tick, a few milliseconds)."""
    import time

    now = time.time_ns()
    return _stats([Path(p) for p, _, _ in signature]) == signature and all(
        now - mtime > (2_000_000_000 if mtime % 1_000_000_000 == 0 else 50_000_000) for _, _, mtime in signature)


def sources_of(entry: Entry) -> list[Path]:
    """The files outside its folder that a page shows: the sources its discussions record (the page checks
    their quotes against them), as the rule for sources lets them be read."""
    return sorted({p for x in (entry, *entry.parts, *entry.trials) if x.discussion and x.discussion.sources
                   for p in recorded_paths(x.question.path, x.discussion.sources).values()})


def collect(docs_dir: Path, questions_dir: str = "") -> tuple[list[Entry], list[str]]:
    """Entries sorted by page path, and warnings about files that are not questions."""
    root = docs_dir / questions_dir if questions_dir else docs_dir
    entries, warnings = [], []
    for path in question_files(root) if root.is_dir() else []:
        sig = signature(path)
        if (known := _READ.get(path)) is not None and known.signature == sig + _stats(sources_of(known)) \
                and known.src_uri == path.relative_to(docs_dir).as_posix():
            entries.append(known)
            continue
        if why := boundary.refused_file(path, docs_dir):
            warnings.append(f"{path.relative_to(docs_dir).as_posix()} {why}: not published")
            continue
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
        entry = verified(_read(q, path.relative_to(docs_dir).as_posix(), sig, docs_dir))
        for n, part in enumerate(part_files(q), 2):
            try:
                entry.parts.append(verified(_read(read_question(part), entry.src_uri, sig, docs_dir, n)))
            except InputError as exc:
                warnings.append(str(exc))
        entry.trials = _trials(q, entry.src_uri, sig, docs_dir)
        entry.signature = sig + _stats(sources_of(entry))
        entries.append(entry)
        _READ[path] = entry
    return entries, warnings


def _trials(q: Question, src_uri: str, sig: tuple, docs_dir: Path) -> list[Entry]:
    """The question's repeated trials (`discuss trials`), in the order of their numbers."""
    from dataclasses import replace

    found = []
    for folder in (q.folder / "trials").glob("trial-*"):
        number = folder.name.removeprefix("trial-")
        if number.isdigit() and (folder / "discussion.yaml").is_file():
            found.append(_read(replace(q, path=folder.with_suffix(".md")), src_uri, sig, docs_dir))
            found[-1].trial = int(number)
    return sorted(found, key=lambda e: e.trial or 0)
