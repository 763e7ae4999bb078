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


def load(text: str, written: bool = False):
    """Parse YAML text; raises ValueError with the position of the problem.

    `written`: a file of ours, as `dump` writes it (a discussion's index,
    votes, rounds, reply front matter): read with libyaml, three times
    faster, resolving plain scalars only as `dump` writes non-strings.
    Files people write (panels, scripts, questions) are read by ruamel.
    """
    if written:
        import yaml

        try:
            return plain(yaml.load(text, Loader=_written_loader()))  # noqa: S506 (a safe constructor)
        except yaml.YAMLError:
            pass  # let ruamel word the error
    try:
        return plain(_reader().load(text))
    except YAMLError as exc:
        raise ValueError(str(exc).replace("\n", " ")) from None


_WRITTEN: list[type] = []


def _written_loader() -> type:
    """libyaml's parser and the safe constructor, with YAML 1.2 core resolution of plain scalars.

    Only null, true/false, decimal integers and floats resolve; anything else
    is a string (no YAML 1.1 yes/no, sexagesimals, underscores or timestamps:
    `dump` quotes every string that ruamel would read as something else, and
    writes non-strings in these forms). Pinned by a round-trip property test.
    """
    if _WRITTEN:
        return _WRITTEN[0]
    import re

    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        yaml_implicit_resolvers: dict = {}  # none of PyYAML's YAML 1.1 rules

    rules = [
        ("tag:yaml.org,2002:null", r"~|null|Null|NULL|", ["~", "n", "N", ""]),
        ("tag:yaml.org,2002:bool", r"true|True|TRUE|false|False|FALSE", list("tTfF")),
        ("tag:yaml.org,2002:int", r"[-+]?[0-9]+", list("-+0123456789")),
        ("tag:yaml.org,2002:float", r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
         r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)", list("-+.0123456789")),
    ]
    for tag, pattern, first in rules:
        Loader.add_implicit_resolver(tag, re.compile(f"^(?:{pattern})$"), first)
    _WRITTEN.append(Loader)
    return Loader
