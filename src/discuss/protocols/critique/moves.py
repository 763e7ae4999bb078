"""How the offline panel plays stances and the judge's verdict: deterministic, simulated, never a model."""

from __future__ import annotations

import json
from typing import Any

from discuss.plugin import hash_of, respond


def stance(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    labels = sorted(ctx.get("labels", {}))
    rnd = ctx.get("round", 2)
    agreements = [{"with": lab, "on": "proceeding in stages"} for lab in labels[:1]]
    disagreements = [{"with": lab, "on": "how fast to scale", "why": f"seen from {persona['lens']}, "
                      "the evidence does not yet support it"} for lab in labels[1:2]]
    position = respond(name, persona, {**ctx, "round": rnd})
    return json.dumps({"agreements": agreements, "disagreements": disagreements, "position": position,
                       "confidence": round(min(0.5 + 0.15 * rnd, 0.95), 2),
                       **({"probability": (hash_of(name, str(rnd)) % 9 + 1) / 10} if ctx.get("forecast") else {})},
                      indent=2)


def judge(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    level = round(min(0.45 + 0.2 * ctx.get("round", 2), 1.0), 2)  # positions converge as rounds go on
    return json.dumps({"recommendation": level, "keyFacts": level, "caveats": round(level - 0.05, 2),
                       "reasoning": "The simulated positions share their recommendation and most caveats."})


def never_converged(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    """The estimator's verdict: no convergence, so every round of critique is priced."""
    return json.dumps({"recommendation": 0, "keyFacts": 0, "caveats": 0, "reasoning": "estimate"})
