"""The archive as a memory: earlier discussions near a question (`related`), and what happened afterwards
(`resolve`). Values in, plain values out; the CLI and the MCP server both call these."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InputError

MOST = 100  # related discussions one call lists at most


def related(content: Path, question: str, limit: int = 5) -> dict[str, Any]:
    """{query, slug (where QUESTION is one of the project's), related: [{slug, title, status, decision, score,
    concluded}], warnings}: the discussions nearest to QUESTION (a slug, a question file, or a text), best first."""
    from ..archive.related import archive, query_of, rank

    if not 1 <= limit <= MOST:
        raise InputError(f"--limit {limit}: give 1 to {MOST}")
    if not question.strip() or not question.isprintable():
        raise InputError("give a question: its slug, its file, or the text to look for")
    earlier, warnings = archive(content)
    query, own = query_of(content, question.strip(), earlier)
    found = rank(earlier, query, {own} if own else set(), limit)
    return {"query": question.strip(), "slug": own, "related": [r.json() for r in found], "warnings": warnings}
