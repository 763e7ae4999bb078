"""What `discuss status` read of each discussion, kept between runs, so a large archive is stat'ed, not read.

A row is reused only while every file it came from is the same file: the question file and every file and
folder under its discussion's folder (rounds, conclusion, audits, follow-up parts), each compared by inode,
size and modification and change times, as git compares its index. Every write of ours replaces a file (a
new inode), an edit by hand changes its times, and a file added to a folder, removed or renamed changes the
folder's, so a kept row is checked by looking at the paths it was read from, without listing a folder. A
row keeps whether the record holds under `discuss verify`'s checks, so a discussion is verified again only
when one of its files changed. The cache lives with this user's lock files, outside the project: it is never
committed, and losing it costs one slower status.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..domain import Usage
from .files import kept_beside_locks, write_kept
from .summary import Summary

FIELDS = tuple(f.name for f in fields(Summary))
# Kept rows are positional: a field added, removed or moved in either record makes every kept row stale.
VERSION = ",".join(FIELDS) + ";" + ",".join(f.name for f in fields(Usage))
USAGE, WAITING, AUDITS = (FIELDS.index(name) for name in ("usage", "waiting_for", "audits"))


def identity(s: os.stat_result | None) -> list[int] | None:
    return None if s is None else [s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns]


def identity_of(path: str) -> list[int] | None:
    try:
        return identity(os.stat(path))
    except OSError:
        return None


Seen = dict[str, os.stat_result | None]  # what a status looked at, by path: a file's as it was opened


def look(path: str, seen: Seen, link: bool = False) -> os.stat_result | None:
    """The file or folder at `path` now (None where there is none), kept in `seen`; `link`: the link itself
    where it is one (a folder of ours never is)."""
    try:
        found: os.stat_result | None = os.lstat(path) if link else os.stat(path)
    except OSError:
        found = None
    seen[path] = found
    return found


def walked(folder: str) -> tuple[str | None, list[str]]:
    """What a first reading keeps of a discussion's folder: a digest of the identity of the folder and of
    every file and folder under it (`looked`), and their paths under it in the order looked at. The digest
    is None where there is no folder, and "" where a link is met: a row read through a link is read again each
    time, since what the link points at can change while the link stays the same."""
    try:
        top = os.lstat(folder)
    except OSError:
        return None, []
    if not stat.S_ISDIR(top.st_mode):
        return "", []
    lines, names = [_line("", top)], list[str]()
    if not _walk(folder, "", lines, names):
        return "", []
    return _digest(lines), names


def _walk(folder: str, under: str, lines: list[str], names: list[str]) -> bool:
    """Each entry under `folder` (`under` its path below the discussion's folder) as a line of `lines` and a
    name of `names`, folders entered; False where a link (or an entry that vanished as it was looked at) is
    met. A folder is looked at before what is in it: a file added later changes its times."""
    try:
        with os.scandir(folder) as found:
            entries = sorted(found, key=lambda e: e.name)
    except OSError:
        return False
    for e in entries:
        try:
            s = e.stat(follow_symlinks=False)
        except OSError:
            return False
        if stat.S_ISLNK(s.st_mode):
            return False
        name = under + e.name
        lines.append(_line(name, s))
        names.append(name)
        if stat.S_ISDIR(s.st_mode) and not _walk(e.path, name + "/", lines, names):
            return False
    return True


def looked(folder: str, names: list[str]) -> str | None:
    """`walked`'s digest again, from the paths it listed, without listing a folder: each folder's times change
    when an entry is added to it, removed or renamed, and each file's when it is written in place, so the
    same digest means the same files (listing folders was most of the time of a status that read nothing)."""
    lines = []
    for name in ("", *names):
        try:
            s = os.lstat(f"{folder}/{name}" if name else folder)
        except OSError:
            return None if not name else ""
        if stat.S_ISLNK(s.st_mode):
            return ""
        lines.append(_line(name, s))
    return _digest(lines)


def _line(name: str, s: os.stat_result) -> str:
    return f"{name} {s.st_ino} {s.st_size} {s.st_mtime_ns} {s.st_ctime_ns}"


def _digest(lines: list[str]) -> str:
    import hashlib

    return hashlib.blake2b("\n".join(lines).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def fresh(entry: Any, question: str) -> bool:
    """Whether a kept entry `[[question file, digest, paths], rows]` still holds: the question file and every
    file and folder of its discussion are as they were, none of them a link."""
    if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], list) and len(entry[0]) == 3):
        return False
    first, digest, names = entry[0]
    return (digest != "" and isinstance(names, list) and all(isinstance(n, str) for n in names)
            and first == identity_of(question) and looked(question[:-3], names) == digest)


def _file(content: Path) -> Path:
    return kept_beside_locks(content, "status-{}.json")


def load(content: Path) -> dict[str, Any]:
    try:
        data = json.loads(_file(content).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data.get("rows", {}) if isinstance(data, dict) and data.get("version") == VERSION else {}


def save(content: Path, rows: dict[str, Any]) -> None:
    try:
        write_kept(_file(content), json.dumps({"version": VERSION, "rows": rows}))
    except OSError:
        pass  # a cache that cannot be written is only a slower next status


def encode(rows: list[tuple[str, Summary | None]]) -> list[Any]:
    """Rows as kept: each summary's fields in order, a usage as its fields in order (a third of the size of
    named fields, and of the time to write and read them back over ten thousand discussions)."""
    return [[slug, None if s is None else [list(vars(v).values()) if isinstance(v, Usage) else v
                                           for v in vars(s).values()]] for slug, s in rows]


def decode(rows: list[Any]) -> list[tuple[str, Summary | None]]:
    """`encode`'s rows read back; a TypeError, KeyError or ValueError where they are not its."""
    out: list[tuple[str, Summary | None]] = []
    for slug, raw in rows:
        if raw is None:
            out.append((slug, None))
            continue
        if len(raw) != len(FIELDS):
            raise ValueError(raw)
        values = list(raw)
        values[USAGE] = Usage(*values[USAGE])
        values[WAITING] = tuple(values[WAITING])
        if values[AUDITS] is not None:
            values[AUDITS] = Usage(*values[AUDITS])
        out.append((str(slug), Summary(*values)))
    return out
