"""How the offline panel plays ballots: deterministic, simulated, never a model."""

from __future__ import annotations

import json
from typing import Any

from discuss.plugin import hash_of


def vote(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    votes = []
    for label, text in sorted(ctx.get("labels", {}).items()):
        own = persona["lens"] in text
        score = hash_of(name, text) % 5
        choice = "APPROVE" if own or score >= 2 else ("NEUTRAL" if score == 1 else "REJECT")
        why = {
            "APPROVE": "Concrete and well argued; it moves the discussion forward.",
            "NEUTRAL": "Reasonable, but it leaves the main trade-off open.",
            "REJECT": "It restates earlier points without new evidence.",
        }[choice]
        votes.append({"label": label, "vote": choice, "reasoning": why})
    done = ctx.get("round", 1) >= persona["patience"]
    forecast = {"probability": (hash_of(name, str(ctx.get("round", 1))) % 9 + 1) / 10} if ctx.get("forecast") else {}
    return json.dumps({
        "votes": votes,
        "termination": {
            "vote": "CONCLUDE" if done else "CONTINUE",
            "reasoning": "The positions have converged enough to act on."
            if done else "Another round should test the open risks.",
        },
        **forecast,
    }, indent=2)


def worst_case(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    """The estimator's ballot: neutral on every answer and asking to go on, so no early stop is assumed."""
    votes = [{"label": label, "vote": "NEUTRAL", "reasoning": "estimate"} for label in ctx.get("labels", {})]
    return json.dumps({"votes": votes, "termination": {"vote": "CONTINUE", "reasoning": "estimate"}})
