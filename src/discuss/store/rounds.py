"""Reading a round of ours back: its replies, its protocol's files and notes, its index entry.

Used by the store for its own discussions and by the foreign formats for the
rounds discuss adds to another tool's thread, so neither needs the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..domain import Failure, Reply, Round, paid_usage, usage_from
from ..errors import InputError
from ..protocols import get_protocol
from . import documents, yamlio

# pydantic's TypeAdapter and the schema are imported where a round's notes are checked, only for a protocol
# that records notes of a type (`_check_notes`).
ROUND_FILE = "round.yaml"


def round_dir(folder: Path, number: int) -> Path:
    return folder / f"round-{number}"


def failures(r: Round) -> list[dict]:
    return [
        {"phase": f.phase, "modelId": f.model_id, "error": f.error,
         "attempts": f.attempts, "timedOut": f.timed_out, **({"invalid": True} if f.invalid else {}),
         **({"lasting": True} if f.lasting else {}),
         **paid_usage(f.usage)}
        for f in r.failures
    ]


def read_reply(path: Path, number: int) -> Reply:
    meta, body = documents.read(path, written=True)
    usage: dict[str, Any] = meta["usage"] if isinstance(meta.get("usage"), dict) else {}
    return Reply(
        model_id=str(meta.get("modelId") or path.stem),
        model_name=str(meta.get("modelName") or meta.get("modelId") or path.stem),
        round_number=int(meta.get("roundNumber") or number),
        text=body,
        generated=str(meta.get("generated") or ""),
        usage=usage_from(usage),
        latency_ms=int(usage.get("latencyMs") or 0),
        role=str(meta.get("role") or "respondent"),
        simulated=bool(meta.get("simulated")),
        cut_from=meta["cutFrom"] if isinstance(meta.get("cutFrom"), int) else None,
        finish_reason=str(meta["finishReason"]) if meta.get("finishReason") else None,
        saved=True,
    )


def read_round_file(r: Round, path: Path, protocol: str) -> None:
    try:
        data = yamlio.load(documents.read_text(path), written=True) or {}
    except ValueError as exc:
        raise InputError(f"{path}: cannot be read (a merge conflict?): {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: cannot be read: expected a mapping")
    get_protocol(protocol).storage.read_round_file(r, path.name, data)


def _check_notes(r: Round, protocol: str, path: Path) -> None:
    """A round's notes hold what its protocol records, each of the type it records it in."""
    kind = get_protocol(protocol).storage.notes_type
    if kind is not None and r.notes:
        from pydantic import TypeAdapter

        from ..schema import validated_as

        validated_as(TypeAdapter(kind), r.notes, str(path))


def read_round(raw: dict[str, Any], folder: Path, protocol: str) -> Round:
    number = int(raw["roundNumber"])
    r = Round(
        number=number,
        seed=int(raw.get("seed") or 0),
        agreement=raw.get("agreement"),
        failures=[Failure(str(f["phase"]), str(f["modelId"]), str(f.get("error") or ""),
                          int(f.get("attempts") or 1), bool(f.get("timedOut")), usage_from(f.get("usage")),
                          f.get("invalid") is True, f.get("lasting") is True)
                  for f in raw.get("failures") or []],
        completed_at=raw.get("completedAt"),
        stage=raw.get("stage"),
        notes={key: raw[key] for key in get_protocol(protocol).storage.index_notes if isinstance(raw.get(key), dict)},
    )
    get_protocol(protocol).storage.read_index(r, raw)
    directory = round_dir(folder, number)
    if directory.is_dir():
        for path in sorted(directory.glob("*.md")):
            reply = read_reply(path, number)
            r.replies[path.stem] = reply
        for name in get_protocol(protocol).storage.round_files:
            if (directory / name).is_file():
                read_round_file(r, directory / name, protocol)
        if (directory / ROUND_FILE).is_file():
            notes = yamlio.load(documents.read_text(directory / ROUND_FILE), written=True) or {}
            if not isinstance(notes, dict):
                raise ValueError(f"{directory / ROUND_FILE}: expected a mapping")
            r.notes = {k: v for k, v in notes.items() if k not in ("roundNumber", "stage", "agreement")}
            _check_notes(r, protocol, directory / ROUND_FILE)
    return r
