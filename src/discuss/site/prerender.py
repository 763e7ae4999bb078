"""Question pages rendered ahead by a worker process while MkDocs reads the pages of a first build.

MkDocs reads and converts pages one after another, on one core; what the
plugin adds to a question page is most of a first build. The helper, a
pool of one worker process (the standard library's, see `discuss.pools`),
is handed the pages that must be rendered from the last backwards and
puts each in the render cache under the key the build asks for; the build
takes a page from the cache where the helper was first and renders it
itself where not, so the two meet in the middle and neither waits for the
other.

It changes no page: a kept page's key holds everything it is made of, the
helper renders with the same code and keeps a page only where its files
did not change since they were read, as the build does. A helper that
cannot start, or fails, only leaves the build to render those pages itself.
"""

from __future__ import annotations

from concurrent.futures import Future
from functools import cache
from pathlib import Path
from typing import Any

from ..pools import pool
from .cache import RenderCache
from .collect import steady
from .sections import rendered

MIN_PAGES = 24  # fewer: starting a process costs more than it saves


class Helper:
    """The worker process, and the pages handed to it."""

    def __init__(self, jobs: list[tuple[str, Any]], folder: Path) -> None:
        self.pool = pool(1)
        self.pages: list[Future[bool]] = [self.pool.submit(ahead, str(folder), key, entry) for key, entry in jobs]

    def wait(self) -> list[bool]:
        """Once every page it was given is done: whether it rendered each (not where the build was first)."""
        return [page.result() for page in self.pages]

    def stop(self) -> None:
        """End the helper: the build has rendered or found every page it needs. A page it is rendering is
        finished; the rest are never begun."""
        self.pool.shutdown(wait=True, cancel_futures=True)


def start(jobs: list[tuple[str, Any]], folder: Path) -> Helper | None:
    """A helper putting `jobs` (the key of a page in the cache `folder`, and its entry, in the order the build
    reads them) in the cache; None where too few."""
    if len(jobs) < MIN_PAGES:
        return None
    try:
        return Helper(jobs[::-1], folder)
    except OSError:
        return None


@cache
def _kept(folder: str) -> RenderCache:
    return RenderCache(Path(folder), "")  # the keys come made


def ahead(folder: str, key: str, entry: Any) -> bool:
    """In the worker: render a page into the cache unless the build did first; whether it did."""
    kept = _kept(folder)
    if kept.has(key):
        return False  # the build rendered it first
    shown = rendered(entry)
    if steady(entry.signature):
        kept.put(key, [list(x) for x in shown])
    return True
