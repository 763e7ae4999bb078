"""What `discuss status` shows of a discussion, read quickly from the head of its discussion.yaml.

This module imports neither ruamel nor pydantic: the status of a thousand
discussions must cost less than loading either. The head of an index
(before `panel:`) is a documented layout (docs/file-formats.md): `from_head`
reads its fields with the YAML reader's quick way (line by line as our
writer lays them out, or libyaml), and gives None where anything is
unexpected; the store then reads the whole file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..domain import Usage, leader_of, usage_from
from ..protocols import DEFAULT
from . import yamlio
from .formats import legacy
from .layout import AUDIT

HEAD_TYPES: dict[str, type | tuple[type, ...]] = {
    "status": str, "completedRounds": int, "leader": (str, type(None)),
    "terminationReason": (str, type(None)), "usage": dict,
}
HEAD_KEYS = frozenset([*HEAD_TYPES, "protocol", "waitingFor"])  # what a summary reads of the head


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
    if s is None or not os.path.isdir(os.path.join(folder, AUDIT)):
        return s
    # Imported here: audits load the store's writer, which a status of discussions never audited does not need.
    from dataclasses import replace

    from . import audits

    return replace(s, audits=audits.spent(audits.recorded(Path(folder))))


def from_head(text: str) -> Summary | None:
    """The summary at the top of a discussion.yaml of ours, or None to read the whole file instead."""
    head = text.split("\npanel:\n", 1)[0]
    if head == text:
        return None  # an older or foreign layout
    data = yamlio.load(head, quick=True, only=HEAD_KEYS)
    if not isinstance(data, dict):
        return None
    for name, kind in HEAD_TYPES.items():
        if not isinstance(value := data.get(name), kind) or value is True or value is False:
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
