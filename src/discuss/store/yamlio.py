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


def _dumper() -> type:
    """libyaml's emitter, keys in insertion order, no aliases, multi-line text as a literal block where safe.

    A string is quoted wherever YAML 1.1 or 1.2 would read it, plain, as
    anything but text (`yes`, `1_000`, `0o17`, `1e5`...), so every reader
    (ours, ruamel, another tool's) reads back the same value.
    """
    if "dumper" in _CLASSES:
        return _CLASSES["dumper"]

    import yaml

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
        resolved: dict[tuple[str, tuple[bool, bool]], str] = {}

        def ignore_aliases(self, data) -> bool:
            return True

        def resolve(self, kind, value, implicit):
            # Asked twice for every scalar of every file a run writes, mostly for the same keys and words;
            # the answer depends on the text alone, so short texts keep theirs.
            if kind is not yaml.ScalarNode or len(value) > SHORT:
                return super().resolve(kind, value, implicit)
            key = (value, implicit)
            if (tag := self.resolved.get(key)) is None:
                if len(self.resolved) >= KEPT:
                    self.resolved.clear()
                tag = self.resolved[key] = super().resolve(kind, value, implicit)
            return tag

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
            return plain(yaml.load(text, Loader=_written_loader()))  # noqa: S506 (a safe constructor)
        except yaml.YAMLError:
            pass  # let ruamel word the error
    try:
        return plain(_reader().load(text))
    except YAMLError as exc:
        raise ValueError(str(exc).replace("\n", " ").replace('in "<unicode string>", ', "")) from None
    except RecursionError:
        raise ValueError(f"nested too deeply (more than {MAX_DEPTH} levels)") from None


def _written_loader() -> type:
    """libyaml's parser and the safe constructor, resolving plain scalars by YAML 1.2's core schema only.

    No YAML 1.1 yes/no, sexagesimals, underscores or timestamps: `dump`
    quotes every string that any of those would make something else.
    Pinned by a round-trip property test against ruamel.
    """
    if "loader" in _CLASSES:
        return _CLASSES["loader"]

    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        yaml_implicit_resolvers: dict = {}  # none of PyYAML's YAML 1.1 rules

    def construct_int(loader, node) -> int:
        value = loader.construct_scalar(node)
        return int(value, 0) if value.startswith(("0o", "0x")) else int(value)  # 017 is 17, as in YAML 1.2

    for tag, pattern, first in CORE_12:
        Loader.add_implicit_resolver(tag, re.compile(f"^(?:{pattern})$"), first)
    def construct_mapping(loader, node, deep=False):
        keys = [loader.construct_object(k, deep=True) for k, _ in node.value]
        for i, key in enumerate(keys):
            if isinstance(key, str) and key in keys[:i]:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", node.start_mark)
        return yaml.SafeLoader.construct_mapping(loader, node, deep)

    Loader.add_constructor("tag:yaml.org,2002:int", construct_int)
    Loader.construct_mapping = construct_mapping
    _CLASSES["loader"] = Loader
    return Loader
