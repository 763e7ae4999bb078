"""Budgets of a discussion: estimating a phase and checking it against the limits.

Pure functions. A phase is estimated before it runs: its prompts are
measured, its replies counted at their maximum length, its price taken from
a price function (None where a model's price is unknown, which then counts
as nothing). A phase that would pass a limit is not started.
"""

from __future__ import annotations

from collections.abc import Callable

from ..domain import Panelist, Settings, Usage
from ..text.prompting import estimate_tokens

Price = Callable[[Panelist, int, int], "float | None"]

# What a conclusion is assumed to need when room is kept for it.
CONCLUSION_COMPLETION = 3000


def estimate(specs, price: Price) -> Usage:
    total = Usage()
    for spec in specs:
        prompt = sum(estimate_tokens(m["content"]) for m in spec.messages)
        total.add(Usage(prompt, spec.max_tokens, price(spec.panelist, prompt, spec.max_tokens), 1))
    return total


def conclusion_reserve(author: Panelist, settings: Settings, price: Price) -> Usage:
    prompt = settings.context_tokens
    return Usage(prompt, CONCLUSION_COMPLETION, price(author, prompt, CONCLUSION_COMPLETION), 1)


def limited(settings: Settings) -> bool:
    return bool(settings.max_calls or settings.max_tokens or settings.max_cost)


def overrun(spent: Usage, planned: Usage, settings: Settings) -> dict | None:
    """The first limit that spent + planned would pass, with its figures; None when all fit."""
    checks = [
        ("calls", spent.calls, planned.calls, settings.max_calls),
        ("tokens", spent.total_tokens, planned.total_tokens, settings.max_tokens),
        ("cost", round(spent.cost or 0.0, 6), round(planned.cost or 0.0, 6), settings.max_cost),
    ]
    for name, used, next_phase, limit in checks:
        if limit and used + next_phase > limit:
            return {"limit": name, "max": limit, "spent": used, "nextPhase": next_phase}
    return None
