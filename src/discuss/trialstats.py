"""How a question fares over repeated, independent runs: pure figures over its trials.

For N discussions of one question: rounds and approval (mean and sample
standard deviation, with a 95% bootstrap interval of the mean), winner
stability (the share of trials whose final winner, and whose first
round's winner, is the most common one) and termination consistency (the
share ending for the most common reason). Approval is the APPROVE share of
the judgements cast, own ones included, invented ones left out. The
bootstrap is seeded: the same trials give the same figures.
"""

from __future__ import annotations

import random
from collections import Counter
from statistics import mean, stdev
from typing import Any

from .domain import Discussion
from .protocols import get_protocol

RESAMPLES = 2000


def spread(values: list[float]) -> dict[str, Any]:
    """Mean, sample sd (None under two values) and a 95% percentile bootstrap interval of the mean."""
    if not values:
        return {"mean": None, "sd": None, "ci95": None}
    draw = random.Random(len(values))
    means = sorted(mean(draw.choices(values, k=len(values))) for _ in range(RESAMPLES))
    return {"mean": round(mean(values), 3), "sd": round(stdev(values), 3) if len(values) > 1 else None,
            "ci95": [round(means[int(0.025 * RESAMPLES)], 3), round(means[int(0.975 * RESAMPLES) - 1], 3)]}


def modal_share(values: list[Any]) -> tuple[Any, float | None]:
    """The most common value (the first seen among equals) and the share of values that are it."""
    known = [v for v in values if v is not None]
    if not known:
        return None, None
    counts = Counter(known)
    top = max(counts.values())
    modal = next(v for v in known if counts[v] == top)
    return modal, round(top / len(values), 3)


def _winners(d: Discussion) -> tuple[str | None, str | None]:
    """(the final winner, the first round's winner); a protocol without round winners gives its result."""
    protocol = get_protocol(d.protocol)
    won = [protocol.figures(r).winner for r in d.rounds if r.complete]
    final = next((w for w in reversed(won) if w), None) or protocol.result_of(d)
    return final, (won[0] if won else None)


def _approval(d: Discussion) -> float | None:
    cast = [j for r in d.rounds for j in get_protocol(d.protocol).figures(r).judgements if not j.invented]
    return 100 * sum(j.approves for j in cast) / len(cast) if cast else None


def report(trials: list[Discussion]) -> dict[str, Any]:
    rounds = [float(sum(r.complete for r in d.rounds)) for d in trials]
    approvals = [a for a in (_approval(d) for d in trials) if a is not None]
    finals, firsts = zip(*(_winners(d) for d in trials)) if trials else ((), ())
    winner, final_share = modal_share(list(finals))
    _, first_share = modal_share(list(firsts))
    reason, consistency = modal_share([d.termination_reason for d in trials])
    return {
        "runs": len(trials),
        "finished": sum(d.concluded for d in trials),
        "rounds": spread(rounds),
        "approval": spread(approvals),
        "winnerStability": {"final": final_share, "firstRound": first_share, "winner": winner},
        "terminationConsistency": consistency, "terminationReason": reason,
    }
