"""Reading a match verdict and a question split, as models write them."""

from __future__ import annotations

from .jsonreply import ReplyError, extract_object, fraction, per_label, text_field, titled_list


def parse_match(text: str) -> dict:
    obj = extract_object(text)
    winner = str(obj.get("winner", "")).strip().upper()
    if winner not in ("A", "B"):
        raise ReplyError(f"'winner' must be A or B, not {winner or '(none)'!r}")
    return {"winner": winner, "reasoning": text_field(obj, "reasoning", required=False)}


def parse_split(text: str, min_parts: int, max_parts: int) -> list[dict]:
    return titled_list(extract_object(text), "parts", min_parts, max_parts, "question")


def parse_research(text: str) -> dict:
    obj = extract_object(text)
    return {"findings": text_field(obj, "findings") + "\n", "confidence": fraction(obj, "confidence")}


def parse_alternatives(text: str, least: int, most: int) -> list[dict]:
    return titled_list(extract_object(text), "alternatives", least, most, "description")


def parse_ranking(text: str, labels: list[str], dimensions: list[str]) -> dict:
    obj = extract_object(text)
    scores = per_label(obj.get("scores"), labels, "alternative", lambda e, _: {d: fraction(e, d) for d in dimensions},
                       "alternative {label} was scored more than once",
                       "no scores for {labels}; score every alternative")
    concern = obj.get("concern", "")
    return {"scores": scores,
            "concern": concern.strip() if isinstance(concern, str) else "",
            "confidence": fraction(obj, "confidence")}
