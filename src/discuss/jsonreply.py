"""Finding the JSON object in a model's reply.

Models wrap JSON in code fences or add a sentence around it; we take the
fenced block if there is one, else the outermost braces. Anything we cannot
read raises `ReplyError` with a message fit to send back to the model.
"""

from __future__ import annotations

import json
import re

FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class ReplyError(ValueError):
    """A reply that does not follow the requested format; the text says why."""


def extract_object(text: str) -> dict:
    if not text or not text.strip():
        raise ReplyError("the reply was empty")
    fenced = FENCE.search(text)
    candidate = fenced.group(1) if fenced else text
    start, end = candidate.find("{"), candidate.rfind("}")
    if start < 0 or end <= start:
        raise ReplyError("the reply holds no JSON object")
    try:
        value = json.loads(candidate[start : end + 1])
    except json.JSONDecodeError as exc:
        raise ReplyError(f"the JSON does not parse: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(value, dict):
        raise ReplyError("the JSON must be an object")
    return value


def text_field(obj: dict, key: str, *, required: bool = True) -> str:
    value = obj.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ReplyError(f"'{key}' must be a string")
    if required and not value.strip():
        raise ReplyError(f"'{key}' is missing or empty")
    return value.strip()


def text_list(obj: dict, key: str) -> list[str]:
    value = obj.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReplyError(f"'{key}' must be a list of strings")
    return [v.strip() for v in value if v.strip()]
