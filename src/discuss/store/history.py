"""A discussion's history checked against its index before anything builds on it.

A run that trusted a truncated discussion.yaml would ask round 1 again and
overwrite what was paid for; one that trusted a folder with a reply or
votes.yaml deleted would show other prompts and other winners. Every
recorded round must have its files, and no round may exist on disk that
the index does not record. What is wrong is named, with the way out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..domain import Discussion, Round
from ..errors import InputError

REQUIRED = ("questionSlug", "status", "currentRound", "panel", "config", "rounds")
ROUND_DIR = re.compile(r"^round-(\d+)$")
RESTORE = "restore it from git (git checkout -- <file>), or move the discussion folder away to start over"


def check_unindexed(folder: Path, index: Path) -> None:
    """A folder without its index must hold nothing a run would otherwise redo and overwrite.

    With discussion.yaml gone and round folders left, a run would start at
    round 1, pay every call again and overwrite what is there.
    """
    if index.exists() or index.is_symlink():
        raise InputError(f"{index}: is not a regular file; {RESTORE}")
    if not folder.is_dir():
        if folder.exists():
            raise InputError(f"{folder}: is not a folder, but the discussion's folder has this name; move it away")
        return
    left = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir()
                  if ROUND_DIR.match(p.name) or p.name == "conclusion.md")
    if left:
        raise InputError(f"{folder}: holds {', '.join(left)} but no discussion.yaml, so nothing says what was "
                         f"asked and paid for; {RESTORE}")


def check_index(data: dict[str, Any], index: Path) -> None:
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise InputError(f"{index}: damaged or cut short, no {', '.join(missing)}; {RESTORE}")
    rounds = data["rounds"]
    if not isinstance(rounds, list) or data["currentRound"] != len(rounds):
        raise InputError(f"{index}: currentRound is {data['currentRound']!r} but {len(rounds or [])} round(s) "
                         f"are recorded; {RESTORE}")


def check_files(d: Discussion, folder: Path, missing: Callable[[Round, Path], str | None]) -> None:
    """Round folders match the index; `missing` is the protocol's check of its own files in one."""
    on_disk = sorted(int(m.group(1)) for p in folder.iterdir() if p.is_dir() and (m := ROUND_DIR.match(p.name)))
    extra = [n for n in on_disk if n > len(d.rounds)]
    if extra:
        raise InputError(f"{folder}: round-{extra[0]}/ is on disk but discussion.yaml records "
                         f"{len(d.rounds)} round(s); {RESTORE}")
    for r in d.rounds:
        where = folder / f"round-{r.number}"
        if r.complete and not r.replies:
            raise InputError(f"{where}: round {r.number} is recorded as complete but its replies are missing; "
                             f"{RESTORE}")
        if (problem := missing(r, where)) is not None:
            raise InputError(f"{problem}; {RESTORE}")
