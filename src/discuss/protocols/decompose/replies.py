"""Reading a question's split into parts."""

from __future__ import annotations

from typing import Any

from discuss.plugin import extract_object, titled_list


def parse_split(text: str, min_parts: int, max_parts: int) -> list[dict[str, Any]]:
    return titled_list(extract_object(text), "parts", min_parts, max_parts, "question")
