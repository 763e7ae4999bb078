"""What a run would take at most, priced before it starts: calls, tokens, cost; no call made, no file written."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import providers
from ..domain import Discussion, Question, Usage
from ..engine.dry_run import estimate_run
from ..engine.runner import Plan, Runner, prompts_for
from ..protocols import get_protocol
from ..text.tokens import count
from .results import Result
from .running import ready

if TYPE_CHECKING:
    from .running import Options, Plan


@dataclass
class Ended(Result):
    """The discussion has ended: there is no run to price."""

    slug: str
    concluded: bool  # True
    status: str
    termination_reason: str | None


@dataclass
class Bound(Result):
    """Calls, tokens and dollars at most."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None


@dataclass
class Estimate(Result):
    """The most a run would take, with what the bound assumes (`run --estimate`)."""

    slug: str
    concluded: bool  # False
    protocol: str
    panel: str
    notes: list[str]
    calls: int
    tasks: dict[str, int]  # calls by task
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    unpriced: list[str]  # the members without a known price: the cost is then no bound
    most_rounds: int
    answer_tokens: int
    structured: int  # replies of a fixed shape, which may be asked again
    vote_attempts: int
    with_reasks: Bound  # if every structured reply is asked again as often as it may be


def estimate(root: Path, content: Path, question: str, options: Options, plan: Plan) -> Ended | Estimate:
    """The upper bound of the run `plan` asks of `question` (as `run --estimate` prints it), as a value;
    `Ended` where the discussion has ended."""
    r = ready(root, content, question, options)
    q, d = r.q, r.d
    if d.concluded:
        return Ended(q.slug, True, d.status, d.termination_reason)
    prompts = prompts_for(root)
    usage, calls, unpriced, reasks = providers.run(estimate_run(lambda g: Runner(g, prompts), r.asked, d, plan))
    s = d.settings
    structured = sum(1 for _, _, shaped in calls if shaped)
    worst = Usage(usage.prompt_tokens, usage.completion_tokens, usage.cost, usage.calls)
    worst.add(reasks)
    return Estimate(q.slug, False, d.protocol, d.panel.name, list(r.notes), usage.calls,
                    dict(Counter(t for _, t, _ in calls)), usage.prompt_tokens, usage.completion_tokens, usage.cost,
                    list(unpriced), get_protocol(d.protocol).most_rounds(d), s.max_response_words * 2, structured,
                    s.vote_attempts, Bound(worst.calls, worst.prompt_tokens, worst.completion_tokens, worst.cost))


@dataclass
class Priced(Result):
    """At most what a discussion would take to its end (and the whole batch's sum: no slug, no protocol)."""

    calls: int
    tokens: int
    cost: float | None


@dataclass
class PricedDiscussion(Result):
    slug: str
    protocol: str
    calls: int
    tokens: int
    cost: float | None


@dataclass
class BatchEstimate(Result):
    """Each discussion of a batch priced, and the sum (`run --all --estimate`, trials, an eval's arms)."""

    discussions: list[PricedDiscussion]
    total: Priced


def batch_estimate(root: Path, prepared: list[tuple[Question, Discussion]]) -> BatchEstimate:
    """Each prepared (question, discussion) run to its end, priced as an upper bound, and the sum.

    A discussion not started, whose question has no sources, is priced without simulating it: questions
    alike in all but their text (the same panel, protocol and settings) cost what the first of them costs
    plus, per token of their own text, what one more token of question costs, measured once by pricing that
    first question again with its background made longer; rounded up, with a margin per call, so it stays a
    bound. Over thousands of open questions this is reading them, not running each.
    """
    priced = _Priced(root)
    total, found = Usage(), []
    for q, d in prepared:
        usage = priced.of(q, d)
        total.add(usage)
        found.append(PricedDiscussion(q.slug, d.protocol, usage.calls, usage.total_tokens, usage.cost))
    return BatchEstimate(found, Priced(total.calls, total.total_tokens, total.cost))


SLOPE_TOKENS = 400  # how much longer the background is made to measure what a token of question costs
MARGIN_PER_CALL = 16  # tokens a call may differ by as texts meet differently at the tokenizer


class _Priced:
    """Run estimates, the simulated ones made once per kind of fresh discussion."""

    def __init__(self, root: Path):
        self.root, self.prompts = root, prompts_for(root)
        self.kinds: dict[str, tuple[int, Any, float, float | None]] = {}

    def simulated(self, q: Any, d: Any) -> Any:
        return providers.run(estimate_run(lambda g: Runner(g, self.prompts), q, d, Plan(auto=True)))[0]

    def of(self, q: Any, d: Any) -> Any:
        import dataclasses
        import math


        if d.rounds or q.sources or d.legacy or d.personas:
            return self.simulated(q, d)
        kind = repr((d.protocol, d.panel, d.settings, q.task_type, q.stakes, bool(q.background.strip())))
        own = count(f"{q.title}\n{q.background}")
        if kind not in self.kinds:
            base = self.simulated(q, d)
            longer = dataclasses.replace(q, background=q.background + "\n" + " ".join(["word"] * SLOPE_TOKENS))
            more = self.simulated(longer, d)
            added = count(f"{longer.title}\n{longer.background}") - own
            slope = max(more.prompt_tokens - base.prompt_tokens, 0) / max(added, 1)
            cost_slope = None if base.cost is None or more.cost is None else max(more.cost - base.cost, 0) / max(added, 1)
            self.kinds[kind] = (own, base, slope, cost_slope)
            return base
        first, base, slope, cost_slope = self.kinds[kind]
        extra = max(own - first, 0)
        prompt = base.prompt_tokens + math.ceil(slope * extra) + MARGIN_PER_CALL * base.calls
        cost = None if base.cost is None or cost_slope is None else round(
            base.cost + cost_slope * (extra + MARGIN_PER_CALL * base.calls), 6)
        return Usage(prompt, base.completion_tokens, cost, base.calls)
