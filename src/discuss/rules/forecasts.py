"""Forecasts and how they are graded: the panel's probability, Brier and log scores, intervals, calibration.

Pure arithmetic over probabilities and outcomes (1 for yes, 0 for no), so a
score can be computed by hand and checked to the last digit:

- the panel's probability is the mean of its members' last-round
  probabilities (a member who gave none abstains; no member gave one: none);
- Brier score: the mean of (p - y)^2 (0 is perfect, 0.25 is always saying 0.5);
- log score: the mean of ln(p) where the answer was yes and ln(1 - p) where it
  was no (0 is perfect, lower is worse), with p kept within [EPSILON, 1 - EPSILON]
  so a certainty that proved wrong costs a large finite amount, not infinity;
- a 95% interval of a mean: mean +- 1.96 standard errors (t is not used: the
  intervals say how far to trust a figure, they test nothing), of a share:
  Wilson's score interval;
- calibration: the stated probabilities in BINS bins of equal width, each with
  how many fell in it, their mean, and the share of them that came true.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

EPSILON = 1e-6
BINS = 5
Z = 1.96
PANEL_RULE = "the mean of the members' last-round probabilities; a member who gave none abstains"


def panel_probability(last: dict[str, float | None]) -> float | None:
    given = [p for p in last.values() if p is not None]
    return sum(given) / len(given) if given else None


def brier(pairs: Sequence[tuple[float, int]]) -> list[float]:
    return [(p - y) ** 2 for p, y in pairs]


def log_score(pairs: Sequence[tuple[float, int]]) -> list[float]:
    kept = [(min(max(p, EPSILON), 1 - EPSILON), y) for p, y in pairs]
    return [math.log(p) if y else math.log(1 - p) for p, y in kept]


def mean_interval(values: Sequence[float]) -> dict[str, float | None]:
    """{mean, low, high} of the values: the normal 95% interval of their mean (none for fewer than two)."""
    n = len(values)
    if not n:
        return {"mean": None, "low": None, "high": None}
    mean = sum(values) / n
    if n < 2:
        return {"mean": mean, "low": None, "high": None}
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
    return {"mean": mean, "low": mean - Z * spread, "high": mean + Z * spread}


def share_interval(hits: int, n: int) -> dict[str, float | None]:
    """{share, low, high}: Wilson's 95% score interval of hits out of n."""
    if not n:
        return {"share": None, "low": None, "high": None}
    share = hits / n
    centre = (share + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(share * (1 - share) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return {"share": share, "low": max(0.0, centre - half), "high": min(1.0, centre + half)}


def calibration(pairs: Sequence[tuple[float, int]], bins: int = BINS) -> list[dict[str, float | int | None]]:
    """Per bin [low, high) (the last takes 1): n, the mean stated probability, the share that came true."""
    rows = []
    for i in range(bins):
        low, high = i / bins, (i + 1) / bins
        inside = [(p, y) for p, y in pairs if low <= p < high or (i == bins - 1 and p == 1)]
        rows.append({"low": low, "high": high, "n": len(inside),
                     "stated": sum(p for p, _ in inside) / len(inside) if inside else None,
                     "cameTrue": sum(y for _, y in inside) / len(inside) if inside else None})
    return rows
