"""How the offline panel plays match verdicts: deterministic, simulated, never a model."""

from __future__ import annotations

import json
from typing import Any

from discuss.plugin import hash_of


def match(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    texts = ctx.get("labels", {})
    pick = "A" if hash_of(name, texts.get("A"), "A") >= hash_of(name, texts.get("B"), "B") else "B"
    return json.dumps({"winner": pick, "reasoning": f"Seen from {persona['lens']}, answer {pick} is more "
                       "concrete about its first step. (Simulated judgement.)"})


def argue(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    return (f"Seen from {persona['lens']}, the other answer says less about {persona['risks'][0]}; "
            "it is clearer on the first step, and I concede that. (Simulated argument.)\n")
