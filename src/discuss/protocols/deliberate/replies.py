"""Reading a persona's research, the proposed alternatives and a persona's ranking."""

from __future__ import annotations

from typing import Any

from ...text.jsonreply import extract_object, fraction, per_label, text_field, titled_list
from .rules import DIMENSIONS


def parse_research(text: str) -> dict[str, Any]:
    obj = extract_object(text)
    return {"findings": text_field(obj, "findings") + "\n", "confidence": fraction(obj, "confidence")}


def parse_alternatives(text: str, least: int, most: int) -> list[dict[str, Any]]:
    return titled_list(extract_object(text), "alternatives", least, most, "description")


def parse_ranking(text: str, labels: list[str], dimensions: list[str]) -> dict[str, Any]:
    obj = extract_object(text)
    scores = per_label(obj.get("scores"), labels, "alternative", lambda e, _: {d: fraction(e, d) for d in dimensions},
                       "alternative {label} was scored more than once",
                       "no scores for {labels}; score every alternative")
    concern = obj.get("concern", "")
    return {"scores": scores,
            "concern": concern.strip() if isinstance(concern, str) else "",
            "confidence": fraction(obj, "confidence")}


def parse_triage(text: str) -> dict[str, Any]:
    obj = extract_object(text)
    return {"scores": {d: fraction(obj, d) for d in DIMENSIONS}, "reasoning": text_field(obj, "reasoning") + "\n"}
