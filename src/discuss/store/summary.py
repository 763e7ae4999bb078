"""What `discuss status` shows of a discussion, read quickly from the head of its discussion.yaml.

This module imports neither ruamel nor pydantic: the status of a thousand
discussions must cost less than loading either. The head of an index
(before `panel:`) is a documented layout (docs/file-formats.md): `from_head`
reads it line by line, or with libyaml where a line is not plain, and gives
None where anything is unexpected; the store then reads the whole file
with the one YAML reader.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..domain import Usage, leader_of, usage_from
from ..protocols import DEFAULT
from .layout import AUDIT

HEAD_TYPES: dict[str, type | tuple[type, ...]] = {
    "status": str, "completedRounds": int, "leader": (str, type(None)),
    "terminationReason": (str, type(None)), "usage": dict,
}


@dataclass
class Summary:
    status: str
    legacy: bool
    rounds: int
    leader: str | None
    termination_reason: str | None
    usage: Usage
    protocol: str = DEFAULT  # a discussion written before the head named it, or Dyson's
    waiting_for: tuple[str, ...] = ()  # people whose forms the last run stopped at
    audits: Usage | None = None  # what its audits' re-asks spent, where it has any
    verified: bool | None = None  # whether its record holds under `discuss verify`'s checks (None: unknown)


def with_audits(s: Summary | None, folder: Path | str) -> Summary | None:
    """`s` with what the discussion's audits spent: one look for the folder, read only where it exists."""
    if s is None or not os.path.isdir(os.path.join(folder, AUDIT)):  # audits' module reads YAML: not imported here
        return s
    from dataclasses import replace

    from . import audits

    return replace(s, audits=audits.spent(audits.recorded(Path(folder))))


def quick_load(text: str) -> Any:
    """libyaml's safe loader: several times faster than ruamel on small documents, but YAML 1.1
    (an id like `on` becomes True), so callers check the types of what they take."""
    import yaml

    from .yamlshape import check_shape

    try:
        check_shape(text)
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception:
        return None  # the full reader names the problem


# The head as our writer puts it: plain words and numbers, one per line. Anything else
# (quotes, blocks, YAML's own words for true and null as ids) goes to the YAML reader.
WORD = re.compile(r"(?!(?:true|false|null)$)[a-z][a-z0-9._-]*")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
TOP = {"status": WORD, "completedRounds": re.compile(r"\d+"), "leader": WORD, "terminationReason": WORD,
       "protocol": WORD}
USAGE = {"calls", "promptTokens", "completionTokens", "totalTokens", "cost", "cachedTokens"}


def _plain(value: str, pattern: re.Pattern[str]) -> str | None:
    if value == "null":
        return None
    if pattern.fullmatch(value):
        return value
    raise ValueError(value)


def _by_lines(head: str) -> dict[str, Any] | None:
    """The summary fields read line by line from a head in our writer's layout; None if it is not."""
    data: dict[str, Any] = {}
    usage: dict[str, Any] | None = None
    people: list[Any] | None = None
    try:
        for line in head.split("\n"):
            if usage is not None and line.startswith("  "):
                key, _, value = line[2:].partition(": ")
                if key in USAGE:
                    usage[key] = None if value == "null" else float(_plain(value, NUMBER) or 0)
                continue
            if people is not None and line.startswith("- "):
                people.append(_plain(line[2:], WORD))
                continue
            usage = people = None
            key, _, value = line.partition(": ")
            if line == "usage:":
                usage = data["usage"] = {}
            elif line == "waitingFor:":
                people = data["waitingFor"] = []
            elif key in TOP:
                data[key] = _plain(value, TOP[key])
    except ValueError:
        return None
    if data.get("status") is None or data.get("completedRounds") is None:
        return None
    data["completedRounds"] = int(data["completedRounds"])
    return data


def from_head(text: str) -> Summary | None:
    """The summary at the top of a discussion.yaml of ours, or None to read the whole file instead."""
    head = text.split("\npanel:\n", 1)[0]
    if head == text:
        return None  # an older or foreign layout
    data = _by_lines(head)
    if data is None:
        data = quick_load(head)
        if not isinstance(data, dict) or any(not isinstance(data.get(k), t) or isinstance(data.get(k), bool)
                                             for k, t in HEAD_TYPES.items()):
            return None
    elif "usage" not in data:  # the line reader gives every other field its type
        return None
    protocol = data.get("protocol") or DEFAULT
    if not isinstance(protocol, str):
        return None
    people = data.get("waitingFor") or []
    if not isinstance(people, list) or not all(isinstance(x, str) for x in people):
        return None
    return Summary(data["status"], False, data["completedRounds"], data.get("leader"),
                   data.get("terminationReason"), usage_from(data.get("usage")), protocol, tuple(people))


def is_legacy(data: dict[str, Any]) -> bool:
    """A discussion.yaml in Dyson's shape: a phase, or rounds with embedded responses."""
    rounds = data.get("rounds") or []
    return "phaseId" in data or any(isinstance(r, dict) and "responses" in r for r in rounds)


def from_data(data: dict[str, Any]) -> Summary:
    """The summary of a whole discussion.yaml read as data: any layout, ours or Dyson's."""
    from .formats import legacy  # only Dyson's layout and our oldest have no head

    rounds = [r for r in data.get("rounds") or [] if isinstance(r, dict)]
    return Summary(
        status=str(data.get("status") or "active"),
        legacy=is_legacy(data),
        rounds=sum(1 for r in rounds if r.get("completedAt")),
        leader=leader_of(legacy().round_winners(rounds) or []),
        termination_reason=data.get("terminationReason"),
        usage=usage_from(data.get("usage")),
        protocol=str(data.get("protocol") or DEFAULT),
    )
