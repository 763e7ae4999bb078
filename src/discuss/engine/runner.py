"""The loop of a run: load, ask the protocol what is next, call, fold in, save.

The state is saved within moments of every finished call (see `Saving`),
so a run killed at any point loses at most the calls that were still in
flight or had just finished. Resume is a plain run: the files say what is
done.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ..calls import CallResult
from ..domain import Discussion, Panel, Question, Settings
from ..errors import InputError, WaitingForPeople
from ..protocols import DEFAULT, get_protocol, own_settings
from ..protocols.base import Context, Plan, Protocol, Step, Unusable, finish, next_step, open_round
from ..store import discussions as store
from ..store.chain import new_record, question_hash
from ..store.files import DiscussionLock, check_writable
from ..store.layout import Layout
from ..text import tokens
from ..text.prompting import Prompts
from . import budget
from .gateway import SENDING, Gateway

__all__ = ["Plan", "Runner", "prompts_for", "start", "utc_now"]


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def start(q: Question, panel: Panel, settings: Settings, now: str, protocol: str = DEFAULT) -> Discussion:
    """A new discussion; of the panel's settings it keeps the shared ones and its protocol's own."""
    own = own_settings(get_protocol(protocol), settings.own, f"the {protocol} protocol's settings")
    settings = dataclasses.replace(settings, own=own)

    return Discussion(
        question_id=q.question_id, question_slug=q.slug, question_title=q.title,
        panel=panel, settings=settings, protocol=protocol, started_at=now,
        record=new_record(question_hash(q.title, q.background)),
    )


class Saving:
    """When a run writes its state: a finished call within `LONGEST`, other changes once requests are out.

    A paid reply must reach the disk at once; the replies of a phase arrive
    within milliseconds of one another, and a save each (10 ms apiece for
    ten panelists' ballots) held the next phase back, as did a save after
    every step that only tallies or closes a round (a rerun redoes those).
    So results are written together once `QUIET` passes without another
    (or `LONGEST` after the first of them, if they keep coming), and other
    changes (the run's start and a round it opens included) while the next
    phase's requests are out, and at the latest before the first of their
    results is taken in, and when the run ends, however it ends. A phase
    whose replies all arrive together is written once, after its last
    reply. A write that fails keeps what it held pending and stops the run
    before it spends again.
    """

    QUIET, LONGEST = 0.01, 0.05  # seconds
    SENDING = SENDING  # the gateway's: how long a phase's requests take to go out

    def __init__(self, d: Discussion, write: Callable[[int, bool], None], loop: Any = None):
        self.d = d
        self.write = write  # given the first round to write and whether discussion.yaml is to be written too
        self.loop = loop  # the running loop unless given (a test's clock)
        self.since: int | None = None  # None: all on disk; else the first round that changed since
        self.index = False
        self.timer: asyncio.TimerHandle | None = None
        self.first: float | None = None  # when the oldest unwritten result came
        self.recorded = len(d.rounds)  # the rounds discussion.yaml on disk records
        self.failed: Exception | None = None  # a write on a timer that failed, raised before money is spent again
        self.ahead = False  # a round opened, not yet in the index: written before any of its replies is taken in

    def result(self, index: bool) -> None:
        self.changed(index)
        loop = self.loop or asyncio.get_running_loop()
        now = loop.time()
        self.first = now if self.first is None else self.first
        if self.timer is not None:
            self.timer.cancel()
        self.timer = loop.call_at(min(now + self.QUIET, self.first + self.LONGEST), self._timed)

    def before_sending(self) -> None:
        """Write what is pending once the next phase's requests are out (within `LONGEST` of a result still).

        Sending and writing both want the one thread; the requests go first,
        and the writing is done while the provider works on them (a run's
        first save, with the YAML writer's import, took 30-60 ms before its
        first request). A round opened since the index was written is in
        that write, which `before_result` makes before any reply of the round
        is taken in: no file of a round may reach the disk before the index
        names the round (a resume refuses such a folder).
        """
        if self.failed is not None:
            raise self.failed
        if len(self.d.rounds) > self.recorded:
            self.changed()
            self.ahead = True
        if self.since is None:
            return
        loop = self.loop or asyncio.get_running_loop()
        due = loop.time() + self.SENDING
        if self.first is not None:
            due = min(due, self.first + self.LONGEST)
        if self.timer is not None:
            self.timer.cancel()
        self.timer = loop.call_at(due, self._timed)

    def before_result(self) -> None:
        """A result of the phase in flight is about to be taken in: a round opened for it is written first, so
        the index names the round before the round's first reply reaches the disk (other changes wait for the
        timer: a panel that answers at once is not written twice a phase)."""
        if self.ahead:
            self._timed()

    def changed(self, index: bool = True, since: int | None = None) -> None:
        """A round changed (the newest unless told), and the index unless told not: kept until the next flush."""
        first = len(self.d.rounds) if since is None else since
        self.since = first if self.since is None else min(self.since, first)
        self.index = self.index or index

    def flush(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.first = None
        if self.since is None:
            return
        index = self.index or len(self.d.rounds) > self.recorded
        self.write(self.since, index)  # raising, all stays pending
        self.since, self.index, self.failed, self.ahead = None, False, None, False
        if index:
            self.recorded = len(self.d.rounds)

    def _timed(self) -> None:
        try:
            self.flush()
        except Exception as exc:  # a full disk: raised where the run can stop, not lost in the event loop's log
            self.failed = exc


class Runner:
    def __init__(self, gateway: Gateway, prompts: Prompts, clock: Callable[[], str] = utc_now,
                 on_round: Callable[[str], None] | None = None):
        self.gateway = gateway
        self.prompts = prompts
        self.clock = clock
        self.say = on_round or (lambda msg: None)

    async def run(self, q: Question, d: Discussion, plan: Plan, dry: bool = False) -> Discussion:
        """Run `plan` on `d`; `dry` neither locks nor writes (for estimates)."""
        folder = q.folder
        if plan.conclude and not plan.auto and not plan.rounds and not d.rounds:
            raise InputError(f"{q.path}: nothing to conclude; no round has been run yet")
        protocol = get_protocol(d.protocol)
        if protocol.runs_to_end and plan.rounds is None:
            plan = Plan(auto=True, conclude=plan.conclude)  # a fixed sequence of stages runs whole
        # Finishing a round left open by an interrupted run counts as one of its rounds.
        ctx = Context(q, self.prompts.scoped(protocol), self.clock, plan, rounds_started=int(open_round(d) is not None))
        lock = contextlib.nullcontext() if dry else DiscussionLock(folder)
        if protocol.counts_tokens or budget.limited(d.settings):
            tokens.preload()  # 0.3 s and 40 MB that the later phases need, not the first
        with lock:
            if not dry:
                check_writable(folder)  # the first write comes after the first requests: refused before them
            d.waiting_for = []  # asked again below: who is still awaited is found afresh
            # The whole discussion is written first; after that, only the round being worked on (and the index).
            saving = Saving(d, lambda since, index: None if dry else
                            store.save(d, folder, from_round=since, index=index))
            saving.changed(since=1)
            try:
                await self._steps(protocol, d, ctx, saving)
            finally:
                saving.flush()
        return d

    async def _steps(self, protocol: Protocol, d: Discussion, ctx: Context, saving: Saving) -> None:
        while (step := next_step(protocol, d, ctx)) is not None:
            if step.specs and (stop := self._over_budget(d, step)):
                self.say(f"budget: the next phase would pass the {stop['limit']} limit; stopping")
                d.budget_stop = stop
                if step.final:
                    finish(d, self.clock())
                else:
                    d.termination_reason = "budget"
                saving.changed()
                continue
            if step.label:
                self.say(step.label)
            if step.specs:
                saving.before_sending()
                waiting: list[tuple[str, str]] = []  # (person, what to fill in)
                await self.gateway.run_phase(step.specs, partial(self._fold, d, step, saving, waiting))
                if waiting:  # all else of the phase is saved; the person's call is asked again next run
                    d.waiting_for = sorted({person for person, _ in waiting})
                    saving.changed()
                    raise WaitingForPeople("fill in " + "; ".join(sorted(form for _, form in waiting))
                                           + " (discuss reply / discuss vote QUESTION --as ID), then run again")
            try:
                if step.after and (line := step.after()):
                    self.say(line)
            except Unusable as exc:
                # A model that cannot give a usable reply decides nothing, now or on a rerun: end honestly.
                self.say(f"{exc}; the discussion is closed")
                d.termination_reason = "no-valid-replies"
                finish(d, self.clock())
            saving.changed()

    @staticmethod
    def _fold(d: Discussion, step: Step, saving: Saving, waiting: list[tuple[str, str]],
              result: CallResult) -> None:
        """A finished call into the state, saved within moments; a failure is in the index, so that is written too."""
        saving.before_result()
        if result.waiting:
            waiting.append((result.spec.panelist.id, result.waiting))
            return
        if step.apply:
            step.apply(result)
        if d.rounds:
            d.rounds[-1].settle(d.panel.ids)
        saving.result(index=not result.ok)

    def _over_budget(self, d: Discussion, step) -> dict | None:
        if not budget.limited(d.settings):
            return None
        planned = budget.estimate(step.specs, self.gateway.price)
        if not step.final:  # keep room to conclude from what exists
            planned.add(budget.conclusion_reserve(d.panel.chair, d.settings, self.gateway.price))
        return budget.overrun(d.spent, planned, d.settings)


def prompts_for(root: Path) -> Prompts:
    return Prompts(Layout(root).prompts)
