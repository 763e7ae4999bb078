"""One YAML dialect for every file we write: stable, diff-friendly, alias-free.

Output is deterministic (insertion order, no reflowing at 80 columns), so
saving unchanged data changes no byte. Multi-line text is written as a
literal block where that reads back identically, else quoted. Reading and
writing both use ruamel's C parser and emitter, with YAML 1.2 semantics.
"""

from __future__ import annotations

import datetime as _dt
import io
import threading

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.representer import SafeRepresenter

from ..text import valid_unicode

_local = threading.local()


def _reader() -> YAML:
    # The safe loader on ruamel's C parser reads YAML 1.2 about seven times
    # faster than the round-trip loader; the site reads thousands of files.
    y = getattr(_local, "reader", None)
    if y is None:
        y = _local.reader = YAML(typ="safe", pure=False)
    return y


def _block_safe(text: str) -> bool:
    if "\n" not in text.rstrip("\n") or text != text.strip(" \t"):
        return False
    if any(line != line.rstrip(" \t") for line in text.split("\n")):
        return False
    return all(ch == "\n" or (ch.isprintable() and ch not in "\u2028\u2029\ufeff") for ch in text)


class _Representer(SafeRepresenter):
    """Keys in insertion order, no aliases, multi-line text as a literal block where safe."""

    def ignore_aliases(self, data) -> bool:
        return True

    def represent_str(self, value: str):
        return self.represent_scalar("tag:yaml.org,2002:str", value, style="|" if _block_safe(value) else None)


_Representer.add_representer(str, _Representer.represent_str)


def _writer() -> YAML:
    # The safe dumper on ruamel's C emitter writes about four times faster than the
    # round-trip one; a run rewrites the current round's files after every call.
    y: YAML | None = getattr(_local, "writer", None)
    if y is None:
        y = YAML(typ="safe", pure=False)
        y.Representer = _Representer
        y.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
        y.default_flow_style = False
        y.width = 4096
        y.allow_unicode = True
        _local.writer = y
    return y


def _prepare(value):
    if isinstance(value, dict):
        return {valid_unicode(str(k)): _prepare(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_prepare(v) for v in value]
    if isinstance(value, str):
        return valid_unicode(value)  # a write never fails on content
    return value


def plain(value):
    """ruamel's round-trip types as plain dicts, lists and strings."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if isinstance(value, str):
        return str(value)
    return value


def dump(data) -> str:
    buf = io.StringIO()
    _writer().dump(_prepare(data), buf)
    return buf.getvalue()


def load(text: str):
    """Parse YAML text; raises ValueError with the position of the problem."""
    try:
        return plain(_reader().load(text))
    except YAMLError as exc:
        raise ValueError(str(exc).replace("\n", " ")) from None
