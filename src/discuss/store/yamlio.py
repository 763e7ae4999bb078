"""The one YAML reader: every YAML text discuss reads is read by `load`.

Each text is read the fastest way that reads it exactly as the next would:

- line by line, where it is a mapping of plain values as our writer lays
  them out and most front matter people write (`key: words`, a quoted
  text, a number, `null`, a list of words, one level of `  key: value` or
  `- value` lines): no parser is imported, and `discuss status` over a
  large archive reads its question files and index heads this way;
- libyaml's node graph built straight into plain values with YAML 1.2's
  core schema, for files of ours (`written`): three times faster than
  ruamel, and what `discuss status` falls back to (`quick`);
- ruamel's safe loader (YAML 1.2), for files people write and anything the
  others do not take.

Every text is checked by `yamlshape.check_shape` first. The writer is
`yamlwrite`; the plain scalars both resolve are `CORE_12`.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from .yamlshape import MAX_BYTES, MAX_DEPTH, check_shape


def load(text: str, written: bool = False, *, quick: bool = False, only: Collection[str] | None = None) -> Any:
    """Parse YAML text; raises ValueError with the position of the problem.

    A leading byte-order mark is dropped, duplicate keys refused.
    `written`: a file of ours, as `yamlwrite.dump` writes it (a discussion's
    index, votes, rounds, reply front matter): read with libyaml where the
    line reader does not take it, resolving plain scalars only as the writer
    writes non-strings. `quick`: never import ruamel and never raise (the
    start-up of `discuss status`): None where the text is refused or only
    ruamel could read it; the caller checks the types of what it takes and
    leaves the rest to the full reader. `only`: the top-level keys wanted,
    read line by line whatever the other keys' values are (an index's head);
    where the line reader does not take them, the whole text is read.
    """
    text = text.removeprefix("\ufeff")
    # Plain values one level deep hold no alias and no nesting: the guard is for what a parser builds.
    if len(text) <= MAX_BYTES and (found := _plain(text, only)) is not None:
        return found
    try:
        check_shape(text)
    except ValueError:
        if quick:
            return None
        raise
    if written or quick:
        import yaml

        try:
            return _native_document(text)
        except Exception as exc:  # in the quick way, whatever libyaml makes of it is the full reader's to say
            if quick:
                return None
            if not isinstance(exc, yaml.YAMLError):
                raise
            # else let ruamel word the error, or read what is not a file of ours
    from ruamel.yaml.error import YAMLError

    try:
        return plain(_reader().load(text))
    except YAMLError as exc:
        raise ValueError(str(exc).replace("\n", " ").replace('in "<unicode string>", ', "")) from None
    except RecursionError:
        raise ValueError(f"nested too deeply (more than {MAX_DEPTH} levels)") from None


# The plain values the line reader takes: each read as libyaml (YAML 1.1 and 1.2) and ruamel read it, checked
# against them by property tests. Words begin with a letter and hold no `:` or `#`, so no YAML reads them as
# anything but text, unless they are YAML 1.1's words for true, false and null; numbers only as our writer
# writes them; a quoted text on one line. The patterns are compiled when first used (`re` keeps them): a
# status that reads nothing, its rows kept from the last, compiles none.
KEY = r"[a-z][A-Za-z0-9_-]*"
WORDS = r"[^\W\d][^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff:#{x}]*(?<=[^\s{x}])"
WORD = WORDS.format(x="")
ITEM = WORDS.format(x=r",\[\]{}")
QUOTED = "'(?:[^'\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|'')*'"
NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+(?:e[-+][0-9]+)?)?"
YAML11_WORDS = {"yes", "no", "true", "false", "on", "off", "null", "y", "n"}
CONSTANTS: dict[str, Any] = {"null": None, "true": True, "false": False, "[]": [], "{}": {}}


class _NotPlain(Exception):
    """A line the line reader does not take: the text goes to a parser."""


def _word(text: str, pattern: str) -> str:
    if re.fullmatch(pattern, text) and text.lower() not in YAML11_WORDS:
        return text
    raise _NotPlain


def _value(text: str) -> Any:
    """A plain value, kept where short: an archive's files repeat their words and numbers."""
    found = _VALUES.get(text, _VALUES)
    if found is _VALUES:
        found = _parsed(text)
        if len(text) <= SHORT and not isinstance(found, (list, dict)):  # never shared: a caller may change it
            if len(_VALUES) >= KEPT:
                _VALUES.clear()
            _VALUES[text] = found
    return found


def _parsed(text: str) -> Any:
    if text in CONSTANTS:
        found = CONSTANTS[text]
        return found.copy() if isinstance(found, (list, dict)) else found
    if text[:1] == "'":
        if re.fullmatch(QUOTED, text):
            return text[1:-1].replace("''", "'")
    elif text[:1] == "[" and text[-1:] == "]":
        inside = text[1:-1].strip(" ")
        return [_word(item.strip(" "), ITEM) for item in inside.split(",")] if inside else []
    elif re.fullmatch(NUMBER, text):
        return float(text) if "." in text else int(text)
    return _word(text, WORD)


def _key(key: str) -> str:
    if key not in _KEYS:
        if len(_KEYS) >= KEPT:
            _KEYS.clear()
        _KEYS.add(_word(key, KEY))
    return key


_VALUES: dict[str, Any] = {}
_KEYS: set[str] = set()


def _plain(text: str, only: Collection[str] | None = None) -> dict[str, Any] | None:
    """The text read line by line where it is a mapping of plain values; None where a parser must read it.
    A duplicate key is the parsers' to refuse. Written for speed: it reads every file of a status."""
    out: dict[str, Any] = {}
    key = None  # the top-level key whose value the indented or `- ` lines that follow give
    skipping = False
    keys, values = _KEYS, _VALUES
    try:
        for line in text.split("\n"):  # YAML's line breaks; others are characters no plain value holds
            if not line:
                continue
            first = line[0]
            if first == " " or first == "-" and line[1:2] == " ":
                if skipping:
                    continue
                if key is None:
                    raise _NotPlain
                block = out[key]
                if first == "-":
                    if block is None:
                        block = out[key] = []
                    elif type(block) is not list:
                        raise _NotPlain
                    block.append(_value(line[2:]))
                    continue
                if len(line) < 3 or line[1] != " " or line[2] == " ":
                    raise _NotPlain
                if block is None:
                    block = out[key] = {}
                elif type(block) is not dict:
                    raise _NotPlain
                into = block
                name, sep, value = line[2:].partition(": ")
            else:
                name, sep, value = line.partition(": ")
                opens = not sep and line[-1] == ":"  # `name:`: its value is in the lines under it, null without
                if opens:
                    name = line[:-1]
                skipping = only is not None and name not in only
                if skipping:
                    continue
                key, into = None, out
                if opens:
                    if name in out:
                        raise _NotPlain
                    key, out[name] = _key(name), None
                    continue
            if not sep or name in into:
                raise _NotPlain
            if name not in keys:
                _key(name)
            found = values.get(value, values)
            into[name] = _value(value) if found is values else found
    except _NotPlain:
        return None
    return out if out or only is not None else None


def plain(value):
    """ruamel's round-trip types as plain dicts, lists and strings."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if hasattr(value, "isoformat"):  # a date or time
        return value.isoformat()
    if isinstance(value, str):
        return str(value)
    return value


_local: Any = None  # each thread's ruamel reader; made by the first, as the status never needs one


def _reader():
    # The safe loader on ruamel's C parser reads YAML 1.2 about seven times
    # faster than the round-trip loader; the site reads thousands of files.
    global _local
    if _local is None:
        import threading

        _local = threading.local()
    y = getattr(_local, "reader", None)
    if y is None:
        from ruamel.yaml import YAML

        y = _local.reader = YAML(typ="safe", pure=False)
    return y


# Plain scalars that YAML 1.2's core schema reads as something other than text.
CORE_12 = [
    ("tag:yaml.org,2002:null", r"~|null|Null|NULL|", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"true|True|TRUE|false|False|FALSE", list("tTfF")),
    ("tag:yaml.org,2002:int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", list("-+0123456789")),
    ("tag:yaml.org,2002:float", r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)", list("-+.0123456789")),
]
SHORT, KEPT = 80, 20_000  # the texts whose tags are kept, and how many at most


def keeping_tags(base: type) -> type:
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
_CLASSES: dict[str, type] = {}


def _written_loader() -> type:
    """libyaml's parser, resolving plain scalars by YAML 1.2's core schema only (`_native` builds the values).

    No YAML 1.1 yes/no, sexagesimals, underscores or timestamps: the writer
    quotes every string that any of those would make something else.
    Pinned by a round-trip property test against ruamel.
    """
    if "loader" in _CLASSES:
        return _CLASSES["loader"]

    import yaml

    class Loader(keeping_tags(getattr(yaml, "CSafeLoader", yaml.SafeLoader))):  # type: ignore[misc]
        yaml_implicit_resolvers: dict = {}  # none of PyYAML's YAML 1.1 rules

    for tag, pattern, first in CORE_12:
        Loader.add_implicit_resolver(tag, re.compile(f"^(?:{pattern})$"), first)
    _CLASSES["loader"] = Loader
    return Loader
