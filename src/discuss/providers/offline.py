"""The offline panel: simulated panelists for demos and tests, no network, no keys.

An `offline/<persona>` panelist answers from fixed phrase banks chosen by a
hash of what it is asked, so the same discussion always comes out the same.
Every text it writes says it is simulated, and the store marks its files.
"""

from __future__ import annotations

import json
import re

from ..calls import CallSpec, Move
from ..domain import Panelist, Usage
from ..text.standins import NOTE, TASKS, persona_of, pick
from .base import Completion, Diagnosis, Local, OnTokens


def play(spec: CallSpec, move: Move | None = None) -> str:
    """The offline panel's reply to a call: the task's own move, else a plain answer or conclusion."""
    name, persona = persona_of(spec.panelist.model)
    move = move or spec.offline or TASKS.get(spec.task)
    if move is None:
        raise ValueError(f"the offline panel cannot do {spec.task!r}")
    return move(name, persona, spec.context)


SOURCE = re.compile(r"^### \[(S\d+)\] ", re.MULTILINE)


def cite(text: str, spec: CallSpec, messages: list[dict[str, str]]) -> str:
    """An answer whose prompt carries sources cites one of them, as the prompt asks."""
    labels = SOURCE.findall(messages[-1]["content"]) if spec.task == "respond" and messages else []
    if not labels:
        return text
    label = pick(labels, 1, spec.panelist.id, spec.context.get("round"))[0]
    return text.replace(f"\n\n{NOTE}", f"\n\nThe figures above lean on [{label}].\n\n{NOTE}")


def decide(text: str, spec: CallSpec) -> str:
    """A conclusion asked for a decision names one of its options, drawn from the question's text, so the
    demo's verdict has one; the simulated panel never claims to have weighed the options."""
    options = ((spec.schema or {}).get("properties", {}).get("decision") or {}).get("enum")
    if spec.task != "conclude" or not options:
        return text
    reply = json.loads(text)
    reply["decision"] = pick(list(options), 1, spec.context.get("title"))[0]
    return json.dumps(reply, indent=2)


class OfflineProvider(Local):
    """The simulated panel as a provider: no network, no keys, no cost, the same reply every time."""

    simulated = True

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float,
                       on_tokens: OnTokens | None = None) -> Completion:
        text = decide(cite(play(spec), spec, messages), spec)
        return Completion(text, Usage(prompt_tokens=sum(len(m["content"]) for m in messages) // 4,
                            completion_tokens=len(text) // 4, cost=0.0, calls=1))

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        return Diagnosis("ok (offline)", "ok (offline)", "ok (offline)")


OFFLINE = OfflineProvider()
