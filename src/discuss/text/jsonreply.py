"""Finding the JSON object in a model's reply.

Models wrap JSON in code fences or add a sentence around it. We try the
whole reply, then each fenced block, then each opening brace in turn, and
take the first that parses as an object: a fence inside a JSON string (a
YAML snippet in a summary) is part of the string, not the end of the JSON.
A reply that holds two different objects of the same kind (two ballots,
one of them perhaps quoted from another panelist's answer) is refused, never
resolved by their order.
Anything we cannot read raises `ReplyError` with a message fit to send back
to the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from .clean import clean
from .placeholders import echoed

FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class ReplyError(ValueError):
    """A reply that does not follow the requested format; the text says why."""


class EchoError(ReplyError):
    """A reply that copies the prompt's example values instead of answering."""


def _objects(text: str) -> Iterator[tuple[Any, json.JSONDecodeError | None]]:
    """What parses, in the order we trust it: the whole reply, fenced blocks, then from each '{'."""
    decoder = json.JSONDecoder()
    for candidate in [text.strip(), *(m.group(1).strip() for m in FENCE.finditer(text))]:
        try:
            yield decoder.decode(candidate), None
        except json.JSONDecodeError as exc:
            yield None, exc
    start = text.find("{")
    while start >= 0:
        try:
            value, end = decoder.raw_decode(text, start)
            yield value, None
            start = text.find("{", end) if isinstance(value, dict) else text.find("{", start + 1)
        except json.JSONDecodeError as exc:
            yield None, exc
            start = text.find("{", start + 1)


def _rivals(text: str, chosen: dict[str, Any]) -> int:
    """How many different objects of the chosen one's kind (sharing a key with it) the reply holds."""
    kinds = {json.dumps(v, sort_keys=True) for v, _ in _objects(text)
             if isinstance(v, dict) and set(v) & set(chosen)}
    return len(kinds)


def clean_strings(value: Any) -> Any:
    """JSON escapes can spell what the reply's text could not hold (a lone surrogate, an escape code)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [clean_strings(v) for v in value]
    if isinstance(value, dict):
        return {clean(str(k)): clean_strings(v) for k, v in value.items()}
    return value


def extract_object(text: str) -> dict[str, Any]:
    if not text or not text.strip():
        raise ReplyError("the reply was empty")
    first_error: json.JSONDecodeError | None = None
    for value, error in _objects(text):
        if isinstance(value, dict):
            if (found := _rivals(text, value)) > 1:
                raise ReplyError(f"the reply holds {found} different JSON objects of this kind; reply with exactly "
                                 "one, your own")
            value = clean_strings(value)
            if (echo := echoed(value)) is not None:
                raise EchoError(f"'{echo[0]}' copies the prompt's example ({echo[1][:80]!r}) instead of "
                                 "saying something of your own; write your own words there")
            return value
        if first_error is None and error is not None and error.pos > 0:
            first_error = error  # an object begun and broken off says more than text that is no JSON
    if first_error is not None:
        raise ReplyError(f"the JSON does not parse: {first_error.msg} at line {first_error.lineno}")
    raise ReplyError("the reply holds no JSON object")


def text_field(obj: dict[str, Any], key: str, *, required: bool = True) -> str:
    value = obj.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ReplyError(f"'{key}' must be a string")
    if required and not value.strip():
        raise ReplyError(f"'{key}' is missing or empty")
    if required and not has_words(value):
        raise ReplyError(f"'{key}' holds no words ({value.strip()[:20]!r})")
    return value.strip()


def has_words(text: str) -> bool:
    """Whether a text says anything: a letter or a digit, not only brackets and marks (`{`, `...`)."""
    return any(ch.isalnum() for ch in text)


def fraction(obj: dict[str, Any], key: str) -> float:
    """A number from 0 to 1."""
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ReplyError(f"'{key}' must be a number from 0 to 1")
    return float(value)


def titled_list(obj: dict[str, Any], key: str, least: int, most: int, body: str) -> list[dict[str, Any]]:
    """A list of 'least' to 'most' objects, each with a distinct title and a `body` text."""
    items = obj.get(key)
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise ReplyError(f"'{key}' must be a list of objects with title and {body}")
    if not least <= len(items) <= most:
        raise ReplyError(f"give {least} to {most} {key}, not {len(items)}")
    out = [{"title": text_field(i, "title"), body: text_field(i, body)} for i in items]
    if len({i["title"].lower() for i in out}) != len(out):
        raise ReplyError(f"two {key} have the same title")
    return out


def per_label(entries, labels: list[str], label_key: str, read, repeated: str, missing: str) -> dict[str, Any]:
    """Entries keyed by their label: known labels only, each exactly once, none missing.

    `read(entry, label)` turns an entry into its value; `repeated` and `missing`
    word the refusals ("{label}" and "{labels}" are filled in).
    """
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ReplyError(f"expected a list of objects, each with a '{label_key}'")
    found: dict[str, Any] = {}
    known = {label.upper(): label for label in labels}  # "a" is A; a name is the name, whatever its case
    for entry in entries:
        given = str(entry.get(label_key, "")).strip()
        label = known.get(given.upper(), "")
        if not label:
            raise ReplyError(f"unknown {label_key} {given.upper() or '(none)'!r}; the labels are {', '.join(labels)}")
        if label in found:
            raise ReplyError(repeated.format(label=label))
        found[label] = read(entry, label)
    absent = [label for label in labels if label not in found]
    if absent:
        raise ReplyError(missing.format(labels=", ".join(absent)))
    return {label: found[label] for label in labels}


def text_list(obj: dict[str, Any], key: str) -> list[str]:
    value = obj.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReplyError(f"'{key}' must be a list of strings")
    return [v.strip() for v in value if v.strip()]
