"""Early-exit tests for multi-round protocols: pure functions over a round's results.

Three tests, chosen by the `convergenceTest` setting:
- judge: the judge's convergence score (mean of its three axes) reaches a bar;
- titles: the set of finding titles (the answers' headings, normalised)
  changed by at most one since the previous round and most of them match it;
- agreement: the agreement meter reaches the consensus bar.
Each returns the figures it looked at, so the decision can be audited.
"""

from __future__ import annotations

import re

from typing_extensions import TypedDict


class Convergence(TypedDict, total=False):
    """What a convergence test looked at and whether it passed; recorded in the round."""

    test: str
    converged: bool
    value: float | None
    threshold: float
    changed: int
    matching: int
    titles: int


TESTS = ("judge", "titles", "agreement")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$|^\s*[-*]\s+\*\*(.+?)\*\*", re.MULTILINE)


def normalise_title(title: str) -> str:
    title = re.sub(r"^[\d.)\s]+", "", title.lower())
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", title).split())


def titles(texts: list[str]) -> set[str]:
    found = set()
    for text in texts:
        for m in HEADING.finditer(text):
            name = normalise_title(m.group(1) or m.group(2))
            if name:
                found.add(name)
    return found


def title_overlap(previous: set[str], current: set[str]) -> Convergence:
    changed, matching = len(previous ^ current), len(previous & current)
    return {"test": "titles", "changed": changed, "matching": matching, "titles": len(current),
            "converged": bool(current) and changed <= 1 and matching * 2 > len(current)}


def judge_test(score: float | None, bar: float) -> Convergence:
    return {"test": "judge", "value": score, "threshold": bar, "converged": score is not None and score >= bar}


def agreement_test(value: float | None, bar: float) -> Convergence:
    return {"test": "agreement", "value": value, "threshold": bar, "converged": value is not None and value >= bar}
