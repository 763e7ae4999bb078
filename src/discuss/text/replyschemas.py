"""What the JSON schemas of structured replies are built from, for providers that constrain a model's output to
one; each protocol builds its own replies' schemas from these, beside its parsers.

Each schema mirrors the parser that validates the same reply (labels and votes as
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


def titled(key: str, body: str, least: int, most: int) -> Schema:
    return obj({key: listed(obj({"title": TEXT, body: TEXT}), least, most)})
