"""Reading a match verdict: which of two answers is better, and why."""

from __future__ import annotations

from typing import Any

from discuss.plugin import TEXT, ReplyError, extract_object, obj, one_of, text_field

MATCH_SCHEMA = obj({"winner": one_of(["A", "B"]), "reasoning": TEXT})


def parse_match(text: str) -> dict[str, Any]:
    obj = extract_object(text)
    winner = str(obj.get("winner", "")).strip().upper()
    if winner not in ("A", "B"):
        raise ReplyError(f"'winner' must be A or B, not {winner or '(none)'!r}")
    return {"winner": winner, "reasoning": text_field(obj, "reasoning", required=False)}
