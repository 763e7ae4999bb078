"""Spread of a sample: mean, sample standard deviation, a seeded bootstrap interval, the modal share.

Pure and deterministic: the same values give the same figures, so a report
made twice from the same files is the same report.
"""

from __future__ import annotations

import functools
import math
import random
from collections import Counter
from statistics import mean, stdev
from typing import Any

RESAMPLES = 2000


def spread(values: list[float]) -> dict[str, Any]:
    """Mean, sample sd (None under two values) and a 95% percentile bootstrap interval of the mean."""
    if not values:
        return {"mean": None, "sd": None, "ci95": None}
    found = _spread(tuple(values))
    return {**found, "ci95": list(found["ci95"])}  # a copy: the caller may change it


@functools.lru_cache(maxsize=4096)
def _spread(values: tuple[float, ...]) -> dict[str, Any]:
    """The figures of a sample, once: a site build asks for each panelist's on its page, in the archive's
    data and on the leaderboard."""
    draw, n = random.Random(len(values)), len(values)
    # fsum over n, not statistics.mean: that one is exact through fractions, forty times slower, and a site
    # build makes this interval for every panelist of every page.
    means = sorted(math.fsum(draw.choices(values, k=n)) / n for _ in range(RESAMPLES))
    return {"mean": round(mean(values), 3), "sd": round(stdev(values), 3) if len(values) > 1 else None,
            "ci95": (round(means[int(0.025 * RESAMPLES)], 3), round(means[int(0.975 * RESAMPLES) - 1], 3))}


def modal_share(values: list[Any]) -> tuple[Any, float | None]:
    """The most common value (the first seen among equals) and the share of values that are it."""
    known = [v for v in values if v is not None]
    if not known:
        return None, None
    counts = Counter(known)
    top = max(counts.values())
    modal = next(v for v in known if counts[v] == top)
    return modal, round(top / len(values), 3)
