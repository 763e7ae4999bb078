"""What an eval would take at most, item by item, before anything is asked: `eval --estimate`, and what a
budget holds each item to before it starts.

A protocol arm's item is priced as `run --estimate` prices a discussion
(every round the protocol may run, every reply at its cap); a baseline
answer at the prompt the run sends (counted as the run's estimate counts
prompts) and its answer's cap. Self-consistency is sized as the run will
size it: k samples an item so that its tokens come near the protocol arms'
median, here their estimated tokens per item (or what their finished items
spent) over one estimated answer, plus one sample for the rounding; the
number of members where no protocol arm runs; at most `--max-samples`.
Every figure is an upper bound of a run whose replies fill their caps and
whose discussions run to their last round, and comes within 2x of it
(tests/test_eval_estimate.py measures it).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..domain import Discussion, Panel, Question, Usage
from ..engine.runner import prompts_for
from ..store import discussions as store
from ..store.evalsets import Item
from ..store.layout import Layout
from ..text.prompting import Prompts
from .estimating import batch_estimate
from .evalrun import baseline_work, priced
from .results import OPTIONAL, Result

if TYPE_CHECKING:
    from ..archive.evaluation import Arm

Ready = dict[str, list[tuple[Question, Discussion]]]  # each protocol arm's items, as questions and discussions


@dataclass
class Bounds:
    """What each arm's unanswered items may take: arm name -> item id -> usage (calls, tokens, cost)."""

    arms: dict[str, dict[str, Usage]] = field(default_factory=dict)
    samples: dict[str, int] = field(default_factory=dict)  # self-consistency's k, as the estimate sized it

    def total(self, arm: str) -> Usage:
        out = Usage(cost=0.0)
        for usage in self.arms.get(arm, {}).values():
            out.add(usage)
        return out


def bounds(layout: Layout, ready: Ready, baselines: list[Arm], items: list[Item], members: Panel, folder: Path,
           rule: str, max_samples: int | None = None) -> Bounds:
    """Every arm's items still to answer, each priced as an upper bound."""
    found = Bounds()
    for name, pairs in ready.items():
        rows = batch_estimate(layout.root, [p for p in pairs if not p[1].concluded]).discussions
        found.arms[name] = {row.slug: Usage(0, row.tokens, row.cost, row.calls) for row in rows}
    prompts = _prompts(layout.root)
    plain = [a for a in baselines if a.kind != "self-consistency"]
    for path, item, asked, _ in baseline_work(folder, items, members, plain, {}):
        found.arms.setdefault(_arm_of(path, plain), {})[item.id] = priced(prompts, rule, item, asked)
    for arm in [a for a in baselines if a.kind == "self-consistency"]:
        k = _k(layout.root, ready, folder, items, members, arm, prompts, rule, found)
        found.samples[arm.name] = min(k, max_samples) if max_samples else k
        for _path, item, asked, _ in baseline_work(folder, items, members, [arm], {arm.name: found.samples[arm.name]}):
            found.arms.setdefault(arm.name, {})[item.id] = priced(prompts, rule, item, asked)
    for name in [*ready, *(a.name for a in baselines)]:
        found.arms.setdefault(name, {})
    return found


def protocol_bounds(root: Path, pairs: list[tuple[Question, Discussion]]) -> dict[Path, Usage]:
    """What each discussion to run may spend at most (by its question file), as `run --estimate` prices it."""
    rows = batch_estimate(root, pairs).discussions
    return {q.path: Usage(0, row.tokens, row.cost, row.calls) for (q, _), row in zip(pairs, rows, strict=True)}


def _arm_of(path: Path, arms: list[Arm]) -> str:
    return next(a.name for a in arms if a.folder == path.parent.name)


def _prompts(root: Path) -> Prompts:
    return prompts_for(root)


def _k(root: Path, ready: Ready, folder: Path, items: list[Item], members: Panel, arm: Arm, prompts: Prompts,
       rule: str, found: Bounds) -> int:
    """Self-consistency's k as the run will size it, from the estimate of what the protocol arms take."""
    per_arm = []
    for name, pairs in ready.items():
        spent = [found.arms[name][d.question_slug].total_tokens if d.question_slug in found.arms[name]
                 else s.usage.total_tokens if (s := store.summary(folder / name / d.question_slug)) is not None
                 else None
                 for _, d in pairs]
        known = [t for t in spent if t is not None]
        if known:
            per_arm.append(sum(known) / len(known))
    if not per_arm:
        return len(members.members)
    member = next(m for m in members.members if m.id == arm.member)
    one = statistics.mean(priced(prompts, rule, item, [(member, 0)]).total_tokens for item in items)
    return max(1, math.floor(statistics.median(per_arm) / max(one, 1)) + 1)


@dataclass
class ArmEstimate(Result):
    """What one arm's items still to answer would take at most; `samples`, self-consistency's k."""

    calls: int
    tokens: int
    cost: float | None  # None where a member's price is not known: no bound then
    samples: int | None = field(default=None, metadata=OPTIONAL)


@dataclass
class EstimateTotal(Result):
    """What the whole eval would take at most."""

    calls: int
    tokens: int
    cost: float | None


@dataclass
class EvalEstimate(Result):
    """`eval --estimate`: each arm's upper bound and their sum, over the set's items."""

    estimate: bool  # True: it tells an estimate from a report
    items: int
    arms: dict[str, ArmEstimate]
    total: EstimateTotal


def estimate(layout: Layout, ready: Ready, baselines: list[Arm], items: list[Item], members: Panel, folder: Path,
             rule: str, max_samples: int | None = None) -> EvalEstimate:
    """`eval --estimate`: what the eval would take at most, per arm and in all. Nothing is asked."""
    found = bounds(layout, ready, baselines, items, members, folder, rule, max_samples)
    arms: dict[str, ArmEstimate] = {}
    for name in found.arms:
        total = found.total(name)
        priced = all(u.cost is not None for u in found.arms[name].values())
        arms[name] = ArmEstimate(total.calls, total.total_tokens, round(total.cost or 0.0, 6) if priced else None,
                                 found.samples.get(name))
    costs = [a.cost for a in arms.values()]
    return EvalEstimate(True, len(items), arms, EstimateTotal(
        sum(a.calls for a in arms.values()), sum(a.tokens for a in arms.values()),
        None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 6)))
