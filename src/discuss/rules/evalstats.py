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


Z_ALPHA, Z_POWER = 1.959963984540054, 0.8416212335729143  # two-sided alpha 0.05; power 0.80


def detectable(n: int, discordant: int) -> float | None:
    """The smallest difference in accuracy between two arms that McNemar's test over `n` paired items detects
    with 80% power at alpha 0.05, by the normal approximation (Connor's): d sqrt(n) = z_alpha sqrt(p) +
    z_power sqrt(p - d^2), with p the share of items the two arms disagree on (`discordant` of `n`), at least d
    (two arms that differ by d disagree on at least that share). None for no items."""
    if n <= 0:
        return None

    def short(d: float) -> float:  # > 0 once d is detectable
        p = max(discordant / n, d)
        return d * math.sqrt(n) - Z_ALPHA * math.sqrt(p) - Z_POWER * math.sqrt(max(p - d * d, 0.0))

    low, high = 0.0, 1.0
    if short(high) <= 0:
        return 1.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (low, mid) if short(mid) > 0 else (mid, high)
    return round(high, 4)


def effective_voters(errors: dict[str, list[bool | None]]) -> dict[str, float | int | None]:
    """How many independent voters a panel's members are worth, from how often they err together: the mean
    correlation (phi) of their errors over the items each pair both answered, r, and n / (1 + (n - 1) r), the
    design effect's count of independent voters (n where they err independently, 1 where always together).
    {members, errorCorrelation, effectiveVoters}; None where no pair has an item in common with both varying."""
    ids = sorted(errors)
    phis = []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            pairs = [(x, y) for x, y in zip(errors[a], errors[b]) if x is not None and y is not None]
            if (phi := _phi(pairs)) is not None:
                phis.append(phi)
    n = len(ids)
    if not phis:
        return {"members": n, "errorCorrelation": None, "effectiveVoters": None}
    r = sum(phis) / len(phis)
    return {"members": n, "errorCorrelation": round(r, 4),
            "effectiveVoters": round(n / (1 + (n - 1) * max(r, 0.0)), 3)}


def _phi(pairs: list[tuple[bool, bool]]) -> float | None:
    """The correlation of two yes/no series (1 where both err on the same items); None where either is
    constant (its correlation is not defined)."""
    n = len(pairs)
    if n == 0:
        return None
    both = sum(x and y for x, y in pairs)
    a = sum(x for x, _ in pairs)
    b = sum(y for _, y in pairs)
    spread = a * (n - a) * b * (n - b)
    return None if spread == 0 else (n * both - a * b) / math.sqrt(spread)
