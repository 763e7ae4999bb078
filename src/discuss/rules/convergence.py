"""Early-exit tests for multi-round protocols: pure functions over a round's results.

Three tests, chosen by the `convergenceTest` setting:
- judge: the judge's convergence score (mean of its three axes) reaches a bar;
- titles: the set of finding titles (the answers' headings and bold list
  heads, normalised, the sections every answer has, such as "Position" or
  "Risks", left out) changed by at most one since the previous round and
  most of them match it, two titles matching when they nearly read alike;
- agreement: the agreement meter reaches the consensus bar.
Each returns the figures it looked at, so the decision can be audited.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

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
# Section names of an answer's form, not findings: they match between any two rounds.
GENERIC = frozenset((
    "position", "reasoning", "risks", "risks to watch", "summary", "answer", "my answer", "revised answer",
    "recommendation", "recommendations", "conclusion", "conclusions", "analysis", "background", "overview",
    "introduction", "key points", "assumptions", "evidence", "next steps", "proposal", "rationale", "trade offs",
    "tradeoffs", "open questions", "caveats", "findings", "response", "response to the critiques", "discussion",
))
# Two titles match when this alike (difflib's ratio) or sharing this share of their words.
NEAR_RATIO, NEAR_WORDS = 0.8, 0.6
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$|^\s*[-*]\s+\*\*(.+?)\*\*", re.MULTILINE)


def normalise_title(title: str) -> str:
    title = re.sub(r"^[\d.)\s]+", "", title.lower())
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", title).split())


def titles(texts: list[str]) -> set[str]:
    """The finding titles of a round's answers: headings and bold list heads, the answer's form left out."""
    found = set()
    for text in texts:
        for m in HEADING.finditer(text):
            name = normalise_title(m.group(1) or m.group(2))
            if name and name not in GENERIC:
                found.add(name)
    return found


def near(a: str, b: str) -> bool:
    """Two titles name the same finding: nearly the same letters, or mostly the same words."""
    if a == b:
        return True
    words_a, words_b = set(a.split()), set(b.split())
    shared = len(words_a & words_b) / len(words_a | words_b)
    return shared >= NEAR_WORDS or SequenceMatcher(None, a, b).ratio() >= NEAR_RATIO


def title_overlap(previous: set[str], current: set[str]) -> Convergence:
    """Converged when at most one finding came or went and most of this round's findings were there before."""
    kept_before = {p for p in previous if any(near(p, c) for c in current)}
    kept_now = {c for c in current if any(near(p, c) for p in previous)}
    changed = len(previous - kept_before) + len(current - kept_now)
    return {"test": "titles", "changed": changed, "matching": len(kept_now), "titles": len(current),
            "converged": bool(current) and changed <= 1 and len(kept_now) * 2 > len(current)}


def judge_test(score: float | None, bar: float) -> Convergence:
    return {"test": "judge", "value": score, "threshold": bar, "converged": score is not None and score >= bar}


def agreement_test(value: float | None, bar: float) -> Convergence:
    return {"test": "agreement", "value": value, "threshold": bar, "converged": value is not None and value >= bar}


def in_words(check: Convergence) -> str:
    """What a test found, for people: `0.83, under the 0.85 needed`; `4 of 5 findings kept, 1 changed`."""
    if check.get("test") == "titles":
        return f"{check.get('matching', 0)} of {check.get('titles', 0)} findings kept, {check.get('changed', 0)} changed"
    value, bar = check.get("value"), check.get("threshold", 0.0)
    if value is None:
        return "no score"
    return f"{value:.2f}, {'at or above' if value >= bar else 'under'} the {bar:.2f} needed"
