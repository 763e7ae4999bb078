"""Reading a match verdict and a question split, as models write them."""

from __future__ import annotations

from .jsonreply import ReplyError, extract_object, text_field


def parse_match(text: str) -> dict:
    obj = extract_object(text)
    winner = str(obj.get("winner", "")).strip().upper()
    if winner not in ("A", "B"):
        raise ReplyError(f"'winner' must be A or B, not {winner or '(none)'!r}")
    return {"winner": winner, "reasoning": text_field(obj, "reasoning", required=False)}


def parse_split(text: str, min_parts: int, max_parts: int) -> list[dict]:
    obj = extract_object(text)
    parts = obj.get("parts")
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        raise ReplyError("'parts' must be a list of objects with title and question")
    if not min_parts <= len(parts) <= max_parts:
        raise ReplyError(f"give {min_parts} to {max_parts} parts, not {len(parts)}")
    out = [{"title": text_field(p, "title"), "question": text_field(p, "question")} for p in parts]
    titles = [p["title"].lower() for p in out]
    if len(set(titles)) != len(titles):
        raise ReplyError("two parts have the same title")
    return out
