"""Follow-ups: a finished discussion asked a further question, kept as parts beside the first.

Part N (N >= 2) lives in the question's discussion folder: `part-N.md` is a
question file whose background holds the original question, what the
earlier parts concluded and the follow-up; `part-N/` is its discussion, in
the ordinary layout, run by the ordinary machinery. Nothing of the earlier
parts is ever rewritten, so in git a follow-up is a pure addition.
"""

from __future__ import annotations

from pathlib import Path

from ..domain import Conclusion, Discussion, Question
from ..errors import InputError
from . import documents
from .files import write_atomic
from .layout import part_paths
from .questions import create_question
from .sources import moved


def part_files(q: Question) -> list[Path]:
    """The follow-up parts' question files, in order (part 2 first)."""
    return part_paths(q.folder)


def _concluded(number: int, c: Conclusion) -> str:
    lines = [f"## What the panel concluded (part {number})", "", c.summary.strip()]
    for title, items in (("Key points", c.key_points), ("Still open", c.unresolved_questions)):
        if items:
            lines += ["", f"{title}:", *(f"- {x}" for x in items)]
    if c.minority_positions:
        lines += ["", "Minority positions:", *(f"- {m.position}" for m in c.minority_positions)]
    return "\n".join(lines)


def background(q: Question, parts: list[tuple[Question, Discussion]], text: str) -> str:
    """What a follow-up's panel reads: the original question, every earlier conclusion, the follow-up."""
    out = [f"This follows up an earlier discussion of: {q.title}", "", "## The original question", "",
           q.background.strip()]
    for number, (_, d) in enumerate(parts, 1):
        if d.conclusion:
            out += ["", _concluded(number, d.conclusion)]
    out += ["", "## The follow-up question", "", text.strip(), "",
            "Answer the follow-up. Build on what was concluded; say where you depart from it and why."]
    return "\n".join(out) + "\n"


def dyson_follow_ups(q: Question) -> list[Path]:
    """A Project Dyson question's follow-ups: questions of their own beside it (`followUpOf` its slug),
    where Dyson's site and analysis, which read two folder levels, see them; in the order of `part`."""
    found = []
    for path in sorted(q.path.parent.glob("rq-*.md")):
        try:
            meta, _ = documents.read(path)
        except ValueError:
            continue
        if meta.get("followUpOf") == q.slug and isinstance(meta.get("part"), int):
            found.append((meta["part"], path))
    return [path for _, path in sorted(found)]


def follow_ups(q: Question) -> list[Path]:
    """The follow-ups' question files, part 2 first: beside a Project Dyson question, else inside its folder."""
    return dyson_follow_ups(q) if q.phase else part_files(q)


def create_part(q: Question, parts: list[tuple[Question, Discussion]], text: str,
                panel: str, protocol: str, content: Path) -> Path:
    """Write the next part's question file; InputError when the last part has not finished.

    A Project Dyson question's follow-up is a Dyson question of its own in the same phase folder
    (numbered, with every field Dyson's site requires, its BOM item the original's); `content` is
    the content folder it is numbered within.
    """
    if not text.strip():
        raise InputError("the follow-up needs some text")
    last = parts[-1][1]
    if not last.concluded:
        raise InputError(f"{q.slug}: part {len(parts)} has not finished ({last.status}); run it to its end "
                         "first (`discuss follow-up QUESTION` with no text goes on with it)")
    number = len(parts) + 1
    if q.phase:
        extra: dict[str, object] = {"followUpOf": q.slug, "part": number, "panel": panel, "protocol": protocol}
        if q.sources:
            extra["sources"] = list(q.sources)
        section = q.path.parent.relative_to(content).as_posix()
        return create_question(content, section, " ".join(text.split())[:200], list(q.tags), dyson=True,
                               background=background(q, parts, text), bom=q.bom_item, extra=extra)[0]
    suffix = f"-part-{number}"  # the slug stays within the 80 characters of a safe name
    meta: dict[str, object] = {"title": " ".join(text.split())[:200],
                               "slug": q.slug[:80 - len(suffix)].rstrip("-._") + suffix,
                               "followUpOf": q.slug, "part": number, "panel": panel, "protocol": protocol}
    if q.sources:
        meta["sources"] = [moved(s, q.path.parent, q.folder) for s in q.sources]
    path = q.folder / f"part-{number}.md"
    write_atomic(path, documents.render(meta, background(q, parts, text)))
    return path
