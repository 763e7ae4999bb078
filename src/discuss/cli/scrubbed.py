"""The terminal a command prints to, behind the one scrubber (`text.clean.clean`).

Text from outside reaches a command's output by many roads: a model's
reply, a search result's title, a server's error, a file name or a ballot
in a pull request. Each is cleaned where it enters, and, so that no road
is missed, everything a command writes to stdout and stderr passes the
same scrubber on its way out: no terminal control sequence (a window
title, a clipboard write, an erased line, a moved cursor) and no other
control character but tab and line breaks reaches the terminal or a log
that captures it. The live progress board, which moves the cursor on
purpose over lines it cleaned itself, writes to the stream beneath
(`unguarded`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from ..text.clean import clean


class Scrubbed:
    """A text stream that writes what it is given through `clean`; everything else is the stream's own."""

    def __init__(self, stream: TextIO):
        self.unguarded = stream

    def write(self, text: str) -> int:
        self.unguarded.write(clean(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unguarded, name)


def unguarded(stream: Any) -> Any:
    """The stream beneath the scrubber, for a writer that makes its own escapes of cleaned text."""
    return getattr(stream, "unguarded", stream)


@contextlib.contextmanager
def scrubbed_output() -> Iterator[None]:
    """stdout and stderr behind the scrubber while a command runs."""
    if isinstance(sys.stdout, Scrubbed):  # a command that runs another inside it
        yield
        return
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Scrubbed(out), Scrubbed(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
