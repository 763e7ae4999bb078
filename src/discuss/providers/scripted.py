"""The scripted panel: panelists whose every reply follows a script, for rehearsals and tests.

A `scripted/<name>` panelist answers from `discussions/scripts/<name>.yaml`:
the first entry that matches the call (its task, round, ask, match) gives
the reply, a JSON reply or a failure. A call no entry matches is played as
the offline panel would, so a script says only what differs from the happy
path. In a reply, `@<id>` stands for the label the answer of panelist
<id> carries in this call, since labels are shuffled per voter.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from ..calls import CallSpec
from ..domain import Panelist, Usage
from ..errors import InputError
from ..schema import validated
from ..store.layout import confined
from ..store.yamlio import load
from . import offline
from .base import Completion, Diagnosis, OnTokens, TransientError

PREFIX = "scripted/"


def script_name(p: Panelist) -> str:
    return p.model.removeprefix(PREFIX)


_LOADED: dict[tuple[Path, int, int], list[Any]] = {}


def load_script(path: Path) -> list[Any]:
    """The script's entries, read again only when the file changes (a run asks for them on every call)."""
    if not path.is_file():
        raise InputError(f"{path}: no script for this scripted panelist; write one (see the documentation: panels and providers)")
    stat = path.stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in _LOADED:
        _LOADED[key] = _parse(path)
    return _LOADED[key]


def _parse(path: Path) -> list[Any]:
    # The script's pydantic model (about 60 ms) loads when a script is read, not with the offline panel
    # that shares this module's registration.
    from ..schema.script import ScriptModel
    try:
        data = load(path.read_text(encoding="utf-8"))
    except Exception as exc:
        raise InputError(f"{path}: not readable as YAML: {exc}") from None
    return validated(ScriptModel, data or [], str(path), noun="key").root


def with_labels(value: Any, order: dict[str, str]) -> Any:
    """`value` with every `@<id>` replaced by the label of that panelist's answer."""
    if isinstance(value, str):
        for label, pid in sorted(order.items(), key=lambda kv: -len(kv[1])):
            value = value.replace(f"@{pid}", label)
        return value
    if isinstance(value, list):
        return [with_labels(v, order) for v in value]
    if isinstance(value, dict):
        return {k: with_labels(v, order) for k, v in value.items()}
    return value


class ScriptedProvider(offline.OfflineProvider):
    """Replies from scripts in `folder`: no network, no keys, no cost (prices and keys as offline)."""

    def __init__(self, folder: Path | None):
        self.folder = folder

    def script(self, p: Panelist) -> list[Any]:
        if self.folder is None:
            raise InputError(f"{p.id}: a scripted panelist runs only inside a project")

        path = self.folder / f"{script_name(p)}.yaml"
        return load_script(confined(path, self.folder, what=p.model))

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float,
                       on_tokens: OnTokens | None = None) -> Completion:
        ask = 1 + (len(messages) - len(spec.messages)) // 2  # each re-ask adds the reply and the complaint
        entry = next((e for e in self.script(spec.panelist) if e.matches(spec.task, ask, spec.context)), None)
        if entry is None:
            text = offline.play(spec)
        else:
            if entry.delay:
                await asyncio.sleep(entry.delay)
            text = self._act(entry, spec)
        return Completion(text, Usage(prompt_tokens=sum(len(m["content"]) for m in messages) // 4,
                            completion_tokens=len(text) // 4, cost=0.0, calls=1))

    @staticmethod
    def _act(entry: Any, spec: CallSpec) -> str:
        if entry.fail == "timeout":
            raise TimeoutError
        if entry.fail == "rate-limit":
            raise TransientError("429: rate limited (scripted)", wait=0.0)
        if entry.fail == "error":
            raise RuntimeError("scripted failure")
        order = spec.context.get("order", {})
        if entry.reply is not None:
            return str(with_labels(entry.reply, order))
        return json.dumps(with_labels(entry.json_reply, order))

    def check(self, panelists: list[Panelist]) -> None:
        """Every script can be read, before anything runs."""
        for p in panelists:
            self.script(p)

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        ok = "ok (scripted)"
        try:
            self.script(p)
        except InputError as exc:
            return Diagnosis(ok, ok, f"fail: {exc}")
        return Diagnosis(ok, ok, ok)
