"""The passages of a long source that bear on the question: Okapi BM25 over its paragraphs, pure and
deterministic (the same text and question give the same passages).

A source longer than its share of the prompt is cut into paragraphs; each is
scored against the question's words (title and background); the best are
kept while they fit, and shown in the order the source has them, each
marked with where it stands. Thirty lines of arithmetic, so no index
library (and its numeric stack) is loaded for a handful of documents.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

WORD = re.compile(r"\w+")
# Words too common to tell paragraphs apart.
STOP = frozenset("a an and are as at be by for from has have in is it its of on or that the this to was were "
                 "will with what which how why who when should would can could".split())


def words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.casefold()) if len(w) > 1 and w not in STOP]


def paragraphs(text: str) -> list[str]:
    """Blocks parted by blank lines; a text with none, by lines."""
    parts = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return parts if len(parts) > 1 else [p.strip() for p in text.splitlines() if p.strip()]


def bm25(docs: list[str], query: str, k1: float = 1.5, b: float = 0.75) -> list[float]:
    """Each document's BM25 score for the query."""
    terms = set(words(query))
    bags = [Counter(words(d)) for d in docs]
    n = len(docs)
    average = sum(sum(bag.values()) for bag in bags) / n if n else 0.0
    holding = {t: sum(1 for bag in bags if t in bag) for t in terms}
    scores = []
    for bag in bags:
        length, score = sum(bag.values()), 0.0
        for t in terms:
            f = bag.get(t, 0)
            if f:
                idf = math.log(1 + (n - holding[t] + 0.5) / (holding[t] + 0.5))
                score += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * length / (average or 1)))
        scores.append(score)
    return scores


def select(text: str, query: str, budget: int, cost: Callable[[str], int]) -> tuple[list[tuple[int, str]], int]:
    """The paragraphs to show, as (place, text) in document order, within `budget` by `cost`; and how many
    paragraphs the source has."""
    parts = paragraphs(text)
    scores = bm25(parts, query)
    order = sorted(range(len(parts)), key=lambda i: (-scores[i], i))
    chosen, spent = [], 0
    for i in order:
        c = cost(parts[i]) + 8  # the marker
        if spent + c > budget:
            continue
        chosen.append(i)
        spent += c
    return [(i + 1, parts[i]) for i in sorted(chosen)], len(parts)
