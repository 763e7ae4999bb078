"""Stand-ins that price a run: every reply as long as it may be, every ballot asking to go on.

The protocol runs for real against this provider on a copy of the
discussion, so the calls and prompts are the ones a run would make; the
usage of each call is its measured prompt and its maximum completion, priced
by the provider that would really answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ..calls import CallSpec
from ..domain import Panelist, Usage
from ..prompting import estimate_tokens
from . import Diagnosis, Provider, offline


def stand_in(spec: CallSpec) -> str:
    p = spec.panelist
    as_offline = dataclasses.replace(spec, panelist=Panelist(p.id, f"offline/{p.id}", p.name))
    text = offline.play(as_offline, spec.worst_case)
    if spec.validate is not None:
        return text  # structured replies keep their shape
    filler = " ".join(["word"] * max(spec.max_tokens - estimate_tokens(text), 0))
    return f"{text}\n{filler}\n"


class EstimatorProvider:
    simulated = True

    def __init__(self, real: Callable[[Panelist], Provider]):
        self.real = real
        self.calls: list[tuple[str, str]] = []

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float) -> tuple[str, Usage]:
        self.calls.append((spec.panelist.id, spec.task))
        prompt = sum(estimate_tokens(m["content"]) for m in messages)
        return stand_in(spec), Usage(prompt, spec.max_tokens, self.price(spec.panelist, prompt, spec.max_tokens), 1)

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        return self.real(p).price(p, prompt_tokens, completion_tokens)

    def missing_keys(self, panelists: list[Panelist]) -> list[str]:
        return []

    def warm_up(self) -> None:
        pass

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        return self.real(p).diagnose(p, timeout)
