"""JSON schemas of the structured replies, for providers that constrain a model's output to one.

Each mirrors the parser that validates the same reply (labels and votes as
enums, required fields, bounds); the parser stays the judge, so a provider
that ignores the schema changes nothing. No descriptions: small models copy
a schema's words into their reply as readily as a prompt's examples.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]
TEXT: Schema = {"type": "string"}
FRACTION: Schema = {"type": "number", "minimum": 0, "maximum": 1}


def obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None) -> Schema:
    return {"type": "object", "required": list(required), "additionalProperties": False,
            "properties": {**required, **(optional or {})}}


def listed(item: Schema, least: int | None = None, most: int | None = None) -> Schema:
    out: Schema = {"type": "array", "items": item}
    if least is not None:
        out["minItems"] = least
    if most is not None:
        out["maxItems"] = most
    return out


def one_of(values: list[str]) -> Schema:
    return {"type": "string", "enum": list(values)}


def critiques(labels: list[str]) -> Schema:
    return obj({"critiques": listed(obj({"label": one_of(labels), "critique": TEXT}), len(labels), len(labels))})


def stance(labels: list[str]) -> Schema:
    return obj({"agreements": listed(obj({"with": one_of(labels), "on": TEXT})),
                "disagreements": listed(obj({"with": one_of(labels), "on": TEXT, "why": TEXT})),
                "position": TEXT, "confidence": FRACTION})


def judge() -> Schema:
    return obj({"recommendation": FRACTION, "keyFacts": FRACTION, "caveats": FRACTION, "reasoning": TEXT})


def titled(key: str, body: str, least: int, most: int) -> Schema:
    return obj({key: listed(obj({"title": TEXT, body: TEXT}), least, most)})


def research() -> Schema:
    return obj({"findings": TEXT, "confidence": FRACTION})


def ranking(labels: list[str], dimensions: list[str]) -> Schema:
    score = obj({"alternative": one_of(labels), **{d: FRACTION for d in dimensions}})
    return obj({"scores": listed(score, len(labels), len(labels)), "confidence": FRACTION}, {"concern": TEXT})


def triage(dimensions: list[str]) -> Schema:
    return obj({**{d: FRACTION for d in dimensions}, "reasoning": TEXT})
