"""Scoring, gates and conformity checks of the deliberate protocol: pure functions.

Each persona scores every alternative on five weighted dimensions; an
alternative's consensus score is the mean of the personas' weighted scores,
and the best alternative's score is held against a threshold chosen by the
question's task type. Two gates and three conformity warnings say whether
the agreement can be trusted.
"""

from __future__ import annotations

from itertools import combinations

from discuss.plugin import lexical_similarity

from .notes import Check, Consensus, Gate, Ranking

WEIGHTS = {"impact": 0.25, "quality": 0.25, "feasibility": 0.20, "reusability": 0.15, "risk": 0.15}
THRESHOLDS = {"security": 0.85, "architecture": 0.80, "default": 0.70, "refactoring": 0.65, "documentation": 0.50}
# What makes a question uncertain enough to deliberate; each rated 0 (not at all) to 1.
DIMENSIONS = ("ambiguity", "complexity", "stakes", "contextDependency")
ALIKE = 0.8  # concerns this similar read as copied
CLUSTER = 0.03  # weighted scores this close read as herded (0.3 on a 10-point scale)


def threshold(task_type: str | None) -> float:
    return THRESHOLDS.get((task_type or "default").lower(), THRESHOLDS["default"])


def weighted(scores: dict[str, float]) -> float:
    return round(sum(WEIGHTS[d] * scores[d] for d in WEIGHTS), 4)


def consensus(rankings: dict[str, Ranking]) -> Consensus:
    """rankings: persona -> {"scores": {alternative: {dimension: 0..1}}, ...}.

    Returns each alternative's mean weighted score, the best one, and each
    persona's preferred alternative.
    """
    per_alt: dict[str, list[float]] = {}
    preferred: dict[str, str | None] = {}
    for persona, ranking in rankings.items():
        totals = {alt: weighted(s) for alt, s in ranking["scores"].items()}
        for alt, value in totals.items():
            per_alt.setdefault(alt, []).append(value)
        preferred[persona] = max(sorted(totals), key=lambda a: totals[a]) if totals else None
    means = {alt: round(sum(v) / len(v), 4) for alt, v in sorted(per_alt.items())}
    best = max(sorted(means), key=lambda a: means[a]) if means else None
    return {"means": means, "best": best, "score": means[best] if best else 0.0, "preferred": preferred}


def dissenters(result: Consensus) -> list[str]:
    return sorted(p for p, alt in result["preferred"].items() if alt != result["best"])


def confidence(scores: dict[str, float]) -> float:
    """1 minus the mean of the four dimensions: one high dimension alone keeps it at 0.75 or above."""
    return round(1 - sum(scores[d] for d in DIMENSIONS) / len(DIMENSIONS), 4)


def confidence_class(score: float) -> str:
    return "strong" if score > 0.85 else "moderate" if score >= 0.70 else "weak"


def _check(name: str, passed: bool, detail: str) -> Check:
    return {"check": name, "passed": bool(passed), "detail": detail}


def gate_one(reached_ranking: bool, rankings: dict[str, Ranking], result: Consensus, bar: float,
             least: int = 2) -> Gate:
    dissent = dissenters(result)
    silent = [p for p in dissent if not rankings[p].get("concern")]
    checks = [
        _check("phase reached", reached_ranking, "ranking done" if reached_ranking else "ranking not reached"),
        _check("enough personas", len(rankings) >= least, f"{len(rankings)} finished, {least} needed"),
        _check("threshold met", result["score"] >= bar, f"consensus {result['score']} against {bar}"),
        _check("dissent has reasons", not silent,
               "no dissent" if not dissent else f"without a reason: {', '.join(silent)}" if silent
               else f"{len(dissent)} dissent(s), each with a reason"),
    ]
    return {"passed": all(c["passed"] for c in checks), "checks": checks}


def gate_two(rankings: dict[str, Ranking], personas: dict[str, str], result: Consensus, initial: float | None,
             final: float | None) -> Gate:
    distinct = len(set(personas[p] for p in rankings))
    dissent = dissenters(result)
    level = confidence_class(result["score"])
    checks = [
        _check("distinct personas", distinct >= 2, f"{distinct} distinct personas"),
        _check("dissent documented", all(rankings[p].get("concern") for p in dissent),
               f"{len(dissent)} dissent(s)"),
        _check("two or more alternatives", len(result["means"]) >= 2, f"{len(result['means'])} alternatives"),
        _check("confidence class", level != "weak", f"{level} ({result['score']})"),
        _check("confidence improved", initial is not None and final is not None and final > initial,
               f"initial {initial}, final {final}"),
    ]
    return {"passed": all(c["passed"] for c in checks), "checks": checks}


def conformity(rankings: dict[str, Ranking], result: Consensus, conflicts: set[frozenset[str]]) -> list[str]:
    """Warnings that agreement may be herding rather than judgement."""
    warnings = []
    concerns = [(p, r["concern"]) for p, r in rankings.items() if r.get("concern")]
    for (a, x), (b, y) in combinations(concerns, 2):
        if lexical_similarity(x, y) >= ALIKE:
            warnings.append(f"{a} and {b} word their concerns alike")
    best = result["best"]
    values = [weighted(r["scores"][best]) for r in rankings.values() if best in r["scores"]]
    if len(values) >= 3 and max(values) - min(values) <= CLUSTER:
        warnings.append(f"scores for the best alternative cluster within {max(values) - min(values):.3f}")
    agreeing = [p for p, alt in result["preferred"].items() if alt == best]
    clashing = [f"{a}/{b}" for a, b in combinations(sorted(agreeing), 2) if frozenset((a, b)) in conflicts]
    if len(agreeing) == len(rankings) >= 2 and clashing:
        warnings.append(f"unanimous although priorities conflict ({', '.join(clashing)})")
    return warnings
