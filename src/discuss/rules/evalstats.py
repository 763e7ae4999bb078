"""The figures of an eval: pure. Intervals for an accuracy, paired differences between two arms over the same
items, and McNemar's exact test of whether two arms err on different items more than chance would say."""

from __future__ import annotations

import math
import random


def wilson(correct: int, n: int, z: float = 1.959963984540054) -> dict[str, float | None]:
    """An accuracy with its 95% Wilson score interval: {estimate, low, high}."""
    if n <= 0:
        return {"estimate": None, "low": None, "high": None}
    p = correct / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return {"estimate": round(p, 4), "low": round(max(0.0, centre - half), 4), "high": round(min(1.0, centre + half), 4)}


BOOTSTRAP_DRAWS = 2000


def paired(a: list[bool], b: list[bool], seed: int = 0, draws: int = BOOTSTRAP_DRAWS) -> dict[str, float | int | None]:
    """Arm a's accuracy minus arm b's over the same items, with a seeded paired-bootstrap 95% interval and
    McNemar's exact p-value; {difference, low, high, aWins, bWins, pValue}."""
    n = len(a)
    if n == 0 or len(b) != n:
        return {"difference": None, "low": None, "high": None, "aWins": 0, "bWins": 0, "pValue": None}
    diffs = [int(x) - int(y) for x, y in zip(a, b)]
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(draws))  # resampled items, n at a time
    a_wins, b_wins = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    return {"difference": round(sum(diffs) / n, 4), "low": round(means[int(0.025 * draws)], 4),
            "high": round(means[int(0.975 * draws) - 1], 4), "aWins": a_wins, "bWins": b_wins,
            "pValue": round(mcnemar(a_wins, b_wins), 6)}


def mcnemar(b: int, c: int) -> float:
    """McNemar's exact two-sided p-value for b and c discordant pairs."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def plurality(answers: list[str | None]) -> str | None:
    """The answer given most often (ties to the one given first); None where no answer could be read."""
    counts: dict[str, int] = {}
    for a in answers:
        if a is not None:
            counts[a] = counts.get(a, 0) + 1
    if not counts:
        return None
    best = max(counts.values())
    return next(a for a in answers if a is not None and counts[a] == best)
