"""Many discussions at once: which are open, this machine's shard of them, and running
them within each provider's concurrency limit.
"""

from __future__ import annotations

import asyncio
import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import providers
from ..domain import Discussion, Question, Usage
from ..engine.client import PanelClient
from ..engine.prepare import Options, check_ready, ground, prepare
from ..engine.runner import Plan, Runner
from ..errors import Busy, DiscussError, InputError, WaitingForPeople
from ..store import discussions as store
from ..store.followups import part_files
from ..store.layout import Layout
from ..store.questions import question_files, read_question
from .precedents import with_precedent


@dataclass
class Allowance:
    """What one run of many pieces of work may spend in all (an eval's --max-cost and --max-tokens). A piece
    starts only when what it may spend at most (its bound, an estimate's upper bound) fits in what is left once
    the bounds of the pieces under way are set aside; one that must wait for those waits, and one that could
    not fit even then is not started and is counted (`held_back`), left for the next run. So the allowance is
    never exceeded but by what a piece spends beyond its bound."""

    max_cost: float | None = None
    max_tokens: int | None = None
    used: Usage = field(default_factory=Usage)
    held_back: int = 0
    on_add: Callable[[Usage], None] | None = None  # told what has been spent in all, as each piece of work ends
    reserved_tokens: int = 0  # the bounds of the pieces under way
    reserved_cost: float = 0.0
    largest_held: Usage | None = None  # the bound of the largest piece that could not start: what was lacking
    _settled: asyncio.Condition | None = None

    @property
    def limited(self) -> bool:
        return self.max_cost is not None or self.max_tokens is not None

    def add(self, usage: Usage) -> None:
        self.used.add(usage)
        if self.on_add is not None:
            self.on_add(self.used)

    def spent(self) -> str | None:
        """Why no more work may start, or None while some of the allowance is left."""
        cost = self.used.cost or 0.0
        if self.max_cost is not None and cost >= self.max_cost:
            return f"${cost:.4f} of --max-cost ${self.max_cost:.4f} spent"
        if self.max_tokens is not None and self.used.total_tokens >= self.max_tokens:
            return f"{self.used.total_tokens} of --max-tokens {self.max_tokens} tokens spent"
        return None

    def fits(self, bound: Usage | None, under_way: bool = True) -> bool:
        """Whether a piece that may spend `bound` fits in what is left (with the pieces under way set aside)."""
        if self.spent() is not None:
            return False
        if bound is None:
            return True
        tokens = self.used.total_tokens + bound.total_tokens + (self.reserved_tokens if under_way else 0)
        if self.max_tokens is not None and tokens > self.max_tokens:
            return False
        if self.max_cost is None:
            return True
        if bound.cost is None:  # a piece whose cost is unknown cannot be said to fit a dollar budget
            return False
        cost = (self.used.cost or 0.0) + bound.cost + (self.reserved_cost if under_way else 0.0)
        return cost <= self.max_cost

    async def admit(self, bound: Usage | None) -> bool:
        """Wait until the piece fits and set its bound aside (True), or count it not started (False) where it
        could not fit even with nothing under way."""
        if not self.limited:
            return True
        self._settled = self._settled or asyncio.Condition()
        async with self._settled:
            while not self.fits(bound):
                if not self.fits(bound, under_way=False):
                    self.held_back += 1
                    if bound is not None and (self.largest_held is None
                                              or bound.total_tokens > self.largest_held.total_tokens):
                        self.largest_held = bound
                    return False
                await self._settled.wait()
            if bound is not None:
                self.reserved_tokens += bound.total_tokens
                self.reserved_cost += bound.cost or 0.0
            return True

    async def settle(self, bound: Usage | None, usage: Usage) -> None:
        """A piece ended: its bound given back, what it spent counted, and the pieces waiting told."""
        if bound is not None and self.limited:
            self.reserved_tokens -= bound.total_tokens
            self.reserved_cost -= bound.cost or 0.0
        self.add(usage)
        if self._settled is not None:
            async with self._settled:
                self._settled.notify_all()

    def why(self) -> str:
        """Why pieces were not started, in words."""
        if (said := self.spent()) is not None:
            return said
        most = self.largest_held or Usage()
        if self.max_tokens is not None and self.used.total_tokens + most.total_tokens > self.max_tokens:
            return (f"{self.max_tokens - self.used.total_tokens} of --max-tokens {self.max_tokens} tokens left, and "
                    f"an item not started may take up to {most.total_tokens}")
        left = (self.max_cost or 0.0) - (self.used.cost or 0.0)
        return (f"${left:.4f} of --max-cost ${self.max_cost or 0.0:.4f} left, and an item not started may cost up to "
                + ("an unknown amount" if most.cost is None else f"${most.cost:.4f}"))


def select(content: Path, tags: list[str], pattern: str | None, shard: tuple[int, int] | None,
           any_type: bool = False) -> list[Question]:
    """Open questions (not concluded, or with a follow-up under way), by tag and glob, this shard's share.

    A question whose `questionType` is set to anything but `discussion`
    (Project Dyson's engineering decisions, simulations...) is not for a
    panel, and is left out unless `any_type`.
    """
    matching = []
    for path in question_files(content) if content.is_dir() else []:
        rel = path.relative_to(content).as_posix()
        if pattern and not (fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(path.stem, pattern)):
            continue
        q = read_question(path)
        if q.question_type not in ("", "discussion") and not any_type:
            continue
        if not tags or set(tags) & set(q.tags):
            matching.append(q)
    if shard:
        index, count = shard
        # A stride over all matching questions in slug order, open or not: every machine
        # computes the same split however far the others have got, and none runs a question twice.
        matching = [q for n, q in enumerate(sorted(matching, key=lambda q: q.slug)) if n % count == index - 1]
    return [open_part for q in matching if (open_part := unfinished(q)) is not None]


def prepare_all(root: Path, questions: list[Question], options: Options, ready: bool,
                report: Callable[[str], None]) -> tuple[list[tuple[Question, Discussion]], list[str]]:
    """Each question prepared to run (as its panel reads it, with sources) and, if `ready`, checked for keys and
    scripts; those that cannot start are reported and named apart, so one broken discussion stops no other.
    Every source is read and every key checked before the first call."""
    prepared, unusable = [], []
    for q in questions:
        try:
            d = prepare(root, q, options)
            asked, changes = ground(root, q, d)
            asked, left_out = with_precedent(Layout(root), q, d, asked)
            for line in [*changes, *left_out]:
                report(f"warning: {q.slug}: {line}")
            if ready:
                check_ready(d, root)
        except InputError as exc:
            unusable.append(q.slug)
            report(f"cannot start {q.slug}: {exc}")
            continue
        prepared.append((asked, d))
    return prepared, unusable


def unfinished(q: Question) -> Question | None:
    """The part of `q` still to run: the discussion itself, else a follow-up part not yet finished."""
    d = store.load(q.folder)
    if d is None or not d.concluded:
        return q
    for path in reversed(part_files(q)):
        part = read_question(path)
        return part if (p := store.load(part.folder)) is None or not p.concluded else None
    return None


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        index, count = (int(x) for x in text.split("/"))
    except ValueError:
        raise InputError(f"--shard {text!r}: write it as i/n, e.g. 2/4") from None
    if not 1 <= index <= count:
        raise InputError(f"--shard {text!r}: i must be from 1 to n")
    return index, count


@dataclass(frozen=True)
class Outcome:
    """How one discussion of a batch ended: `kind` for the exit code, `text` for people."""

    kind: str  # "finished" (concluded or closed), "waiting" (for a person), "elsewhere" (another run holds it), "failed"
    text: str


def run_all(root: Path, prepared: list[tuple[Question, Discussion]], concurrency: int,
            report: Callable[[str], None]) -> dict[str, Outcome]:
    """`run_many` to its end, the connections it kept open closed."""
    return providers.run(run_many(root, prepared, concurrency, report))


async def run_many(root: Path, prepared: list[tuple[Question, Discussion]], concurrency: int,
                   report: Callable[[str], None], allowance: Allowance | None = None,
                   client: PanelClient | None = None,
                   bound: Callable[[Question, Discussion], Usage | None] | None = None) -> dict[str, Outcome]:
    """Run every prepared discussion to its end, `concurrency` at a time; its name -> how it ended. `client`:
    the command's model client, shared with other work of the same event loop (default: one of its own); each
    discussion calls through it under its own settings. With an `allowance`, a discussion starts only when its
    `bound` (what it may spend at most) fits in it."""
    client = client or PanelClient(root, on_note=lambda note: report(f"note: {note}"))
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(q: Question, d: Discussion) -> tuple[str, Outcome]:
        async with gate:
            name = q.slug if d.trial is None else f"{q.slug} trial {d.trial}"  # trials share their question's slug
            most = bound(q, d) if bound is not None and allowance is not None and allowance.limited else None
            if allowance is not None and not await allowance.admit(most):
                return name, Outcome("held", f"not started: {allowance.why()}")
            before = d.spent
            try:
                done = await Runner(client.gateway(d.settings, folder=q.folder), client.prompts).run(
                    q, d, Plan(auto=True))
            except WaitingForPeople as exc:
                outcome = Outcome("waiting", f"waiting: {exc}")
            except Busy:
                outcome = Outcome("elsewhere", "running elsewhere: another run holds it; it is not run here")
            except DiscussError as exc:
                outcome = Outcome("failed", f"failed: {exc}")
            else:
                outcome = Outcome("finished", f"{done.status} ({done.termination_reason or 'open'})")
            if allowance is not None:
                await allowance.settle(most, _since(before, d.spent))
            report(f"{name}: {outcome.text}")
            return name, outcome

    return dict(await asyncio.gather(*(one(q, d) for q, d in prepared)))


def _since(before: Usage, after: Usage) -> Usage:
    """What was spent between two readings of a discussion's usage."""
    cost = None if after.cost is None else after.cost - (before.cost or 0.0)
    return Usage(prompt_tokens=after.prompt_tokens - before.prompt_tokens,
                 completion_tokens=after.completion_tokens - before.completion_tokens,
                 cost=cost, calls=after.calls - before.calls)
