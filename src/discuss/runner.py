"""The loop of a run: load, ask the protocol what is next, call, fold in, save.

The state is saved after every finished call, so a run killed at any point
loses at most the calls that were still in flight. Resume is a plain run:
the files say what is done.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .domain import Discussion, Panel, Question, Settings
from .errors import InputError, RunError
from .gateway import Gateway
from .prompting import Prompts
from .protocols import vote
from .store import discussions as store
from .store.files import DiscussionLock


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass
class Plan:
    """What the user asked of this run."""

    auto: bool = False
    rounds: int | None = None  # new rounds to run; None: one, or until the end with auto
    conclude: bool = False


def start(q: Question, panel: Panel, settings: Settings, now: str) -> Discussion:
    return Discussion(
        question_id=q.question_id, question_slug=q.slug, question_title=q.title,
        panel=panel, settings=settings, protocol=vote.NAME, started_at=now,
    )


class Runner:
    def __init__(self, gateway: Gateway, prompts: Prompts, clock: Callable[[], str] = utc_now,
                 on_round: Callable[[str], None] | None = None):
        self.gateway = gateway
        self.prompts = prompts
        self.clock = clock
        self.say = on_round or (lambda msg: None)

    async def run(self, q: Question, d: Discussion, plan: Plan) -> Discussion:
        folder = q.folder
        if plan.conclude and not plan.auto and not plan.rounds and not d.rounds:
            raise InputError(f"{q.path}: nothing to conclude; no round has been run yet")
        with DiscussionLock(folder):
            save = lambda: store.save(d, folder)  # noqa: E731
            save()
            budget = None if plan.auto else (plan.rounds if plan.rounds is not None else (0 if plan.conclude else 1))
            started = 0
            while d.termination_reason is None:
                rnd = d.rounds[-1] if d.rounds and not d.rounds[-1].complete else None
                if rnd is None:
                    if budget is not None and started >= budget:
                        break
                    rnd = vote.new_round(d)
                    save()
                started += 1
                await self._round(q, d, rnd, save)
            if plan.conclude and d.termination_reason is None:
                d.termination_reason = "forced"
                save()
            if d.termination_reason and not d.concluded:
                await self._conclude(q, d, save)
        return d

    async def _round(self, q: Question, d: Discussion, rnd, save) -> None:
        self.say(f"round {rnd.number}: answers")
        specs = vote.respond_specs(d, q, rnd, self.prompts)
        await self.gateway.run_phase(specs, lambda r: (vote.apply_reply(d, rnd, r, self.clock()), save()))
        if not rnd.replies:
            raise RunError(f"round {rnd.number}: every panelist failed to answer; run again to retry")
        self.say(f"round {rnd.number}: votes")
        specs = vote.vote_specs(d, q, rnd, self.prompts)
        await self.gateway.run_phase(specs, lambda r: (vote.apply_ballot(d, rnd, r), save()))
        decision = vote.close_round(d, rnd, self.clock())
        if decision.terminate:
            d.termination_reason = decision.reason
        save()
        self.say(f"round {rnd.number}: winner {rnd.winner_id} ({rnd.winner_score:g})"
                 + (f", tie broken by {rnd.tie_break}" if rnd.tie_break else ""))

    async def _conclude(self, q: Question, d: Discussion, save) -> None:
        self.say(f"conclusion ({d.termination_reason})")
        spec = vote.conclude_spec(d, q, self.prompts)
        (result,) = await self.gateway.run_phase([spec])
        if not result.ok:
            d.usage.add(result.usage)
            save()
            raise RunError(f"the conclusion by {spec.panelist.id} failed: {result.error}; run again to retry")
        vote.apply_conclusion(d, result, self.clock())
        save()


def prompts_for(root: Path) -> Prompts:
    return Prompts(root / "discussions" / "prompts")
