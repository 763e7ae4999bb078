"""Reading a critique round's stance and the judge's convergence verdict; and their JSON schemas, which mirror the
readers (the readers stay the judges of a reply)."""

from __future__ import annotations

from typing import Any

from discuss.plugin import (
    FRACTION,
    TEXT,
    ReplyError,
    Schema,
    extract_object,
    fraction,
    listed,
    obj,
    one_of,
    probability_of,
)


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
    reply = extract_object(text)
    position = reply.get("position")
    if not isinstance(position, str) or not position.strip():
        raise ReplyError("'position' is missing or empty")
    return {
        "agreements": _pointing(reply.get("agreements"), "agreements", labels, ("on",)),
        "disagreements": _pointing(reply.get("disagreements"), "disagreements", labels, ("on", "why")),
        "position": position.strip() + "\n",
        "confidence": fraction(reply, "confidence"),
        **({"probability": p} if forecast and (p := probability_of(reply)) is not None else {}),
    }


AXES = ("recommendation", "keyFacts", "caveats")


def parse_judge(text: str) -> dict[str, Any]:
    """The judge's three convergence axes, each 0..1, and their mean as the score."""
    reply = extract_object(text)
    scores = {axis: fraction(reply, axis) for axis in AXES}
    reasoning = reply.get("reasoning", "")
    return {**scores, "score": round(sum(scores.values()) / len(AXES), 4),
            "reasoning": reasoning.strip() if isinstance(reasoning, str) else ""}


def stance_schema(labels: list[str]) -> Schema:
    return obj({"agreements": listed(obj({"with": one_of(labels), "on": TEXT})),
                "disagreements": listed(obj({"with": one_of(labels), "on": TEXT, "why": TEXT})),
                "position": TEXT, "confidence": FRACTION})


def judge_schema() -> Schema:
    return obj({"recommendation": FRACTION, "keyFacts": FRACTION, "caveats": FRACTION, "reasoning": TEXT})
