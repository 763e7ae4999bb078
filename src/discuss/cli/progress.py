"""Live progress on stderr while a command calls the models: a line per event, or a board on a terminal.

Only the CLI draws it: the MCP server reports progress through the protocol,
and nothing printed here changes what is saved.
"""

from __future__ import annotations

import sys
from typing import TextIO

from ..text.clean import clean
from ..text.tables import money


class Progress:
    """Live progress on stderr: one line per event, or on a terminal a board updated in place.

    On a terminal (or `live=True`) each call of the phase in progress has one
    line, rewritten as it goes (thinking, retrying, done, failed), under it
    the running totals of calls, tokens and cost; plain lines otherwise, for
    CI logs. What is printed never changes what is saved.
    """

    def __init__(self, stream: TextIO | None = None, live: bool | None = None):
        # The board moves the cursor over lines it cleaned itself: beneath the CLI's scrubber (cli/scrubbed.py).
        self.stream = stream or sys.stderr
        if stream is None:
            self.stream = getattr(self.stream, "unguarded", self.stream)
        self.live = self.stream.isatty() if live is None else live
        self.board: dict[str, str] = {}  # the phase in progress: a line per call
        self.shown = 0  # lines of the board now on screen
        self.calls, self.tokens, self.cost = 0, 0, 0.0
        self.unpriced = 0  # calls whose cost nobody knows: the total is then a floor, or unknown

    def note(self, text: str) -> None:
        """Something the user should know about the run (a server held to one request at a time)."""
        print(clean(f"note: {text}"), file=self.stream, flush=True)
        self.shown = 0  # a board drawn before stays above the note, and the next is drawn below it

    def line(self, text: str) -> None:
        self.board, self.shown = {}, 0  # a new phase: the last board stays on screen as it was
        print(clean(text), file=self.stream, flush=True)

    def event(self, kind: str, spec, result) -> None:
        who = f"{spec.panelist.id} [{spec.task}]"
        if kind in ("done", "failed", "invalid") and result is not None:
            self.calls += result.attempts if kind != "invalid" else 0
            self.tokens += result.usage.total_tokens if kind != "invalid" else 0
            self.cost += (result.usage.cost or 0.0) if kind != "invalid" else 0.0
            self.unpriced += kind != "invalid" and result.usage.total_tokens > 0 and result.usage.cost is None
        text = self._describe(kind, who, result)
        if text is None:
            return
        if not self.live:
            print(clean(text), file=self.stream, flush=True)
            return
        self.board[f"{spec.key}:{spec.task}"] = text
        self._draw()

    def streamed(self, spec, pieces: int) -> None:
        """A streamed reply's progress: on the board only, and redrawn every few pieces."""
        if self.live and (pieces == 1 or pieces % 8 == 0):
            self.board[f"{spec.key}:{spec.task}"] = f"  .. {spec.panelist.id} [{spec.task}] writing, {pieces} tokens"
            self._draw()

    @staticmethod
    def _describe(kind: str, who: str, result) -> str | None:
        if kind == "start":
            return f"  .. {who} thinking"
        if kind == "retry":
            return f"  .. {who} retrying after a transient error (attempt {result.attempts})"
        if kind == "invalid":
            return f"  !  {who} gave an unusable reply ({result.error}); asking again"
        if kind == "done":
            u = result.usage
            cut = f" (cut: finish_reason {result.finish_reason})" if result.finish_reason else ""
            return f"  ok {who} {u.total_tokens} tokens, {money(u.cost)}, {result.elapsed_ms / 1000:.1f}s{cut}"
        if kind == "failed":
            return f"  !! {who} failed: {result.error}"
        if kind == "waiting":
            return f"  .. {who} waits for a person: {result.waiting}"
        return None

    def spent(self) -> str:
        """The cost so far in words that do not claim more than is known."""
        if self.unpriced and not self.cost:
            return "cost unknown"
        return money(self.cost) + (f" and {self.unpriced} call(s) of unknown cost" if self.unpriced else "")

    def _draw(self) -> None:
        up = f"\x1b[{self.shown}F" if self.shown else ""  # back to the board's first line
        lines = [*self.board.values(), f"  -- {self.calls} calls, {self.tokens} tokens, {self.spent()} so far"]
        self.stream.write(up + "".join(f"\x1b[2K{clean(x)}\n" for x in lines))
        self.stream.flush()
        self.shown = len(lines)
