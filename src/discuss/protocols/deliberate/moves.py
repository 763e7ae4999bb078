"""How the offline panel plays research, alternatives and rankings: deterministic, simulated, never a model."""

from __future__ import annotations

import json
from typing import Any

from discuss.plugin import hash_of, pick, respond


def research(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    role = ctx.get("persona", {})
    findings = respond(name, persona, ctx).replace("## Position", f"## Findings of the {role.get('name', name)}")
    return json.dumps({"findings": findings, "confidence": round(0.5 + (hash_of(name, "c") % 20) / 100, 2)})


def alternatives(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    return json.dumps({"alternatives": [
        {"title": "Staged pilot", "description": "A small pilot with explicit criteria before scaling."},
        {"title": "Full build-out", "description": "Commit to the complete design now to capture scale early."},
        {"title": "Wait and study", "description": "Fund studies for a year, then decide."},
    ]})


def rank(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    role = ctx.get("persona", {}).get("id", name)
    scores = []
    for i, label in enumerate(ctx.get("labels", [])):
        base = 0.8 if i == 0 else 0.55 - 0.1 * i
        if role == "contrarian":  # the contrarian prefers the option nobody else does
            base = 0.85 if i == 1 else 0.5
        jitter = (hash_of(role, label) % 10) / 100
        scores.append({"alternative": label, **{d: round(min(base + jitter, 1.0), 2) for d in
                                                  ("impact", "quality", "feasibility", "reusability", "risk")}})
    return json.dumps({"scores": scores, "confidence": 0.8,
                       "concern": f"Seen from the {role} perspective, the alternatives underplay "
                                  f"{pick(persona['risks'], 1, role)[0]}."})


def triage(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    """Uncertain enough to deliberate: the offline demo shows the whole protocol."""
    return json.dumps({"ambiguity": 0.6, "complexity": 0.7, "stakes": 0.6, "contextDependency": 0.4,
                       "reasoning": "Several options, uncertain costs and a long horizon: worth deliberating."})


def uncertain(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    """The estimator's triage: as uncertain as can be, so the whole deliberation is priced."""
    return json.dumps({"ambiguity": 1, "complexity": 1, "stakes": 1, "contextDependency": 1, "reasoning": "estimate"})


def unsure(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    """The estimator's research: confidence 0, so a later rise lets gate 2 pass and the decision is priced."""
    return json.dumps({"findings": respond(name, persona, ctx), "confidence": 0})


def agreeing(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    """The estimator's ranking: everyone prefers the first alternative with reasons, so both gates pass."""
    labels = ctx.get("labels", [])
    scores = [{"alternative": label, **{d: 1.0 if i == 0 else 0.5 for d in
                                           ("impact", "quality", "feasibility", "reusability", "risk")}}
              for i, label in enumerate(labels)]
    return json.dumps({"scores": scores, "confidence": 1.0, "concern": f"estimate by {name}"})
