"""`discuss status` over the whole archive, answered before the CLI framework loads.

typer builds a pydantic adapter for every parameter of every command,
which costs more than reading a thousand discussion summaries. This path
takes the few arguments of `[--root DIR] status [--json]` itself, reads
each question's front matter and each discussion's summary head with
libyaml, and prints what the full command prints. Anything else (a
question argument, --help, a file it cannot read quickly) returns None, and
the full CLI answers: the same output, only slower.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..archive.listing import STATUS_HEADER, status_json, status_row, table
from ..domain import FINISHED
from ..store.layout import DISCUSSION_FILE, Layout, part_paths, question_files
from ..store.summary import Summary, from_data, from_head, is_legacy, quick_load
from ..store.yamlshape import MAX_BYTES
from ..text.naming import is_safe_id

SCALARS = (str, int, float, type(None))
FENCE = re.compile(r"^---[ \t]*$", re.MULTILINE)  # the line that closes the front matter


def parse(argv: list[str], env: Mapping[str, str]) -> tuple[Path | None, bool] | None:
    """(the --root folder or None, --json) for a plain `status`; None for anything else."""
    root, rest = env.get("DISCUSS_ROOT") or None, list(argv)
    if rest[:1] == ["--root"] and len(rest) > 1:
        root, rest = rest[1], rest[2:]
    elif rest and rest[0].startswith("--root="):
        root, rest = rest[0].split("=", 1)[1], rest[1:]
    if rest not in (["status"], ["status", "--json"]):
        return None
    if root is not None and not Path(root).is_dir():
        return None  # the full CLI words the error
    return (Path(root).resolve() if root else None), rest[-1] == "--json"


def slug_of(path: Path) -> str | None:
    """The slug of a question file whose front matter is plain; None where the full reader must look."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    closing = FENCE.search(text, 4) if text.startswith("---\n") else None
    if closing is None:
        return None
    block = text[4:closing.start()]
    meta = plain_front_matter(block)
    if meta is None:
        meta = quick_load(block)
    if not isinstance(meta, dict) or not isinstance(meta.get("title"), str) or not meta["title"]:
        return None
    # Only plain values, so this reader and the schema's cannot disagree about the file.
    for value in meta.values():
        items = value if isinstance(value, list) else [value]
        if not all(isinstance(v, SCALARS) and not isinstance(v, bool) for v in items):
            return None
    slug = meta.get("slug") or path.stem
    return slug if isinstance(slug, str) and is_safe_id(slug) else None


# Front matter as `discuss new` and most people write it: `key: words` and `key: [words, words]`, each
# read here exactly as libyaml would (checked against it by a property test); anything else goes to libyaml.
KEY = re.compile(r"[a-z][A-Za-z0-9_-]*")
WORDS = r"[^\W\d][^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff:#{x}]*(?<=[^\s{x}])"
VALUE = re.compile(WORDS.format(x=""))
ITEM = re.compile(WORDS.format(x=r",\[\]{}"))
YAML11_WORDS = {"yes", "no", "true", "false", "on", "off", "null", "y", "n"}  # read as true, false, null


def _word(text: str, pattern: re.Pattern[str]) -> str | None:
    return text if pattern.fullmatch(text) and text.lower() not in YAML11_WORDS else None


def plain_front_matter(block: str) -> dict[str, Any] | None:
    """The front matter read line by line, where every line is plain; None where libyaml must read it."""
    if len(block) > MAX_BYTES:
        return None  # the readers refuse it
    meta: dict[str, Any] = {}
    for line in block.split("\n"):  # YAML's line breaks; others are characters that send it to libyaml
        if not line:
            continue
        key, sep, value = line.partition(": ")
        if not sep or _word(key, KEY) is None:
            return None
        if value.startswith("[") and value.endswith("]"):
            inside = value[1:-1].strip(" ")
            items = [item.strip(" ") for item in inside.split(",")] if inside else []
            if any(_word(item, ITEM) is None for item in items):
                return None
            meta[key] = items
        elif (word := _word(value, VALUE)) is not None:
            meta[key] = word
        else:
            return None
    return meta


class NeedsFullReader(Exception):
    """A file this path does not read as the full reader would: the CLI answers instead."""


def summary_of(folder: Path) -> Summary | None:
    """The summary, None where no discussion was started."""
    try:
        text = (folder / DISCUSSION_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        raise NeedsFullReader from None
    if (found := from_head(text)) is not None:
        return found
    # Dyson's layout has no summary head: read it all, if libyaml reads it as the full reader would.
    data = quick_load(text)
    if not isinstance(data, dict) or not is_legacy(data) or not _plain_rounds(data):
        raise NeedsFullReader
    return from_data(data)


def _plain_rounds(data: dict[str, Any]) -> bool:
    from ..protocols import legacy_format

    words = (str, type(None))
    rounds = data.get("rounds") or []
    return (isinstance(data.get("status"), words) and isinstance(data.get("terminationReason"), words)
            and isinstance(data.get("usage"), (dict, type(None))) and isinstance(rounds, list)
            and all(isinstance(r, dict) for r in rounds) and legacy_format().round_winners(rounds) is not None)


def status(argv: list[str], env: Mapping[str, str] = os.environ) -> int | None:
    """Print the status of every discussion and return 0, or None to leave the command to the CLI."""
    parsed = parse(argv, env)
    if parsed is None:
        return None
    root, as_json = parsed
    content = (Layout(root) if root else Layout.find(Path.cwd())).content
    if not content.is_dir():
        return None
    rows = []
    try:
        for path in question_files(content):  # each with its follow-ups after it
            if (slug := slug_of(path)) is None:
                return None
            rows.append((slug, found := summary_of(path.with_suffix(""))))
            # Only a finished discussion can have been followed up.
            for part in part_paths(path.with_suffix("")) if found and found.status in FINISHED else []:
                if (slug := slug_of(part)) is None:
                    return None
                rows.append((slug, summary_of(part.with_suffix(""))))
    except NeedsFullReader:
        return None
    if not rows and not as_json:
        return None  # the CLI says there are no questions
    if as_json:
        sys.stdout.write(json.dumps([status_json(slug, s) for slug, s in rows], indent=2) + "\n")
    else:
        sys.stdout.write(table(STATUS_HEADER, [status_row(slug, s) for slug, s in rows]) + "\n")
    return 0
