"""What every protocol shares: the plan of a run, the steps a protocol hands
the runner, and the skeleton that decides between a round, a new round and
the conclusion.

A protocol module provides `new_round(d)`, `round_step(d, rnd, ctx)`,
`finished_rounds(d)` (True when no further round belongs to the protocol)
and `conclusion_spec(d, ctx)` (None when the protocol ends without one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..domain import Discussion, Failure, Panelist, Question, Round
from ..errors import RunError
from ..calls import CallResult, CallSpec
from ..prompting import Prompts


@dataclass
class Plan:
    """What the user asked of this run."""

    auto: bool = False
    rounds: int | None = None  # new rounds to run; None: one, or all with auto
    conclude: bool = False


@dataclass
class Step:
    """One thing to do: calls to make at once, then an optional closing action."""

    label: str
    specs: list[CallSpec] = field(default_factory=list)
    apply: Callable[[CallResult], None] | None = None
    # Runs after the calls; may return a line to report.
    after: Callable[[], str | None] | None = None
    final: bool = False  # the conclusion: no room needs keeping after it


@dataclass
class Context:
    q: Question
    prompts: Prompts
    clock: Callable[[], str]
    plan: Plan
    rounds_started: int = 0

    def may_start_round(self) -> bool:
        if self.plan.auto:
            return True
        budget = self.plan.rounds if self.plan.rounds is not None else (0 if self.plan.conclude else 1)
        return self.rounds_started < budget


def messages(p: Panelist, prompts: Prompts, user: str) -> list[dict]:
    return [{"role": "system", "content": prompts.render("system", panelist=p)},
            {"role": "user", "content": user}]


def open_round(d: Discussion) -> Round | None:
    return d.rounds[-1] if d.rounds and not d.rounds[-1].complete else None


def record_failure(rnd: Round, phase: str, result: CallResult, who: str | None = None) -> None:
    """A call that failed, as the round keeps it: by phase and by who (default: the panelist)."""
    rnd.failures.append(Failure(phase, who or result.spec.panelist.id, result.error or "", result.attempts,
                                result.timed_out, result.usage))


def require_replies(rnd: Round) -> None:
    if not rnd.replies:
        raise RunError(f"round {rnd.number}: every participant failed to answer; run again to retry")


def next_step(protocol, d: Discussion, ctx: Context) -> Step | None:
    if d.concluded:
        return None
    rnd = open_round(d)
    if rnd is not None and d.termination_reason is None:
        return protocol.round_step(d, rnd, ctx)
    if d.termination_reason is None:
        if protocol.finished_rounds(d):
            d.termination_reason = "completed"
        elif ctx.may_start_round():
            def start() -> None:
                protocol.new_round(d)
                ctx.rounds_started += 1
            return Step("", after=start)
        elif ctx.plan.conclude:
            return Step("", after=lambda: setattr(d, "termination_reason", "forced"))
        else:
            return None
    spec = protocol.conclusion_spec(d, ctx)
    if spec is None:
        return Step("", after=lambda: finish(d, ctx.clock()))
    return conclusion_step(protocol, d, spec, ctx)


def finish(d: Discussion, now: str) -> None:
    d.status, d.concluded_at = "concluded", now


def conclusion_step(protocol, d: Discussion, spec: CallSpec, ctx: Context) -> Step:
    failed: list[CallResult] = []

    def apply(result: CallResult) -> None:
        if not result.ok:
            failed.append(result)
            return
        c = result.value
        c.generated_by, c.generated = result.spec.panelist.id, ctx.clock()
        c.usage, c.simulated = result.usage, result.spec.panelist.simulated
        d.conclusion = c
        finish(d, c.generated)

    def after() -> None:
        if failed:
            raise RunError(f"the conclusion by {spec.panelist.id} failed: {failed[0].error}; run again to retry")

    return Step(f"conclusion ({d.termination_reason})", [spec], apply, after, final=True)
