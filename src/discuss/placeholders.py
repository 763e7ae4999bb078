"""The example values of our prompts, so a reply that copies one back is refused, not recorded.

Small and mid-size models fill a JSON template with its own example text
("two or three paragraphs", "one or two sentences", "A or B"). Every
quoted value of every prompt template's JSON example is collected here
(the packaged ones and a project's overrides alike), so a new prompt is
covered the day it is written; a reply field whose whole text is one of
them, or a generic stand-in ("...", "string", "your answer"), is an echo.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

# "key": "value" and ["value" in a template's JSON example.
QUOTED = re.compile(r'(?:"[A-Za-z]+"\s*:\s*|\[\s*)"([^"]{3,})"')
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")
GENERIC = ("string", "text", "str", "your answer", "answer", "your reasoning", "reasoning",
           "placeholder", "example", "lorem ipsum", "todo", "tbd", "insert text here", "your position")


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().strip(".,;:!-–— ").lower()


def _pattern(example: str) -> re.Pattern[str]:
    """An example as a pattern: what a template fills in (`{{ max_words }}`) matches anything."""
    parts = [re.escape(_normal(part)) for part in JINJA.split(example)]
    return re.compile(r".{0,40}".join(parts))


def examples_in(templates: Iterable[str]) -> list[str]:
    """The example values quoted in templates' JSON, as written (enum choices and labels included)."""
    return sorted({m.group(1) for text in templates for m in QUOTED.finditer(text)})


def _packaged() -> Iterator[str]:
    root = files("discuss")
    for folder in (root / "prompts", *(p / "prompts" for p in (root / "protocols").iterdir() if p.is_dir())):
        if folder.is_dir():
            yield from (t.read_text(encoding="utf-8") for t in folder.iterdir() if t.name.endswith(".j2"))


@lru_cache(maxsize=8)
def patterns(overrides: Path | None = None) -> tuple[re.Pattern[str], ...]:
    texts = list(_packaged())
    if overrides is not None and overrides.is_dir():
        texts += [p.read_text(encoding="utf-8", errors="replace") for p in sorted(overrides.rglob("*.j2"))]
    found = [_pattern(e) for e in examples_in(texts)] + [re.compile(re.escape(g)) for g in GENERIC]
    return tuple(found)


def is_echo(value: str, overrides: Path | None = None) -> bool:
    """True for text that is an example of ours, or examples strung together ("... (who held it): why")."""
    if not value.strip():
        return False
    text = _normal(value)
    found = patterns(overrides)
    if any(p.fullmatch(text) for p in found):
        return True
    for p in sorted(found, key=lambda p: -len(p.pattern)):
        text = p.sub(" ", text)
    return not re.search(r"\w", text)


def echoed(value: Any, where: str = "") -> tuple[str, str] | None:
    """The first string in a parsed reply that copies a prompt's example: (its place, its text)."""
    if isinstance(value, str):
        return (where or "the reply", value) if value.strip() and is_echo(value) else None
    if isinstance(value, dict):
        items: Iterable[tuple[str, Any]] = ((f"{where}.{k}" if where else str(k), v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{where}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for place, inner in items:
        if (hit := echoed(inner, place)) is not None:
            return hit
    return None
