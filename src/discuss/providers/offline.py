"""The offline panel: simulated panelists for demos and tests, no network, no keys.

An `offline/<persona>` panelist answers from fixed phrase banks chosen by a
hash of what it is asked, so the same discussion always comes out the same.
Every text it writes says it is simulated, and the store marks its files.
"""

from __future__ import annotations

import hashlib
import json

from ..calls import CallSpec
from ..domain import Panelist, Usage
from . import Diagnosis

PERSONAS = {
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
DEFAULT_PERSONA = {
    "lens": "a balanced view of benefits and costs",
    "patience": 2,
    "moves": PERSONAS["pragmatist"]["moves"][:2] + PERSONAS["skeptic"]["moves"][:2],
    "risks": ["unclear ownership", "underestimated effort"],
}
NOTE = "_Simulated reply from the offline panel; no language model wrote this._"


def _hash(*parts) -> int:
    return int(hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def persona_of(model: str) -> tuple[str, dict]:
    name = model.split("/", 1)[-1]
    return name, PERSONAS.get(name, DEFAULT_PERSONA)


def _pick(items: list[str], count: int, *seed) -> list[str]:
    start = _hash(*seed) % len(items)
    return [items[(start + i) % len(items)] for i in range(min(count, len(items)))]


def respond(name: str, persona: dict, ctx: dict) -> str:
    rnd = ctx.get("round", 1)
    moves = _pick(persona["moves"], 3, name, ctx.get("title"), rnd)
    risks = _pick(persona["risks"], 2, name, rnd)
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


def vote(name: str, persona: dict, ctx: dict) -> str:
    votes = []
    for label, text in sorted(ctx.get("labels", {}).items()):
        own = persona["lens"] in text
        score = _hash(name, text) % 5
        choice = "APPROVE" if own or score >= 2 else ("NEUTRAL" if score == 1 else "REJECT")
        why = {
            "APPROVE": "Concrete and well argued; it moves the discussion forward.",
            "NEUTRAL": "Reasonable, but it leaves the main trade-off open.",
            "REJECT": "It restates earlier points without new evidence.",
        }[choice]
        votes.append({"label": label, "vote": choice, "reasoning": why})
    done = ctx.get("round", 1) >= persona["patience"]
    return json.dumps({
        "votes": votes,
        "termination": {
            "vote": "CONCLUDE" if done else "CONTINUE",
            "reasoning": "The positions have converged enough to act on."
            if done else "Another round should test the open risks.",
        },
    }, indent=2)


def conclude(name: str, persona: dict, ctx: dict) -> str:
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
        "minorityPositions": [
            {
                "position": "Design for the long-term scale from the start.",
                "heldBy": ctx.get("minority", "visionary"),
                "reasoning": "Retrofitting scale later may cost more than building it in.",
            }
        ],
    }, indent=2)


def critique(name: str, persona: dict, ctx: dict) -> str:
    critiques = []
    for label, text in sorted(ctx.get("labels", {}).items()):
        risk = _pick(persona["risks"], 1, name, label, text)[0]
        move = _pick(persona["moves"], 1, name, text)[0]
        critiques.append({"label": label, "critique": (
            f"Seen from {persona['lens']}, answer {label} is a fair start but says too little about {risk}. "
            f"{move} (Simulated critique.)")})
    return json.dumps({"critiques": critiques}, indent=2)


def rebut(name: str, persona: dict, ctx: dict) -> str:
    moves = _pick(persona["moves"], 2, name, "rebut", ctx.get("title"))
    return (
        "## Response to the critiques\n\n- The point about risk is fair; the revised answer names a fallback.\n"
        "- The staging stays: it is what keeps each decision reversible.\n\n"
        "## Revised answer\n\n" + "\n".join(f"- {m}" for m in moves) + f"\n\n{NOTE}\n"
    )


def review(name: str, persona: dict, ctx: dict) -> str:
    risks = _pick(persona["risks"], 2, name, "review")
    return (
        f"## Review from {persona['lens']}\n\n"
        + "\n".join(f"- The draft does not address {r}; add a mitigation." for r in risks)
        + "\n- Keep the staged structure: it is the draft's strength.\n\n" + NOTE + "\n"
    )


def stance(name: str, persona: dict, ctx: dict) -> str:
    labels = sorted(ctx.get("labels", {}))
    rnd = ctx.get("round", 2)
    agreements = [{"with": lab, "on": "proceeding in stages"} for lab in labels[:1]]
    disagreements = [{"with": lab, "on": "how fast to scale", "why": f"seen from {persona['lens']}, "
                      "the evidence does not yet support it"} for lab in labels[1:2]]
    position = respond(name, persona, {**ctx, "round": rnd})
    return json.dumps({"agreements": agreements, "disagreements": disagreements, "position": position,
                       "confidence": round(min(0.5 + 0.15 * rnd, 0.95), 2)}, indent=2)


def judge(name: str, persona: dict, ctx: dict) -> str:
    level = round(min(0.45 + 0.2 * ctx.get("round", 2), 1.0), 2)  # positions converge as rounds go on
    return json.dumps({"recommendation": level, "keyFacts": level, "caveats": round(level - 0.05, 2),
                       "reasoning": "The simulated positions share their recommendation and most caveats."})


def match(name: str, persona: dict, ctx: dict) -> str:
    texts = ctx.get("labels", {})
    pick = "A" if _hash(name, texts.get("A"), "A") >= _hash(name, texts.get("B"), "B") else "B"
    return json.dumps({"winner": pick, "reasoning": f"Seen from {persona['lens']}, answer {pick} is more "
                       "concrete about its first step. (Simulated judgement.)"})


def split(name: str, persona: dict, ctx: dict) -> str:
    return json.dumps({"parts": [
        {"title": "Options", "question": f"Which options exist for \"{ctx.get('title')}\", and what does each cost?"},
        {"title": "Risks", "question": "What could go wrong with each option, and how likely is it?"},
        {"title": "First step", "question": "What is the smallest first step that tests the choice?"},
    ]})


def research(name: str, persona: dict, ctx: dict) -> str:
    role = ctx.get("persona", {})
    findings = respond(name, persona, ctx).replace("## Position", f"## Findings of the {role.get('name', name)}")
    return json.dumps({"findings": findings, "confidence": round(0.5 + (_hash(name, "c") % 20) / 100, 2)})


def alternatives(name: str, persona: dict, ctx: dict) -> str:
    return json.dumps({"alternatives": [
        {"title": "Staged pilot", "description": "A small pilot with explicit criteria before scaling."},
        {"title": "Full build-out", "description": "Commit to the complete design now to capture scale early."},
        {"title": "Wait and study", "description": "Fund studies for a year, then decide."},
    ]})


def rank(name: str, persona: dict, ctx: dict) -> str:
    role = ctx.get("persona", {}).get("id", name)
    scores = []
    for i, label in enumerate(ctx.get("labels", [])):
        base = 0.8 if i == 0 else 0.55 - 0.1 * i
        if role == "contrarian":  # the contrarian prefers the option nobody else does
            base = 0.85 if i == 1 else 0.5
        jitter = (_hash(role, label) % 10) / 100
        scores.append({"alternative": label, **{d: round(min(base + jitter, 1.0), 2) for d in
                                                  ("impact", "quality", "feasibility", "reusability", "risk")}})
    return json.dumps({"scores": scores, "confidence": 0.8,
                       "concern": f"Seen from the {role} perspective, the alternatives underplay "
                                  f"{_pick(persona['risks'], 1, role)[0]}."})


TASKS = {"respond": respond, "stance": stance, "judge": judge, "match": match, "split": split,
         "research": research, "alternatives": alternatives, "rank": rank, "vote": vote, "conclude": conclude, "critique": critique, "rebut": rebut,
         "review": review}


def reply(panelist: Panelist, task: str, ctx: dict) -> str:
    name, persona = persona_of(panelist.model)
    if task not in TASKS:
        raise ValueError(f"the offline panel cannot do {task!r}")
    return TASKS[task](name, persona, ctx)


class OfflineProvider:
    """The simulated panel as a provider: no network, no keys, no cost, the same reply every time."""

    simulated = True

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float) -> tuple[str, Usage]:
        text = reply(spec.panelist, spec.task, spec.context)
        return text, Usage(prompt_tokens=sum(len(m["content"]) for m in messages) // 4,
                           completion_tokens=len(text) // 4, cost=0.0, calls=1)

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        return 0.0

    def missing_keys(self, panelists: list[Panelist]) -> list[str]:
        return []

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        return Diagnosis("ok (offline)", "ok (offline)", "ok (offline)")


OFFLINE = OfflineProvider()
