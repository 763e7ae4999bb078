"""Replies queued per task, in process: the provider for unit tests of protocols and rules.

`queue("vote", ballot, ballot)` puts replies in line for every call of that
task (`panelist=` narrows it to one member); each call takes the next. A
reply is text, a mapping (sent as its JSON) or an exception, raised as the
provider would (a `TransientError` for a fault that may pass). A call with
nothing queued gets the offline panel's stand-in, or fails when `strict`.
Every call is kept in `calls`, so a test can say what was asked.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from ..calls import CallSpec
from ..domain import Usage
from .base import Completion, Diagnosis, Local, OnTokens
from .offline import play

Reply = str | dict[str, Any] | list[Any] | BaseException


class QueueProvider(Local):
    simulated = True

    def __init__(self, strict: bool = False):
        self.strict = strict
        self.calls: list[CallSpec] = []
        self._lines: dict[tuple[str, str | None], deque[Reply]] = {}

    def queue(self, task: str, *replies: Reply, panelist: str | None = None) -> QueueProvider:
        self._lines.setdefault((task, panelist), deque()).extend(replies)
        return self

    def asked(self, task: str) -> list[str]:
        """The panelists asked for `task`, in the order they were asked."""
        return [s.panelist.id for s in self.calls if s.task == task]

    def _next(self, spec: CallSpec) -> Reply | None:
        for key in ((spec.task, spec.panelist.id), (spec.task, None)):
            if self._lines.get(key):
                return self._lines[key].popleft()
        return None

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float,
                       on_tokens: OnTokens | None = None) -> Completion:
        self.calls.append(spec)
        reply = self._next(spec)
        if isinstance(reply, BaseException):
            raise reply
        if reply is None:
            if self.strict:
                raise AssertionError(f"nothing queued for {spec.task} by {spec.panelist.id}")

            reply = play(spec)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        prompt = sum(len(m["content"]) for m in messages) // 4
        return Completion(text, Usage(prompt_tokens=prompt, completion_tokens=len(text) // 4, cost=0.0, calls=1))

    def diagnose(self, p: Any, timeout: float) -> Diagnosis:
        return Diagnosis("ok (queued)", "ok (queued)", "ok (queued)")
