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
