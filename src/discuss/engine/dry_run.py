"""What a run would cost, found by running it against the estimator provider.

The protocol runs on a copy of the discussion with nothing locked or
written; the difference in usage is the estimate.
"""

from __future__ import annotations

import copy

from ..domain import Usage
from ..providers import route
from ..providers.estimator import EstimatorProvider
from .client import estimating


async def estimate_run(runner_factory, q, d, plan) -> tuple[Usage, list[tuple[str, str, bool]], list[str], Usage]:
    """Total usage, the calls in order (panelist, task, structured), the models whose price is unknown,
    and the most the re-asks of structured replies could add."""
    stand_ins = EstimatorProvider(route)
    gateway = estimating(stand_ins)
    trial = copy.deepcopy(d)
    await runner_factory(gateway).run(q, trial, plan, dry=True)
    unpriced = sorted({m.id for m in trial.panel.everyone if gateway.price(m, 1, 1) is None})
    new_usage, spent = trial.usage, d.usage
    total = Usage(new_usage.prompt_tokens - spent.prompt_tokens, new_usage.completion_tokens - spent.completion_tokens,
                  None if new_usage.cost is None else round(new_usage.cost - (spent.cost or 0.0), 6),
                  new_usage.calls - spent.calls)
    return total, stand_ins.calls, unpriced, stand_ins.reasks(d.settings.vote_attempts)
