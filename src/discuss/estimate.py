"""What a run would cost, found by running it against a gateway that calls nothing.

The protocol runs for real on a copy of the discussion, so the calls and
prompts are the ones a run would make. Replies are stand-ins at their
maximum length, ballots always ask to CONTINUE: the figures are an upper
bound (a vote discussion is assumed to run to its round limit).
"""

from __future__ import annotations

import copy
import json

from . import offline
from .budget import estimate
from .domain import Panelist, Usage
from .gateway import CallResult, CallSpec, Gateway
from .prompting import estimate_tokens


def _stand_in(spec: CallSpec) -> str:
    ctx = spec.context
    if spec.task == "vote":
        votes = [{"label": label, "vote": "NEUTRAL", "reasoning": "estimate"} for label in ctx["labels"]]
        return json.dumps({"votes": votes, "termination": {"vote": "CONTINUE", "reasoning": "estimate"}})
    text = offline.reply(Panelist(spec.panelist.id, f"offline/{spec.panelist.id}", spec.panelist.name), spec.task, ctx)
    if spec.validate is not None:
        return text  # structured replies keep their shape
    filler = " ".join(["word"] * max(spec.max_tokens - estimate_tokens(text), 0))
    return f"{text}\n{filler}\n"


class EstimatingGateway(Gateway):
    """Answers every call with a stand-in and records what the call would use."""

    def __init__(self, price_from: Gateway):
        super().__init__()
        self.price_from = price_from
        self.calls: list[tuple[str, str]] = []

    async def call(self, spec: CallSpec) -> CallResult:
        text = _stand_in(spec)
        self.calls.append((spec.panelist.id, spec.task))
        return CallResult(spec=spec, text=text, value=spec.validate(text) if spec.validate else None,
                          attempts=1, asks=1, usage=estimate([spec], self.price_from.price))


async def estimate_run(runner_factory, q, d, plan) -> tuple[Usage, list[tuple[str, str]], list[str]]:
    """Total usage, the calls in order, and the models whose price is unknown."""
    gateway = EstimatingGateway(Gateway())
    trial = copy.deepcopy(d)
    await runner_factory(gateway).run(q, trial, plan, dry=True)
    unpriced = sorted({m.id for m in trial.panel.everyone if gateway.price(m, 1, 1) is None})
    new_usage = trial.usage
    spent = d.usage
    total = Usage(new_usage.prompt_tokens - spent.prompt_tokens, new_usage.completion_tokens - spent.completion_tokens,
                  None if new_usage.cost is None else round(new_usage.cost - (spent.cost or 0.0), 6),
                  new_usage.calls - spent.calls)
    return total, gateway.calls, unpriced
