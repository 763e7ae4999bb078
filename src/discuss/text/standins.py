"""Stand-in replies: the text the offline panel writes for every task, and the estimator's worst cases.

Shared by the offline panel (demos and tests) and by each protocol's
`moves.py` (its tasks' stand-ins), so a stand-in is written once. Every
text here says it is simulated; the same call always gets the same text.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

PERSONAS: dict[str, dict[str, Any]] = {
    "pragmatist": {
        "lens": "what can be built and verified first",
        "patience": 2,
        "moves": [
            "Start with the smallest design that can be tested end to end, then grow it.",
            "Prefer options that reuse existing infrastructure and proven suppliers.",
            "Fix the interfaces early; the internals can change later without rework.",
            "Budget a measurable pilot before committing to the full programme.",
        ],
        "risks": ["schedule slip from late integration", "cost growth from custom parts"],
    },
    "skeptic": {
        "lens": "what could go wrong and what is still unproven",
        "patience": 3,
        "moves": [
            "The evidence for the headline figures is thin; ask for independent estimates.",
            "Every single point of failure needs a fallback that has been exercised.",
            "Assumptions about maintenance costs are optimistic by a wide margin.",
            "A staged decision with explicit exit criteria limits the downside.",
        ],
        "risks": ["unvalidated assumptions", "cascading failures", "hidden operating costs"],
    },
    "visionary": {
        "lens": "where the long-term value lies",
        "patience": 2,
        "moves": [
            "Design for the scale we want in ten years, not for the first unit.",
            "Open standards let other teams build on the work and multiply its value.",
            "Modularity turns each failure into a lesson rather than a setback.",
            "The choice made now should keep the most options open later.",
        ],
        "risks": ["over-engineering the first phase", "losing focus on near-term milestones"],
    },
}
DEFAULT_PERSONA: dict[str, Any] = {
    "lens": "a balanced view of benefits and costs",
    "patience": 2,
    "moves": PERSONAS["pragmatist"]["moves"][:2] + PERSONAS["skeptic"]["moves"][:2],
    "risks": ["unclear ownership", "underestimated effort"],
}
NOTE = "_Simulated reply from the offline panel; no language model wrote this._"


def hash_of(*parts: object) -> int:
    return int(hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def persona_of(model: str) -> tuple[str, dict[str, Any]]:
    name = model.split("/", 1)[-1]
    return name, PERSONAS.get(name, DEFAULT_PERSONA)


def pick(items: list[str], count: int, *seed: object) -> list[str]:
    start = hash_of(*seed) % len(items)
    return [items[(start + i) % len(items)] for i in range(min(count, len(items)))]


def respond(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    rnd = ctx.get("round", 1)
    moves = pick(persona["moves"], 3, name, ctx.get("title"), rnd)
    risks = pick(persona["risks"], 2, name, rnd)
    building = (
        "\n\nBuilding on the previous round, I keep what held up under review and "
        "tighten the parts that drew objections."
        if rnd > 1 else ""
    )
    return (
        f"## Position\n\nSeen from {persona['lens']}, my answer to "
        f"\"{ctx.get('title', 'the question')}\" is to proceed in stages.{building}\n\n"
        "## Reasoning\n\n" + "\n".join(f"- {m}" for m in moves) + "\n\n"
        "## Risks to watch\n\n" + "\n".join(f"- {r}" for r in risks) + f"\n\n{NOTE}\n"
    )




def conclude(name: str, persona: dict[str, Any], ctx: dict[str, Any]) -> str:
    title = ctx.get("title", "the question")
    attributed = {
        "triggers": ["A pilot result that misses its success criteria.",
                     "An independent estimate more than 30% above ours."],
        "confidence": "medium: 2 of 3 simulated panelists converged",
    } if ctx.get("attributed") else {}
    return json.dumps({**attributed,
        "summary": (
            f"The simulated panel recommends a staged approach to \"{title}\": a small, "
            "testable first step, explicit criteria for going further, and open interfaces "
            "so later phases can change the internals. (Simulated by the offline panel.)"
        ),
        "keyPoints": [
            "Proceed in stages, each with a measurable result.",
            "Fix interfaces early and keep internals replaceable.",
            "Independent estimates should back the headline figures.",
        ],
        "unresolvedQuestions": [
            "What evidence would justify moving past the first stage?",
            "Who owns maintenance once the system is running?",
        ],
        "recommendedActions": [
            "Define the pilot and its success criteria.",
            "Commission an independent cost estimate.",
            "Write down the interface specification and review it.",
        ],
        "minorityPositions": [dissent(ctx)] if "minority_model" in ctx else [],
    }, indent=2)


def dissent(ctx: dict[str, Any]) -> dict[str, str]:
    """The minority position, in the words of the persona that holds it."""
    name, persona = persona_of(ctx["minority_model"])
    return {"position": persona["moves"][0], "heldBy": ctx.get("minority", name),
            "reasoning": f"Seen from {persona['lens']}, the majority underrates {persona['risks'][0]}."}


TASKS = {"respond": respond, "conclude": conclude}
