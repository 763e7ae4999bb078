"""Reading a cross-examination: one critique per peer label, each exactly once."""

from __future__ import annotations

from .jsonreply import ReplyError, extract_object


def parse_critiques(text: str, labels: list[str]) -> dict[str, str]:
    obj = extract_object(text)
    raw = obj.get("critiques")
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        raise ReplyError("'critiques' must be a list of objects with label and critique")
    found: dict[str, str] = {}
    for entry in raw:
        label = str(entry.get("label", "")).strip().upper()
        if label not in labels:
            raise ReplyError(f"unknown label {label or '(none)'!r}; the labels are {', '.join(labels)}")
        if label in found:
            raise ReplyError(f"answer {label} was critiqued more than once")
        critique = entry.get("critique")
        if not isinstance(critique, str) or not critique.strip():
            raise ReplyError(f"the critique of {label} is missing or empty")
        found[label] = critique.strip()
    missing = [label for label in labels if label not in found]
    if missing:
        raise ReplyError(f"no critique of {', '.join(missing)}; critique every answer exactly once")
    return {label: found[label] for label in labels}
