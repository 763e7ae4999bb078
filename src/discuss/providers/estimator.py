"""Stand-ins that price a run: every reply as long as it may be, every ballot asking to go on.

The protocol runs for real against this provider on a copy of the
discussion, so the calls and prompts are the ones a run would make; the
usage of each call is its measured prompt and its maximum completion, priced
by the provider that would really answer.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import re
from collections.abc import Callable, Iterator
from functools import cache, lru_cache
from typing import Any

from ..calls import CallSpec
from ..domain import Panelist, Usage
from ..text import tokens
from ..text.prompting import estimate_tokens
from . import offline
from .base import Completion, Diagnosis, OnTokens, Provider

# Short words: a stand-in holds as many tokens a character as prose does, where a prompt cuts text by characters.
WORD = re.compile(r" [a-z]{2,4}")


@cache
def one_token_words() -> tuple[str, ...]:
    """Plain words the tokenizer reads as one token each, so a stand-in's text counts as real text of
    its length would (invented words count many tokens each: a bound of no use); none without it."""
    enc = tokens.encoding()
    if enc is None:
        return ()
    found = (enc.decode([i]) for i in range(1000, 40000))
    return tuple(w.strip() for w in found if WORD.fullmatch(w))


def filler(p: Panelist, key: str, budget: int) -> str:
    """Text of about `budget` tokens, in words of its own per panelist and call: alike stand-ins would
    meet an agreement test and stop early."""
    return _filler(p.id, key, budget)


@lru_cache(maxsize=2048)
def _filler(pid: str, key: str, budget: int) -> str:
    """Made once a batch: the same panelist, call and length give the same words in every question priced
    (`run --all --estimate` over thousands of questions measured each filler afresh)."""
    if budget <= 0:
        return ""
    words = one_token_words()
    rng = random.Random(f"{pid}/{key}")
    drawn = rng.choices(words, k=budget) if words else [f"{pid}{key}{i}" for i in range(budget)]
    text = " ".join(drawn)
    return text[:tokens.fitting(text, budget)].rstrip()


def stand_in(spec: CallSpec) -> str:
    """The longest reply the call may get: the worst-case move, filled up to the call's token limit."""
    p = spec.panelist
    as_offline = dataclasses.replace(spec, panelist=Panelist(p.id, f"offline/{p.id}", p.name))
    text = offline.play(as_offline, spec.worst_case)
    # A reply of `max_tokens` of the provider's tokens counts up to MARGIN times that by our counter when a
    # later prompt quotes it: the stand-in is that long.
    filler_text = filler(p, spec.key, math.ceil(spec.max_tokens * tokens.MARGIN) - estimate_tokens(text))
    if spec.validate is None:
        return f"{text}\n{filler_text}\n"
    # A structured reply keeps its shape; its longest text grows, as later prompts may quote it.
    try:
        value = json.loads(text)
    except ValueError:
        return text
    longest = max(_strings(value), key=lambda found: len(found[1]), default=None)
    if longest is None:
        return text
    holder, key = longest[0]
    holder[key] = f"{holder[key]} {filler_text}"
    return json.dumps(value)


def _strings(value: Any) -> Iterator[tuple[tuple[Any, Any], str]]:
    """Every string in a JSON value, with the container and key that hold it."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        if isinstance(item, str):
            yield (value, key), item
        else:
            yield from _strings(item)


class EstimatorProvider:
    simulated = True

    def __init__(self, real: Callable[[Panelist], Provider]):
        self.real = real
        self.calls: list[tuple[str, str, bool]] = []  # panelist, task, whether its reply is structured
        self.shaped: list[tuple[Panelist, int, int]] = []  # each structured call: panelist, prompt, completion

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float,
                       on_tokens: OnTokens | None = None) -> Completion:
        self.calls.append((spec.panelist.id, spec.task, spec.validate is not None))
        prompt = sum(estimate_tokens(m["content"]) for m in messages)
        if spec.validate is not None:
            self.shaped.append((spec.panelist, prompt, spec.max_tokens))
        return Completion(stand_in(spec), Usage(prompt, spec.max_tokens, self.price(spec.panelist, prompt,
                                                                                     spec.max_tokens), 1))

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        return self.real(p).price(p, prompt_tokens, completion_tokens)

    def reasks(self, asks: int, reask_tokens: int = 400) -> Usage:
        """The most the re-asks could add: every structured reply refused `asks - 1` times.

        Each re-ask resends the prompt with every refused reply (at its
        token limit) and the refusal, the schema included.
        """
        total = Usage(cost=0.0)
        for p, prompt, completion in self.shaped:
            for k in range(1, asks):
                sent = prompt + k * (completion + reask_tokens)
                price = self.price(p, sent, completion)
                total.add(Usage(sent, completion, price, 1))
        return total

    def missing_keys(self, panelists: list[Panelist]) -> list[str]:
        return []

    def warm_up(self, panelists: list[Panelist]) -> None:
        pass

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        return self.real(p).diagnose(p, timeout)
