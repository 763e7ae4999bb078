"""Reading a critique round's stance and the judge's convergence verdict."""

from __future__ import annotations

from typing import Any

from ...text.forecasts import probability_of
from ...text.jsonreply import ReplyError, extract_object, fraction


def _pointing(raw: object, key: str, labels: list[str], fields: tuple[str, ...]) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        raise ReplyError(f"'{key}' must be a list of objects")
    out = []
    for entry in raw:
        label = str(entry.get("with", "")).strip().upper()
        if label not in labels:
            raise ReplyError(f"'{key}' names {label or '(none)'!r}; the positions are {', '.join(labels)}")
        item = {"with": label}
        for f in fields:
            value = entry.get(f, "")
            if not isinstance(value, str) or not value.strip():
                raise ReplyError(f"each of '{key}' needs a non-empty '{f}'")
            item[f] = value.strip()
        out.append(item)
    return out


def parse_stance(text: str, labels: list[str], forecast: bool = False) -> dict[str, Any]:
    """A critique round's reply: agreements, disagreements, updated position, confidence (and, for a forecast,
    the probability of yes where it gives one)."""
    obj = extract_object(text)
    position = obj.get("position")
    if not isinstance(position, str) or not position.strip():
        raise ReplyError("'position' is missing or empty")
    return {
        "agreements": _pointing(obj.get("agreements"), "agreements", labels, ("on",)),
        "disagreements": _pointing(obj.get("disagreements"), "disagreements", labels, ("on", "why")),
        "position": position.strip() + "\n",
        "confidence": fraction(obj, "confidence"),
        **({"probability": p} if forecast and (p := probability_of(obj)) is not None else {}),
    }


AXES = ("recommendation", "keyFacts", "caveats")


def parse_judge(text: str) -> dict[str, Any]:
    """The judge's three convergence axes, each 0..1, and their mean as the score."""
    obj = extract_object(text)
    scores = {axis: fraction(obj, axis) for axis in AXES}
    reasoning = obj.get("reasoning", "")
    return {**scores, "score": round(sum(scores.values()) / len(AXES), 4),
            "reasoning": reasoning.strip() if isinstance(reasoning, str) else ""}
