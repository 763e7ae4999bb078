"""Reading a cross-examination: one critique per peer label, each exactly once; and its JSON schema, which mirrors
the reader (the reader stays the judge of a reply)."""

from __future__ import annotations

from typing import Any

from discuss.plugin import TEXT, ReplyError, Schema, extract_object, listed, obj, one_of, per_label


def _critique(entry: dict[str, Any], label: str) -> str:
    critique = entry.get("critique")
    if not isinstance(critique, str) or not critique.strip():
        raise ReplyError(f"the critique of {label} is missing or empty")
    return critique.strip()


def parse_critiques(text: str, labels: list[str]) -> dict[str, str]:
    return per_label(extract_object(text).get("critiques"), labels, "label", _critique,
                     "answer {label} was critiqued more than once",
                     "no critique of {labels}; critique every answer exactly once")


def critiques_schema(labels: list[str]) -> Schema:
    return obj({"critiques": listed(obj({"label": one_of(labels), "critique": TEXT}), len(labels), len(labels))})
