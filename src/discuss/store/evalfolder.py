"""An eval's folder (`evals/NAME/`): what its answers are bound to, its lock, and its progress.

`eval.yaml` records what every answer in the folder depends on: the set and
its digest, the seed, the extraction rule, the panel (its members' ids,
models and options, and a digest of its settings), and the arms and items
answered so far, with the discuss version that last answered. A run under
other settings is refused, naming each difference, so that nothing
answered under one setting is ever graded or counted under another; arms
and items are added to the record, never replaced. One eval of a name runs
at a time (the lock a run of a discussion takes, outside the project).
`progress.yaml` says how far the run under way has got, for whoever polls.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from ..errors import Busy, InputError
from . import yamlio, yamlwrite
from .documents import read_text
from .files import DiscussionLock, write_atomic
from .layout import confined

BOUND = "eval.yaml"
REPORT = "report.yaml"  # the eval's figures, written from its items' files (and recomputed from them by verify)
PROGRESS = "progress.yaml"
# What a run must share with the folder's answers; arms, items and the version are added to, not compared.
COMPARED = ("set", "setDigest", "seed", "rule", "panel")


def digest(value: Any) -> str:
    """A stable digest of plain data (keys sorted)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def bound(folder: Path) -> dict[str, Any] | None:
    """What the folder's answers were given under; None for a folder that records nothing yet."""
    path = folder / BOUND
    if not path.is_file():
        return None
    data = yamlio.load(read_text(path), written=True)
    if not isinstance(data, dict):
        raise InputError(f"{path}: not an eval's record (a mapping of its settings)")
    return data


def differences(recorded: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    """Each setting this run differs in from the folder's, in words."""
    out = []
    for key in COMPARED:
        was, now = recorded.get(key), wanted.get(key)
        if was == now:
            continue
        if key == "panel" and isinstance(was, dict) and isinstance(now, dict):
            out += [f"panel {part}: {was.get(part)!r} then, {now.get(part)!r} now"
                    for part in sorted(set(was) | set(now)) if was.get(part) != now.get(part)]
        else:
            out.append(f"{key}: {was!r} then, {now!r} now")
    return out


def check(folder: Path, name: str, wanted: dict[str, Any]) -> None:
    """Refuse a run whose settings differ from those the folder's answers were given under."""
    recorded = bound(folder)
    if recorded is None:
        return
    if found := differences(recorded, wanted):
        raise InputError(f"evals/{name}/ holds answers given under other settings ({'; '.join(found)}): they are "
                         f"never graded under these. Give this eval another --name, or --fresh to remove "
                         f"evals/{name}/ and start it again")


def bind(folder: Path, wanted: dict[str, Any]) -> dict[str, Any]:
    """Record `wanted` as the folder's settings, its arms and items added to those recorded; the record."""
    recorded = bound(folder) or {}
    arms = list(dict.fromkeys([*(recorded.get("arms") or []), *wanted["arms"]]))
    items = [recorded["items"], wanted.get("items")] if "items" in recorded else [wanted.get("items")]
    whole = None if None in items else max(int(n) for n in items if n is not None)  # None: all of the set
    record = {**wanted, "arms": arms, "items": whole}
    write_atomic(folder / BOUND, yamlwrite.dump(record))
    return record


def fresh(folder: Path, root: Path) -> None:
    """Remove an eval's folder to start it again: only a folder of the project's evals, never through a link."""
    import shutil


    if not folder.exists():
        return
    if folder.is_symlink() or not folder.is_dir():
        raise InputError(f"{folder}: not a folder of answers; --fresh removes only an eval's own folder")
    confined(folder, root, what=str(folder))
    shutil.rmtree(folder)


class Locked:
    """One eval of a name at a time: a second refuses, as a second run of a discussion does."""

    def __init__(self, folder: Path, name: str):
        self.lock = DiscussionLock(folder)
        self.name = name

    def __enter__(self) -> Locked:
        try:
            self.lock.__enter__()
        except Busy:
            raise Busy(f"evals/{self.name}/: another `discuss eval` of this name is running; wait for it to "
                       "finish, or give this one another --name") from None
        return self

    def __exit__(self, *exc: Any) -> None:
        self.lock.__exit__(*exc)


class Progress:
    """How far the run under way has got, in `progress.yaml` beside its answers: items done of those to do,
    calls and tokens spent, the calls the estimate allowed where one was made before it started, and whether it
    is running. Written at most every `EVERY` seconds, and at the end."""

    EVERY = 0.5

    def __init__(self, folder: Path):
        self.path = folder / PROGRESS
        self.total = self.done = self.held = 0
        self.calls = self.tokens = 0
        self.written = 0.0
        was = reading(folder) or {}
        planned = was.get("callsPlanned") if was.get("state") == "starting" else None
        self.planned_calls = planned if isinstance(planned, int) and not isinstance(planned, bool) else None

    @staticmethod
    def announce(folder: Path, calls: int) -> None:
        """Before a run is started elsewhere (an agent's eval): `starting`, with the calls its estimate allows,
        which that run then keeps in its progress."""
        write_atomic(folder / PROGRESS, yamlwrite.dump({"state": "starting", "items": {"done": 0, "total": None},
                                                     "notStarted": 0, "calls": 0, "callsPlanned": calls,
                                                     "tokens": 0}))

    def planned(self, count: int) -> None:
        if count:  # a run with nothing to do leaves the last run's account as it was
            self.total += count
            self.write()

    def finished(self, calls: int, tokens: int) -> None:
        self.done += 1
        self.calls, self.tokens = calls, tokens
        if time.monotonic() - self.written >= self.EVERY:
            self.write()

    def write(self, state: str = "running") -> None:
        self.written = time.monotonic()
        write_atomic(self.path, yamlwrite.dump({"state": state, "items": {"done": self.done, "total": self.total},
                                             "notStarted": self.held, "calls": self.calls,
                                             "callsPlanned": self.planned_calls, "tokens": self.tokens}))


def reading(folder: Path) -> dict[str, Any] | None:
    """What `progress.yaml` says now; None where there is none or it cannot be read (a run writes it whole, so
    this is a moment before it first writes)."""
    try:
        data = yamlio.load(read_text(folder / PROGRESS), written=True)
    except (OSError, ValueError, InputError):
        return None
    return data if isinstance(data, dict) else None
