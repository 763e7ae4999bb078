"""What a command returns: typed results, and the one way each becomes the JSON the MCP server and `--json` give.

A command's result is a dataclass deriving from `Result`. Its fields are
read by name where the CLI prints; `to_json()` gives the same values with
the camelCase keys of the project's files (`lastOutput`, `recordDigest`),
in the order the fields are declared. A field whose metadata says
`omit_none` is left out while it is None, so an optional key appears only
where it has a value, as before results were typed. Values nest: a result
inside a result, lists, tuples and dicts of them, paths as text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import PurePath
from typing import TypeAlias

JSON: TypeAlias = "str | int | float | bool | None | list[JSON] | dict[str, JSON]"

OPTIONAL = {"omit_none": True}  # `field(default=None, metadata=OPTIONAL)`: no key while None


def camel(name: str) -> str:
    """`last_output` -> `lastOutput`: the project's files and replies use camelCase."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class Result:
    """A command's typed result; `to_json()` is what the MCP server returns and `--json` prints."""

    def to_json(self) -> dict[str, JSON]:
        return to_json(self)


def to_json(record: object) -> dict[str, JSON]:
    """A dataclass as a JSON object, as `Result.to_json` gives it: for a record a lower layer defines (a status
    row of the archive's listing), which cannot derive from `Result`."""
    out = as_json(record)
    if not isinstance(out, dict):
        raise TypeError(f"{type(record).__name__} is not a record")
    return out


def as_json(value: object) -> JSON:
    """`value` as JSON values: dataclasses by their camelCase fields, containers item by item."""
    kind = type(value)
    if value is None or kind in _PLAIN or isinstance(value, str | int | float | bool):
        return value  # type: ignore[return-value]  # a subclass of a plain value is that value
    keys = _KEYS.get(kind)
    if keys is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        keys = _keys(kind)
    if keys is not None:
        out: dict[str, JSON] = {}
        for name, key, omit in keys:
            item = getattr(value, name)
            if item is None and omit:
                continue
            out[key] = as_json(item)
        return out
    if isinstance(value, Mapping):
        return {str(k): as_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [as_json(v) for v in value]
    if isinstance(value, PurePath):
        return value.as_posix()
    raise TypeError(f"{type(value).__name__} is not a JSON value")


_PLAIN = frozenset({str, int, float, bool})  # asked first: most values of a result are these
_KEYS: dict[type, tuple[tuple[str, str, bool], ...]] = {}


def _keys(kind: type) -> tuple[tuple[str, str, bool], ...]:
    """Each field of the dataclass `kind`: its name, its key and whether it is left out while None; worked out once
    a class, as a status over thousands of rows serialises each row (six times faster than asking each time)."""
    found = _KEYS.get(kind)
    if found is None:
        found = _KEYS[kind] = tuple((f.name, f.metadata.get("key", camel(f.name)), bool(f.metadata.get("omit_none")))
                                    for f in dataclasses.fields(kind))
    return found
