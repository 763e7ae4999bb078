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
from pathlib import Path
from typing import Any

from .naming import read_in_project

# "key": "value" and ["value" in a template's JSON example.
QUOTED = re.compile(r'(?:"[A-Za-z]+"\s*:\s*|\[\s*)"([^"]{3,})"')
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")
# Stand-ins small models put where a value belongs, whatever the prompt said.
GENERIC = ("string", "your answer", "your reasoning", "lorem ipsum", "insert text here", "your position",
           "your answer here", "text here")


NEAR_WORDS = 2  # words a reply may add to an example and still be that example


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
    # The package's own folder: a run reads these before its first check, and importlib.resources (with
    # zipfile and tempfile, for packages that are no folder) would be imported for the path alone.
    root = Path(__file__).resolve().parent.parent
    for folder in (root / "text" / "prompts", *(p / "prompts" for p in (root / "protocols").iterdir() if p.is_dir())):
        if folder.is_dir():
            yield from (t.read_text(encoding="utf-8") for t in folder.iterdir() if t.name.endswith(".j2"))


TEMPLATE_BYTES = 1 << 20  # of a prompt template: none comes near it


@lru_cache(maxsize=8)
def patterns(overrides: Path | None = None) \
        -> tuple[tuple[re.Pattern[str], ...], tuple[re.Pattern[str], ...], re.Pattern[str]]:
    """(examples of two words or more and the generic stand-ins, longest first; one-word examples; any of
    the first, as one pattern)."""
    texts = list(_packaged())
    if overrides is not None and overrides.is_dir():
        # The project's templates as the prompts read them: a link out of the project, or no file, is not read.
        for p in sorted(overrides.rglob("*.j2")):
            try:
                texts.append(read_in_project(p, TEMPLATE_BYTES).decode("utf-8", "replace"))
            except OSError:
                continue
    examples = [e for e in examples_in(texts) if _normal(JINJA.sub("", e))]  # "..." is handled apart
    long = [_pattern(e) for e in examples if len(e.split()) > 1] + [re.compile(re.escape(g)) for g in GENERIC]
    long.sort(key=lambda p: -len(p.pattern))  # the longest taken away first, so a shorter one inside it stays
    # One-word examples ("why", "panelist") alone are no echo: a real reply may say just that.
    anywhere = re.compile("|".join(f"(?:{p.pattern})" for p in long))
    return tuple(long), tuple(_pattern(e) for e in examples if len(e.split()) == 1), anywhere


_project: list[Path] = []  # the project's prompt overrides, whose examples count too


def remember_project(prompts: Path) -> None:
    _project[:] = [prompts] if prompts.is_dir() else []


def prepare() -> None:
    """Read and compile the examples `is_echo` looks for (6-8 ms), as a run does while its requests are out."""
    patterns(_project[0] if _project else None)


def is_echo(value: str, overrides: Path | None = None) -> bool:
    """True for text that is an example of ours, or examples strung together ("... (who held it): why")."""
    overrides = overrides or (_project[0] if _project else None)
    if not value.strip():
        return False
    if not value.strip(" .…"):
        return True  # "...": the template's ellipsis, nothing else
    text = _normal(value)
    long, short, anywhere = patterns(overrides)
    if anywhere.search(text) is None:
        return False  # most replies: no example anywhere in them, so none to take away below
    if any(p.fullmatch(text) for p in long):
        return True
    rest = text
    for p in long:
        rest = p.sub(" ", rest)
    if rest == text:
        return False
    for p in short:
        rest = p.sub(" ", rest)
    # Examples strung together, or an example with a word or two added ("another one or two sentences").
    return len(re.findall(r"\w+", rest)) <= NEAR_WORDS


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
