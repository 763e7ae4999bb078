"""How the offline panel plays the split of a question: deterministic, simulated, never a model."""

from __future__ import annotations

import json
from typing import Any


def split(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    return json.dumps({"parts": [
        {"title": "Options", "question": f"Which options exist for \"{ctx.get('title')}\", and what does each cost?"},
        {"title": "Risks", "question": "What could go wrong with each option, and how likely is it?"},
        {"title": "First step", "question": "What is the smallest first step that tests the choice?"},
    ]})


def most_parts(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    """The estimator's split: as many parts as a split may have, so every part is priced."""
    return json.dumps({"parts": [{"title": f"Part {i}", "question": f"Sub-question {i}?"}
                                 for i in range(1, ctx.get("most", 2) + 1)]})
