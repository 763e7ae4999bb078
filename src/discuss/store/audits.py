"""The files of a bias experiment (`discuss audit`): one YAML file per re-asked ballot, beside the discussion.

    <discussion>/audit/round-N/<voter>--order-K[--padded].yaml

Each holds what the protocol's experiment records of the ballot (or the
error of a failed ask) and the usage of every ask of it, so a re-run asks
only what is missing or failed and nothing paid for is lost.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..domain import Usage
from . import yamlio, yamlwrite
from .documents import read_text
from .files import write_atomic
from .layout import AUDIT


def round_folder(folder: Path, number: int) -> Path:
    return folder / AUDIT / f"round-{number}"


def recorded(folder: Path) -> dict[int, dict[str, dict[str, Any]]]:
    """The re-asked ballots on disk, by round and key."""
    out: dict[int, dict[str, dict[str, Any]]] = {}
    for found in sorted((folder / AUDIT).glob("round-*")):
        number = found.name.removeprefix("round-")
        if number.isdigit():
            kept = {p.stem: yamlio.load(read_text(p), written=True) for p in sorted(found.glob("*.yaml"))}
            out[int(number)] = {k: v for k, v in kept.items() if isinstance(v, dict)}
    return out


def ballots(folder: Path) -> dict[int, list[dict[str, Any]]]:
    """The usable re-asked ballots by round (failed asks left out), for rounds that have any."""
    found = {n: [b for b in kept.values() if not b.get("error")] for n, kept in recorded(folder).items()}
    return {n: b for n, b in found.items() if b}


def spent(kept: dict[int, dict[str, dict[str, Any]]]) -> Usage:
    """What the re-asks on disk cost, failed asks included (as `recorded` gives them)."""
    total = Usage()
    for records in kept.values():
        for record in records.values():
            total.add(usage_of(record))
    return total


def usage_of(record: dict[str, Any]) -> Usage:
    """The usage a re-ask's file records: counts that are not whole numbers count as none (a file is input)."""
    found = record.get("usage")
    raw: dict[str, Any] = found if isinstance(found, dict) else {}
    whole = {k: raw[k] if isinstance(raw.get(k), int) and not isinstance(raw.get(k), bool) and raw[k] >= 0 else 0
             for k in ("prompt_tokens", "completion_tokens", "calls")}
    cost = raw.get("cost")
    return Usage(**whole, cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool)
                 and 0 <= cost < float("inf") else None)


def keep(folder: Path, number: int, key: str, data: dict[str, Any]) -> None:
    write_atomic(round_folder(folder, number) / f"{key}.yaml", yamlwrite.dump(data))
