"""The loop of a run: load, ask the protocol what is next, call, fold in, save.

The state is saved after every finished call, so a run killed at any point
loses at most the calls that were still in flight. Resume is a plain run:
the files say what is done.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections.abc import Callable
from functools import partial
from pathlib import Path

from . import budget
from .calls import CallResult
from .domain import Discussion, Panel, Question, Settings
from .errors import InputError, WaitingForPeople
from .gateway import Gateway
from .prompting import Prompts
from .protocols import DEFAULT, get_protocol
from .protocols.base import Context, Plan, Step, Unusable, finish, next_step, open_round
from .store import discussions as store
from .store.files import DiscussionLock
from .store.layout import Layout

__all__ = ["Plan", "Runner", "prompts_for", "start", "utc_now"]


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def start(q: Question, panel: Panel, settings: Settings, now: str, protocol: str = DEFAULT) -> Discussion:
    """A new discussion; of the panel's settings it keeps the shared ones and its protocol's own."""
    own = get_protocol(protocol).own_settings(settings.own, f"the {protocol} protocol's settings")
    settings = dataclasses.replace(settings, own=own)
    return Discussion(
        question_id=q.question_id, question_slug=q.slug, question_title=q.title,
        panel=panel, settings=settings, protocol=protocol, started_at=now,
    )


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
        with lock:
            d.waiting_for = []  # asked again below: who is still awaited is found afresh
            if not dry:
                store.save(d, folder)
            # After that, only the round being worked on (and the index) can change.
            def save(index: bool = True) -> None:
                if not dry:
                    store.save(d, folder, from_round=len(d.rounds), index=index)

            while (step := next_step(protocol, d, ctx)) is not None:
                if step.specs and (stop := self._over_budget(d, step)):
                    self.say(f"budget: the next phase would pass the {stop['limit']} limit; stopping")
                    d.budget_stop = stop
                    if step.final:
                        finish(d, self.clock())
                    else:
                        d.termination_reason = "budget"
                    save()
                    continue
                if step.label:
                    self.say(step.label)
                if step.specs:
                    waiting: list[tuple[str, str]] = []  # (person, what to fill in)
                    await self.gateway.run_phase(step.specs, partial(self._fold, d, step, save, waiting))
                    if waiting:  # all else of the phase is saved; the person's call is asked again next run
                        d.waiting_for = sorted({person for person, _ in waiting})
                        save()
                        raise WaitingForPeople("fill in " + "; ".join(sorted(form for _, form in waiting))
                                               + " (discuss reply / discuss vote QUESTION --as ID), then run "
                                               "again")
                try:
                    if step.after and (line := step.after()):
                        self.say(line)
                except Unusable as exc:
                    # A model that cannot give a usable reply decides nothing, now or on a rerun: end honestly.
                    self.say(f"{exc}; the discussion is closed")
                    d.termination_reason = "no-valid-replies"
                    finish(d, self.clock())
                save()
        return d

    @staticmethod
    def _fold(d: Discussion, step: Step, save: Callable[..., None], waiting: list[tuple[str, str]],
              result: CallResult) -> None:
        """A finished call into the state, saved at once; a failure is in the index, so that is written too."""
        if result.waiting:
            waiting.append((result.spec.panelist.id, result.waiting))
            return
        if step.apply:
            step.apply(result)
        if d.rounds:
            d.rounds[-1].settle(d.panel.ids)
        save(index=not result.ok)

    def _over_budget(self, d: Discussion, step) -> dict | None:
        if not budget.limited(d.settings):
            return None
        planned = budget.estimate(step.specs, self.gateway.price)
        if not step.final:  # keep room to conclude from what exists
            planned.add(budget.conclusion_reserve(d.panel.chair, d.settings, self.gateway.price))
        return budget.overrun(d.usage, planned, d.settings)


def prompts_for(root: Path) -> Prompts:
    return Prompts(Layout(root).prompts)
