"""Reading the chair's triage, a persona's research, the proposed alternatives and a persona's ranking; and the
JSON schemas of those replies, which mirror the readers (the readers stay the judges of a reply; the
alternatives are a titled list, a shape the plugin module gives)."""

from __future__ import annotations

from typing import Any

from discuss.plugin import (
    FRACTION,
    TEXT,
    Schema,
    extract_object,
    fraction,
    listed,
    obj,
    one_of,
    per_label,
    text_field,
    titled_list,
)

from .rules import DIMENSIONS


def parse_research(text: str) -> dict[str, Any]:
    reply = extract_object(text)
    return {"findings": text_field(reply, "findings") + "\n", "confidence": fraction(reply, "confidence")}


def parse_alternatives(text: str, least: int, most: int) -> list[dict[str, Any]]:
    return titled_list(extract_object(text), "alternatives", least, most, "description")


def parse_ranking(text: str, labels: list[str], dimensions: list[str]) -> dict[str, Any]:
    reply = extract_object(text)
    scores = per_label(reply.get("scores"), labels, "alternative", lambda e, _: {d: fraction(e, d) for d in dimensions},
                       "alternative {label} was scored more than once",
                       "no scores for {labels}; score every alternative")
    concern = reply.get("concern", "")
    return {"scores": scores,
            "concern": concern.strip() if isinstance(concern, str) else "",
            "confidence": fraction(reply, "confidence")}


def parse_triage(text: str) -> dict[str, Any]:
    reply = extract_object(text)
    return {"scores": {d: fraction(reply, d) for d in DIMENSIONS}, "reasoning": text_field(reply, "reasoning") + "\n"}


def research_schema() -> Schema:
    return obj({"findings": TEXT, "confidence": FRACTION})


def ranking_schema(labels: list[str], dimensions: list[str]) -> Schema:
    score = obj({"alternative": one_of(labels), **{d: FRACTION for d in dimensions}})
    return obj({"scores": listed(score, len(labels), len(labels)), "confidence": FRACTION}, {"concern": TEXT})


def triage_schema(dimensions: list[str]) -> Schema:
    return obj({**{d: FRACTION for d in dimensions}, "reasoning": TEXT})
