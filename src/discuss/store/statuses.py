"""Reading every discussion's status fast: front matter line by line, a discussion's summary head.

`discuss status` over a large archive must answer before anything heavy
loads (typer, pydantic, ruamel). Each question file is read here where it
is plain and by the full reader (`store.questions`, `store.discussions`)
where it is not, one file at a time; a file neither can read is a warning,
as one broken discussion hides no other. Whether each record holds is asked
of the caller's check (`verify`'s, which loads everything), and only for a
discussion one of whose files changed since the status cache kept its row.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..domain import FINISHED
from ..errors import InputError
from ..pools import share
from ..text.naming import is_safe_id
from . import statuscache, yamlio
from .formats import legacy
from .layout import AUDIT, DISCUSSION_FILE, part_names, question_names
from .statuscache import look
from .summary import Summary, from_data, from_head, is_legacy, with_audits
from .yamlshape import MAX_BYTES

if TYPE_CHECKING:
    from .statuscache import Seen
# The full readers (`questions`, `discussions`) are imported in the functions that fall back on them: a status
# whose files are plain loads neither, nor what they load (the writer, the schema's models, every protocol).

SCALARS = (str, int, float, type(None))
FENCE = re.compile(r"^---[ \t]*$", re.MULTILINE)  # the line that closes the front matter
NO_LINK = getattr(os, "O_NOFOLLOW", 0)


def read_text(path: Path | str, seen: Seen | None = None) -> str:
    """A file's text as `Path.read_text` gives it (UTF-8, line ends made `\n`), read in one piece; the file
    as it was opened kept in `seen`, by its path. ValueError past MAX_BYTES (the readers refuse it), which
    a file that never ends reaches too; OSError for a link, which the full reader reads by the rule."""
    # The system's calls, not open(): its buffered file object cost a first status over ten thousand
    # discussions a tenth of its time, and the open file's identity spares the cache a second look.
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | NO_LINK)
    try:
        found = os.fstat(fd)
        chunks = [os.read(fd, min(found.st_size, MAX_BYTES) + 1)]
        size = len(chunks[0])
        while chunks[-1] and size <= MAX_BYTES:
            chunks.append(os.read(fd, min(1 << 16, MAX_BYTES + 1 - size)))
            size += len(chunks[-1])
    finally:
        os.close(fd)
    if size > MAX_BYTES:
        raise ValueError(f"{path}: larger than {MAX_BYTES // (1024 * 1024)} MB")
    if seen is not None:
        seen[os.fspath(path)] = found
    text = b"".join(chunks).decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def slug_of(path: str, seen: Seen | None = None) -> str | None:
    """The slug of a question file whose front matter is plain; None where the full reader must look."""
    try:
        text = read_text(path, seen)
    except (OSError, ValueError):  # UnicodeDecodeError is one
        return None
    closing = FENCE.search(text, 4) if text.startswith("---\n") else None
    if closing is None:
        return None
    meta = yamlio.load(text[4:closing.start()], quick=True)
    if not isinstance(meta, dict) or not isinstance(meta.get("title"), str) or not meta["title"]:
        return None
    # Only plain values, so this reader and the schema's cannot disagree about the file.
    for value in meta.values():
        items = value if isinstance(value, list) else [value]
        if not all(isinstance(v, SCALARS) and not isinstance(v, bool) for v in items):
            return None
    slug = meta.get("slug") or os.path.basename(path)[:-3]  # the file's name without `.md`
    return slug if isinstance(slug, str) and is_safe_id(slug) else None


class NeedsFullReader(Exception):
    """A file this path does not read as the full reader would: the CLI answers instead."""


def summary_of(folder: str, seen: Seen | None = None) -> Summary | None:
    """The summary, None where no discussion was started."""
    if seen is not None and (s := seen.get(folder)) is not None and stat.S_ISLNK(s.st_mode):
        raise NeedsFullReader  # which reads through a link only where it stays in the project
    try:
        text = read_text(f"{folder}/{DISCUSSION_FILE}", seen)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        raise NeedsFullReader from None
    if (found := from_head(text)) is not None:
        audit = f"{folder}/{AUDIT}"
        if seen is not None and audit in seen:  # looked at already: only a folder there can hold audits
            return with_audits(found, folder) if (s := seen[audit]) and stat.S_ISDIR(s.st_mode) else found
        return with_audits(found, folder)
    # Dyson's layout has no summary head: read it all, if libyaml reads it as the full reader would.
    data = yamlio.load(text, quick=True)
    if not isinstance(data, dict) or not is_legacy(data) or not _plain_rounds(data):
        raise NeedsFullReader
    return from_data(data)


def _plain_rounds(data: dict[str, Any]) -> bool:
    words = (str, type(None))
    rounds = data.get("rounds") or []
    return (isinstance(data.get("status"), words) and isinstance(data.get("terminationReason"), words)
            and isinstance(data.get("usage"), (dict, type(None))) and isinstance(rounds, list)
            and all(isinstance(r, dict) for r in rounds) and legacy().round_winners(rounds) is not None)


Holds = Callable[[str], "bool | None"]  # a discussion folder's record: whether it holds (None: not known)


def summaries(content: Path, holds: Holds) -> tuple[list[tuple[str, Summary | None]], list[str]]:
    """Every discussion's summary by slug (None: not started), each with its follow-ups after it and whether
    its record holds (`holds`, asked only of a discussion one of whose files changed since it was kept), and
    warnings about files left out. A file is read quickly where it is plain, by the full reader where not."""
    kept, now = statuscache.load(content), {}
    keys = question_names(content) if content.is_dir() else []
    found: dict[str, tuple[list[tuple[str, Summary | None]], list[str]]] = {}
    # A large first reading checks no record: each check loads the whole discussion (a first status over ten
    # thousand took minutes). Its rows say "not checked" (verified: null) and a changed file has its row,
    # and its check, done again.
    new = sum(1 for key in keys if key not in kept)
    checking = new <= CHECK_AT_MOST
    # Whether a kept row still holds walks every file of its discussion: shared, like the reading, with other
    # processes, each handed its questions and what was kept of them (`holds` goes by name: a module's function).
    done_all = share([(key, kept.get(key), checking or key in kept) for key in keys], partial(_readings, holds=holds))
    for key, done in zip(keys, done_all, strict=True):
        if done is None:  # as kept
            try:
                found[key] = statuscache.decode(kept[key][1]), []
                now[key] = kept[key]
                continue
            except (TypeError, KeyError, ValueError):  # a damaged cache is only a slower status: read again
                done = _readings([(key, None, checking)], holds)[0]
        rows, entry, said = done
        found[key] = statuscache.decode(rows), said
        if entry is not None:  # a row that warned is read again next time, and warns again
            now[key] = entry
    if now != kept:
        statuscache.save(content, now)
    said = [w for key in keys for w in found[key][1]]
    if not checking:
        said.append(f"{new} discussion(s) read for the first time were not checked (verified: null): more than "
                    f"{CHECK_AT_MOST} at once; `discuss verify` checks every record, and a status checks a "
                    "discussion again once one of its files changes")
    return [row for key in keys for row in found[key][0]], said


CHECK_AT_MOST = 200  # discussions a status reads for the first time and checks (about 20 ms each)


def _readings(items: list[tuple[str, Any, bool]],
              holds: Holds) -> list[tuple[list[Any], list[Any] | None, list[str]] | None]:
    """For each question, what was kept of it and whether its record is checked, None where what was kept still
    holds; else its rows, read from its files and encoded as the cache keeps them, its cache entry (None where
    a file warned) and its warnings."""
    out: list[tuple[list[Any], list[Any] | None, list[str]] | None] = []
    for key, known, check in items:
        if known is not None and statuscache.fresh(known, key):
            out.append(None)
            continue
        warnings: list[str] = []
        seen: Seen = {}
        # The folder before what is in it is read: a change made meanwhile is seen by the next status.
        walked, names = statuscache.walked(key[:-3])
        encoded = statuscache.encode(_rows(key, warnings, seen, holds if check else _not_checked))
        first = statuscache.identity(seen[key]) if key in seen else statuscache.identity_of(key)
        out.append((encoded, None if warnings or walked == "" else [[first, walked, names], encoded], warnings))
    return out


def _not_checked(folder: str) -> None:
    return None


# The archive's paths stay text here: a first status over ten thousand discussions made a Path of each
# file it looked at, a sixth of its time.

def _rows(path: str, warnings: list[str], seen: Seen, holds: Holds) -> list[tuple[str, Summary | None]]:
    """A question's row and its follow-ups' after it, each with whether its record holds."""
    found = _row(path, warnings, seen, holds)
    # Only a finished discussion can have been followed up.
    parts = part_names(path[:-3]) if found and found[1] and found[1].status in FINISHED else []
    return ([found] if found else []) + [row for row in (_row(p, warnings, seen, holds) for p in parts) if row]


def _row(path: str, warnings: list[str], seen: Seen, holds: Holds) -> tuple[str, Summary | None] | None:
    """A question file's slug and its discussion's summary with whether its record holds; None where either
    cannot be read (a warning)."""
    folder = path[:-3]  # the discussion's folder: the file's path without `.md`
    # The folders before what is in them: a change made while they are read is seen by the next status.
    # The folder itself, where it is a link: its row is then read the full way, and read again each time
    # (the next status looks through the link, and what it finds is never the link's own identity).
    look(folder, seen, link=True)
    look(f"{folder}/{AUDIT}", seen)
    slug = slug_of(path, seen) or _full_slug(path, warnings)
    if slug is None:
        return None
    found = _summary(folder, warnings, seen)
    if found is False:
        return None
    return slug, None if found is None else replace(found, verified=holds(folder))


def _full_slug(path: str, warnings: list[str]) -> str | None:
    from .questions import read_question

    try:
        return read_question(Path(path)).slug
    except InputError as exc:
        warnings.append(str(exc))
        return None


def _summary(folder: str, warnings: list[str], seen: Seen) -> Summary | None | Literal[False]:
    """The discussion's summary, None where none was started, False where it cannot be read (a warning)."""
    try:
        return summary_of(folder, seen)
    except NeedsFullReader:
        pass
    from . import discussions as store

    try:
        return store.summary(Path(folder))
    except InputError as exc:
        warnings.append(f"{exc}; left out")  # one broken discussion hides no other
        return False
