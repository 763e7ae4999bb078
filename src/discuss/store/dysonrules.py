"""Project Dyson's content rules for question files, checked without changing anything.

Dyson's site and content tests refuse a question file under
`research-questions/phase-<n>/` that lacks any of `questionId`
(`rq-<n>-<k>`), `slug`, `title`, `sourcePhase` (`phase-<n>`),
`sourceBOMItemId` (`bom-<n>-<k>`) or `sourceBOMItemSlug`, or whose file is
not named `<questionId>-<slug>.md`, or whose id another file has. `discuss
check` lists each one with what is wrong, so it is mended before Dyson's
build fails on it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from . import documents
from .layout import question_files

REQUIRED = ("questionId", "slug", "title", "sourcePhase", "sourceBOMItemId", "sourceBOMItemSlug")
PHASE = re.compile(r"phase-(\d+)")


def _meta(path: Path) -> dict[str, Any] | str:
    try:
        meta, _ = documents.read(path)
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        return f"cannot be read: {exc}"
    return meta if isinstance(meta, dict) else "no front matter"


def problems_of(path: Path, meta: dict[str, Any]) -> list[str]:
    """What Dyson's rules refuse in one question file of phase folder `path.parent`."""
    phase = PHASE.fullmatch(path.parent.name)
    n = phase.group(1) if phase else ""
    out = [f"'{key}' is missing or empty" for key in REQUIRED if not str(meta.get(key) or "").strip()]
    qid, slug = str(meta.get("questionId") or ""), str(meta.get("slug") or "")
    if qid and not re.fullmatch(rf"rq-{n}-\d+", qid):
        out.append(f"questionId {qid!r} is not rq-{n}-<number>")
    if meta.get("sourcePhase") and meta["sourcePhase"] != path.parent.name:
        out.append(f"sourcePhase {meta['sourcePhase']!r} is not its folder's {path.parent.name!r}")
    bom = str(meta.get("sourceBOMItemId") or "")
    if bom and not re.fullmatch(rf"bom-{n}-\d+", bom):
        out.append(f"sourceBOMItemId {bom!r} is not bom-{n}-<number>")
    if qid and slug and path.stem != f"{qid}-{slug}":
        out.append(f"file name is not {qid}-{slug}.md")
    return out


def problems(content: Path) -> list[tuple[Path, str]]:
    """Every question file in a Dyson phase folder that Dyson would refuse, with why; [] when none."""
    found: list[tuple[Path, str]] = []
    ids: dict[str, Path] = {}
    for path in question_files(content):
        if not PHASE.fullmatch(path.parent.name) or path.parent.parent.name != "research-questions":
            continue
        meta = _meta(path)
        if isinstance(meta, str):
            found.append((path, meta))
            continue
        found += [(path, p) for p in problems_of(path, meta)]
        if qid := str(meta.get("questionId") or ""):
            if qid in ids:
                found.append((path, f"questionId {qid} is also {ids[qid].name}'s"))
            ids.setdefault(qid, path)
    return found
