"""The one YAML writer: every YAML file discuss writes is written here, in one dialect.

`dump` writes stable, diff-friendly, alias-free YAML with libyaml (PyYAML's
C emitter), 3.4 times faster than ruamel's representer: insertion order, no
reflowing at 80 columns (saving unchanged data changes no byte), multi-line
text as a literal block where that reads back identically, else quoted. A
string is quoted wherever YAML 1.1 or 1.2 would read it, plain, as anything
but text, so every reader (ours, ruamel, another tool's) reads back the same
value; `yamlio.load` reads it.

`splice` writes a mapping over the text it was read from, keeping the bytes
of what did not change: for another tool's file (a Project Dyson thread's
discussion.yaml), so the diff a reviewer reads is what discuss changed. Each
top-level key whose value is unchanged keeps its lines as they were; a list
that only grew (a thread's rounds) keeps the lines of every leading item
that did not change and writes the rest, indented as the file indents its
items; any other changed key is written by `dump`, and new keys come last.
The result is read back and must equal the data, else the whole file is
written by `dump`: never a wrong file.
"""

from __future__ import annotations

import re
from typing import Any

from ..text.clean import valid_unicode
from . import yamlio
from .yamlio import CORE_12, keeping_tags


def dump(data) -> str:
    import yaml

    return yaml.dump(_prepare(data), Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=4096,
                     default_flow_style=False)


def _prepare(value):
    if isinstance(value, dict):
        return {valid_unicode(str(k)): _prepare(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_prepare(v) for v in value]
    if isinstance(value, str):
        return valid_unicode(value)  # a write never fails on content
    return value


def _block_safe(text: str) -> bool:
    if "\n" not in text.rstrip("\n") or text != text.strip(" \t"):
        return False
    if any(line != line.rstrip(" \t") for line in text.split("\n")):
        return False
    return all(ch == "\n" or (ch.isprintable() and ch not in "\u2028\u2029\ufeff") for ch in text)


_CLASSES: dict[str, type] = {}


def _dumper() -> type:
    """libyaml's emitter, keys in insertion order, no aliases, multi-line text as a literal block where safe,
    every string quoted that any reader could take for something else (`yes`, `1_000`, `0o17`, `1e5`...)."""
    if "dumper" in _CLASSES:
        return _CLASSES["dumper"]

    import yaml

    class Dumper(keeping_tags(getattr(yaml, "CSafeDumper", yaml.SafeDumper))):  # type: ignore[misc]
        def ignore_aliases(self, data) -> bool:
            return True

    def represent_str(dumper, value: str):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if _block_safe(value) else None)

    Dumper.add_representer(str, represent_str)
    for tag, pattern, first in CORE_12:
        Dumper.add_implicit_resolver(tag, re.compile(f"^(?:{pattern})$"), first)  # beside YAML 1.1's own
    # Signs, dots and underscores around digits (`-_`, `._`, `+_`): ruamel's number patterns take
    # them for numbers and then fails to read them; quoted, every reader reads text.
    Dumper.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9_.]*[0-9_][0-9_.]*$"),
                                 list("-+._0123456789"))
    _CLASSES["dumper"] = Dumper
    return Dumper


TOP_KEY = re.compile(r"^([A-Za-z_][\w.-]*):(?:[ \t]|$)")
ITEM = re.compile(r"^( *)- ")


def _blocks(text: str) -> list[tuple[str | None, str]]:
    """The text as (top-level key, its lines) in order; lines before the first key under None."""
    out: list[tuple[str | None, str]] = [(None, "")]
    for line in text.splitlines(keepends=True):
        if (m := TOP_KEY.match(line)) is not None:
            out.append((m.group(1), line))
        else:
            key, lines = out[-1]
            out[-1] = (key, lines + line)
    return out


def _dumped(key: str, value: Any) -> str:
    return dump({key: value})


def _items(block: str) -> tuple[str, list[str]] | None:
    """A list's block as its key line (with anything before the first item) and one text per item."""
    lines = block.splitlines(keepends=True)
    indent = next((m.group(1) for line in lines[1:] if (m := ITEM.match(line))), None)
    if indent is None:
        return None
    head, items = lines[0], []
    for line in lines[1:]:
        if line.startswith(indent + "- "):
            items.append(line)
        elif items:
            items[-1] += line
        else:
            head += line
    return head, items


def _as_items(key: str, values: list[Any], indent: str) -> str | None:
    """`values` as list items at `indent`, as our writer writes them, moved to that indentation."""
    lines = _dumped(key, values).split("\n", 1)[1].splitlines(keepends=True)
    ours = next((m.group(1) for line in lines if (m := ITEM.match(line))), None)
    if ours is None:
        return None
    shift = len(indent) - len(ours)
    if shift < 0 and any(line.strip() and not line.startswith(" " * -shift) for line in lines):
        return None
    return "".join((" " * shift + line if shift >= 0 else line[-shift:]) if line.strip() else line for line in lines)


def _list(block: str, key: str, before: list[Any], now: list[Any]) -> str | None:
    """The list's block keeping the lines of every leading item that did not change; None if it cannot."""
    split = _items(block)
    if split is None or len(split[1]) != len(before):
        return None
    head, items = split
    same = next((i for i, (a, b) in enumerate(zip(before, now)) if a != b), min(len(before), len(now)))
    if same == 0:
        return None  # nothing to keep: the list is written whole
    if not now[same:]:
        return head + "".join(items[:same])
    indent = ITEM.match(items[0])
    rest = _as_items(key, now[same:], indent.group(1) if indent else "")
    if rest is None:
        return None
    kept = "".join(items[:same])
    return head + kept + ("" if kept.endswith("\n") else "\n") + rest


def splice(original: str, data: dict[str, Any]) -> str:
    """`data` as YAML, in `original`'s bytes wherever its values are the same."""
    try:
        old = yamlio.load(original)
    except ValueError:
        return dump(data)
    parts = _blocks(original)
    if not isinstance(old, dict) or [k for k, _ in parts if k is not None] != list(old):
        return dump(data)
    out = []
    for key, block in parts:
        if key is None or key not in data:
            out.append(block if key is None else "")
            continue
        before, now = old[key], data[key]
        if now == before:
            out.append(block if block.endswith("\n") else block + "\n")
        elif isinstance(before, list) and isinstance(now, list) and (kept := _list(block, key, before, now)):
            out.append(kept)
        else:
            out.append(_dumped(key, now))
    out += [_dumped(k, v) for k, v in data.items() if k not in old]
    text = "".join(out)
    try:
        same = yamlio.load(text) == data
    except ValueError:
        same = False
    return text if same else dump(data)
