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


def _fraction(obj: dict, key: str) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ReplyError(f"'{key}' must be a number from 0 to 1")
    return float(value)


def parse_research(text: str) -> dict:
    obj = extract_object(text)
    return {"findings": text_field(obj, "findings") + "\n", "confidence": _fraction(obj, "confidence")}


def parse_alternatives(text: str, least: int, most: int) -> list[dict]:
    obj = extract_object(text)
    alts = obj.get("alternatives")
    if not isinstance(alts, list) or not all(isinstance(a, dict) for a in alts):
        raise ReplyError("'alternatives' must be a list of objects with title and description")
    if not least <= len(alts) <= most:
        raise ReplyError(f"give {least} to {most} alternatives, not {len(alts)}")
    return [{"title": text_field(a, "title"), "description": text_field(a, "description")} for a in alts]


def parse_ranking(text: str, labels: list[str], dimensions: list[str]) -> dict:
    obj = extract_object(text)
    raw = obj.get("scores")
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        raise ReplyError("'scores' must be a list of objects, one per alternative")
    scores: dict[str, dict] = {}
    for entry in raw:
        label = str(entry.get("alternative", "")).strip().upper()
        if label not in labels:
            raise ReplyError(f"unknown alternative {label or '(none)'!r}; the alternatives are {', '.join(labels)}")
        if label in scores:
            raise ReplyError(f"alternative {label} was scored more than once")
        scores[label] = {d: _fraction(entry, d) for d in dimensions}
    missing = [label for label in labels if label not in scores]
    if missing:
        raise ReplyError(f"no scores for {', '.join(missing)}; score every alternative")
    concern = obj.get("concern", "")
    return {"scores": {label: scores[label] for label in labels},
            "concern": concern.strip() if isinstance(concern, str) else "",
            "confidence": _fraction(obj, "confidence")}
