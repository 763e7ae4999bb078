"""One YAML dialect for every file we write: stable, diff-friendly, alias-free.

Output is deterministic (insertion order, no reflowing at 80 columns), so
saving unchanged data changes no byte. Multi-line text is written as a
literal block where that reads back identically, else quoted. Our own
files are written and read with libyaml (PyYAML's C emitter and parser)
and YAML 1.2 semantics, three to four times faster than ruamel; files
people write are read by ruamel.
"""

from __future__ import annotations

import datetime as _dt
import re
import threading

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from ..text.clean import valid_unicode
from .yamlshape import MAX_DEPTH, check_shape

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


# Plain scalars that YAML 1.2's core schema reads as something other than text.
CORE_12 = [
    ("tag:yaml.org,2002:null", r"~|null|Null|NULL|", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"true|True|TRUE|false|False|FALSE", list("tTfF")),
    ("tag:yaml.org,2002:int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", list("-+0123456789")),
    ("tag:yaml.org,2002:float", r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)", list("-+.0123456789")),
]


def _keeping_tags(base: type) -> type:
    """`base` (libyaml's emitter or parser) keeping the tag of each short plain text it resolves: it is asked
    for every scalar of every file, mostly the same keys and words, and the answer depends on the text (and
    whether it is plain) alone."""
    import yaml

    class Keeping(base):
        resolved: dict[tuple[str, tuple[bool, bool]], str] = {}

        def resolve(self, kind, value, implicit):
            if kind is not yaml.ScalarNode or len(value) > SHORT:
                return super().resolve(kind, value, implicit)
            key = (value, implicit)
            if (tag := self.resolved.get(key)) is None:
                if len(self.resolved) >= KEPT:
                    self.resolved.clear()
                tag = self.resolved[key] = super().resolve(kind, value, implicit)
            return tag

    return Keeping


def _dumper() -> type:
    """libyaml's emitter, keys in insertion order, no aliases, multi-line text as a literal block where safe.

    A string is quoted wherever YAML 1.1 or 1.2 would read it, plain, as
    anything but text (`yes`, `1_000`, `0o17`, `1e5`...), so every reader
    (ours, ruamel, another tool's) reads back the same value.
    """
    if "dumper" in _CLASSES:
        return _CLASSES["dumper"]

    import yaml

    class Dumper(_keeping_tags(getattr(yaml, "CSafeDumper", yaml.SafeDumper))):  # type: ignore[misc]
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


_CLASSES: dict[str, type] = {}
SHORT, KEPT = 80, 20_000  # the texts whose tags are kept, and how many at most


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
    import yaml

    return yaml.dump(_prepare(data), Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=4096,
                     default_flow_style=False)


def load(text: str, written: bool = False):
    """Parse YAML text; raises ValueError with the position of the problem.

    Every YAML text goes through here: checked by `check_shape`, a leading
    byte-order mark dropped, duplicate keys refused.

    `written`: a file of ours, as `dump` writes it (a discussion's index,
    votes, rounds, reply front matter): read with libyaml, three times
    faster, resolving plain scalars only as `dump` writes non-strings.
    Files people write (panels, scripts, questions) are read by ruamel.
    """
    text = text.removeprefix("\ufeff")
    check_shape(text)
    if written:
        import yaml

        try:
            return _native_document(text)
        except yaml.YAMLError:
            pass  # let ruamel word the error, or read what is not a file of ours
    try:
        return plain(_reader().load(text))
    except YAMLError as exc:
        raise ValueError(str(exc).replace("\n", " ").replace('in "<unicode string>", ', "")) from None
    except RecursionError:
        raise ValueError(f"nested too deeply (more than {MAX_DEPTH} levels)") from None


def _native_document(text: str):
    """The document as plain values, from libyaml's node graph: a file of ours holds mappings, sequences and
    the scalars of YAML 1.2's core schema, built here directly (PyYAML's general constructor took half the
    time of reading one). Any other tag, a duplicate or unhashable key raises, for ruamel to read or word."""
    loader = _written_loader()(text)
    try:
        node = loader.get_single_node()
    finally:
        loader.dispose()
    return None if node is None else _native(node)


def _native(node):
    import yaml

    kind = node.__class__
    if kind is yaml.ScalarNode:
        if (make := _SCALARS.get(node.tag)) is not None:
            return make(node.value)
    elif kind is yaml.SequenceNode and node.tag == "tag:yaml.org,2002:seq":
        return [_native(item) for item in node.value]
    elif kind is yaml.MappingNode and node.tag == "tag:yaml.org,2002:map":
        out = {}
        for key_node, value_node in node.value:
            key = _native(key_node)
            if isinstance(key, (dict, list)) or key in out:
                raise yaml.constructor.ConstructorError(None, None, f"unhashable or duplicate key {key!r}",
                                                        key_node.start_mark)
            out[key] = _native(value_node)
        return out
    raise yaml.constructor.ConstructorError(None, None, f"a {node.tag} is not in a file of ours", node.start_mark)


def _int(value: str) -> int:
    return int(value, 0) if value.startswith(("0o", "0x")) else int(value)  # 017 is 17, as in YAML 1.2


def _float(value: str) -> float:
    low = value.lower()
    if low.endswith(".inf"):
        return float("-inf") if low.startswith("-") else float("inf")
    return float("nan") if low == ".nan" else float(value)


_SCALARS = {"tag:yaml.org,2002:str": str, "tag:yaml.org,2002:int": _int, "tag:yaml.org,2002:float": _float,
            "tag:yaml.org,2002:bool": lambda value: value.lower() == "true",
            "tag:yaml.org,2002:null": lambda value: None}


def _written_loader() -> type:
    """libyaml's parser, resolving plain scalars by YAML 1.2's core schema only (`_native` builds the values).

    No YAML 1.1 yes/no, sexagesimals, underscores or timestamps: `dump`
    quotes every string that any of those would make something else.
    Pinned by a round-trip property test against ruamel.
    """
    if "loader" in _CLASSES:
        return _CLASSES["loader"]

    import yaml

    class Loader(_keeping_tags(getattr(yaml, "CSafeLoader", yaml.SafeLoader))):  # type: ignore[misc]
        yaml_implicit_resolvers: dict = {}  # none of PyYAML's YAML 1.1 rules

    for tag, pattern, first in CORE_12:
        Loader.add_implicit_resolver(tag, re.compile(f"^(?:{pattern})$"), first)
    _CLASSES["loader"] = Loader
    return Loader
