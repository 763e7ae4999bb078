"""How the offline panel plays cross-examination, rebuttal and review: deterministic, simulated, never a model."""

from __future__ import annotations

import json
from typing import Any

from discuss.plugin import NOTE, pick


def critique(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    critiques = []
    for label, text in sorted(ctx.get("labels", {}).items()):
        risk = pick(persona["risks"], 1, name, label, text)[0]
        move = pick(persona["moves"], 1, name, text)[0]
        critiques.append({"label": label, "critique": (
            f"Seen from {persona['lens']}, answer {label} is a fair start but says too little about {risk}. "
            f"{move} (Simulated critique.)")})
    return json.dumps({"critiques": critiques}, indent=2)


def rebut(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    moves = pick(persona["moves"], 2, name, "rebut", ctx.get("title"))
    return (
        "## Response to the critiques\n\n- The point about risk is fair; the revised answer names a fallback.\n"
        "- The staging stays: it is what keeps each decision reversible.\n\n"
        "## Revised answer\n\n" + "\n".join(f"- {m}" for m in moves) + f"\n\n{NOTE}\n"
    )


def review(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    risks = pick(persona["risks"], 2, name, "review")
    return (
        f"## Review from {persona['lens']}\n\n"
        + "\n".join(f"- The draft does not address {r}; add a mitigation." for r in risks)
        + "\n- Keep the staged structure: it is the draft's strength.\n\n" + NOTE + "\n"
    )
