"""Question pages rendered ahead by a second process while MkDocs reads the pages of a first build.

MkDocs reads and converts pages one after another, on one core; what the
plugin adds to a question page is most of a first build. The helper takes
the pages that must be rendered from the last backwards and puts each in
the render cache under the key the build asks for; the build takes a page
from the cache where the helper was first and renders it itself where not,
so the two meet in the middle and neither waits for the other.

It changes no page: a kept page's key holds everything it is made of, the
helper renders with the same code and keeps a page only where its files
did not change since they were read, as the build does. A helper that
cannot start, or fails, only leaves the build to render those pages itself.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

MIN_PAGES = 24  # fewer: starting a process costs more than it saves


class Helper:
    """The helper process, and the thread that hands it its pages."""

    def __init__(self, jobs: list[tuple[str, Any]], folder: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.feeder = threading.Thread(target=self._feed, args=(str(folder), jobs), daemon=True)
        self.feeder.start()

    def _feed(self, folder: str, jobs: list[tuple[str, Any]]) -> None:
        stream = self.process.stdin
        assert stream is not None
        try:  # one page at a time: the helper starts on the first while the rest are written
            pickle.dump(folder, stream, protocol=pickle.HIGHEST_PROTOCOL)
            for job in jobs:
                pickle.dump(job, stream, protocol=pickle.HIGHEST_PROTOCOL)
            stream.close()
        except Exception:  # noqa: BLE001 - stopped, or a page it cannot take: the build renders the rest
            return

    def wait(self) -> int:
        """The helper's exit status once it has rendered every page it was given."""
        return self.process.wait()

    def stop(self) -> None:
        """End the helper: the build has rendered or found every page it needs."""
        self.process.kill()
        self.process.wait()
        self.feeder.join()


def start(jobs: list[tuple[str, Any]], folder: Path) -> Helper | None:
    """A helper putting `jobs` (the key of a page in the cache `folder`, and its entry, in the order the build
    reads them) in the cache; None where too few."""
    if len(jobs) < MIN_PAGES:
        return None
    try:
        return Helper(jobs[::-1], folder)
    except OSError:
        return None


def main() -> None:
    from .cache import RenderCache
    from .collect import steady
    from .sections import rendered

    stream = sys.stdin.buffer
    folder = pickle.load(stream)  # from the build that started this process, through a pipe
    cache = RenderCache(Path(folder), "")  # the keys come made
    while True:
        try:
            key, entry = pickle.load(stream)
        except EOFError:
            return
        if cache.has(key):
            continue  # the build rendered it first
        shown = rendered(entry)
        if steady(entry.signature):
            cache.put(key, [list(x) for x in shown])


if __name__ == "__main__":
    main()
