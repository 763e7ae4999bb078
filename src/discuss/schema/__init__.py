"""One validation layer for what people and models hand us.

pydantic v2 models with strict types: a float is not an int, "false" is not
a bool, a typo'd key is refused, a number out of range is refused by name.
`validated` turns pydantic's errors into one InputError that names the
file, the field and what was expected; nothing is written before it passes.
pydantic is imported only here and in the modules of this package.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from ..errors import InputError
from ..text.naming import did_you_mean
from ..text.secrets import KEY_SHAPE

M = TypeVar("M", bound=BaseModel)


def field_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# How pydantic names the branches of a union in an error's location: a type, or one of our models.
BRANCH_TAGS = ("str", "int", "float", "bool")


def _plain(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """The location without pydantic's union branch names."""
    return tuple(p for p in loc if not (isinstance(p, str) and (p in BRANCH_TAGS or p.endswith("Model"))))


def relevant(errors: list[Any]) -> list[Any]:
    """Of a union's errors, those of the branch the input was meant for (a mapping is no string)."""
    out = []
    for e in errors:
        if any(tag in e["loc"] for tag in BRANCH_TAGS) and isinstance(e.get("input"), dict) and any(
                o is not e and _plain(o["loc"])[: len(_plain(e["loc"]))] == _plain(e["loc"]) for o in errors):
            continue
        out.append(e)
    return out


def field_names(model: Any, seen: set[Any] | None = None) -> set[str]:
    """Every key `model` and the models inside it accept, by the names a file spells them: what a
    misspelt key is compared with."""
    import typing

    seen = seen if seen is not None else set()
    if not (isinstance(model, type) and issubclass(model, BaseModel)) or model in seen:
        return set()
    seen.add(model)
    names: set[str] = set()
    for name, info in model.model_fields.items():
        names.add(info.alias or name)
        stack = [info.annotation]
        while stack:
            kind = stack.pop()
            stack += list(typing.get_args(kind))
            names |= field_names(kind, seen)
    return names


def describe_error(error: Any, noun: str = "field", known: set[str] | None = None) -> str:
    loc = _plain(error["loc"])
    path, name = field_path(loc[:-1]), (loc[-1] if loc else "")
    at = f"{path}: " if path else ""
    kind = error["type"]
    if kind == "missing":
        return f"{at}'{name}' is missing"
    if kind == "extra_forbidden":
        what = "setting" if "settings" in loc[:-1] or "config" in loc[:-1] else noun
        return f"{at}unknown {what} '{name}'" + did_you_mean(str(name), sorted(known or ()))
    message = str(error["msg"]).removeprefix("Value error, ")
    if kind == "value_error":
        return f"{field_path(loc)}: {message}" if loc else message

    shown = KEY_SHAPE.sub("[redacted]", repr(error.get("input")))
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"{at}'{name}': {message[0].lower() + message[1:]} (got {shown})"


def validated_as(adapter: TypeAdapter[Any], data: Any, where: str) -> Any:
    """Like `validated`, for a type that is no model (a TypedDict, say)."""
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        raise InputError(f"{where}: " + "; ".join(describe_error(e) for e in relevant(exc.errors()))) from None


def validated(model: type[M], data: Any, where: str, noun: str = "field") -> M:
    """`data` as a `model`, or InputError naming `where`, each wrong field and what it should be."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        known = field_names(model)
        problems = [describe_error(e, noun, known) for e in relevant(exc.errors())]
        raise InputError(f"{where}: " + "; ".join(problems)) from None
