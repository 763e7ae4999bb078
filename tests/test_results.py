"""Typed results: the one serialiser of the application layer, and no `Any` in what its functions take or give."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pytest

from discuss.commands.results import OPTIONAL, Result, as_json, camel

COMMANDS = Path(__file__).resolve().parent.parent / "src" / "discuss" / "commands"


@dataclass
class Inner(Result):
    total_tokens: int
    cost: float | None


@dataclass
class Outer(Result):
    slug: str
    last_output: str | None
    inner: Inner
    rows: list[Inner]
    where: PurePosixPath
    by_name: dict[str, tuple[int, ...]]
    kept: int = field(default=0, metadata={"key": "ballots"})
    note: str | None = field(default=None, metadata=OPTIONAL)


def test_a_result_is_json_under_camelcase_keys_in_the_order_of_its_fields():
    found = Outer("q", None, Inner(3, None), [Inner(1, 0.5)], PurePosixPath("content/q.md"), {"a": (1, 2)}, 4)
    assert found.to_json() == {"slug": "q", "lastOutput": None, "inner": {"totalTokens": 3, "cost": None},
                               "rows": [{"totalTokens": 1, "cost": 0.5}], "where": "content/q.md",
                               "byName": {"a": [1, 2]}, "ballots": 4}
    assert list(found.to_json()) == ["slug", "lastOutput", "inner", "rows", "where", "byName", "ballots"]
    found.note = "said"  # an optional key appears only once it has a value; a plain None is kept as null
    assert found.to_json()["note"] == "said" and list(found.to_json())[-1] == "note"


def test_camel_case_is_the_files_spelling():
    assert [camel(n) for n in ("slug", "last_output", "prompt_tokens", "with_reasks")] == [
        "slug", "lastOutput", "promptTokens", "withReasks"]


def test_what_json_cannot_hold_is_refused_by_name():
    with pytest.raises(TypeError, match="object is not a JSON value"):
        as_json({"x": object()})


# What says nothing of a value's shape: `Any`, `object` (alone or inside: `dict[str, object]`), a container
# with no item type (`dict`, `list`, `Mapping`), and a record passed off as plain JSON (`dict[str, JSON]`).
LOOSE = re.compile(r"\b(?:Any|object)\b"
                   r"|\b(?:dict|list|tuple|set|frozenset|Mapping|MutableMapping|Sequence|Iterable)\b(?!\s*\[)"
                   r"|\bdict\[str, JSON\]")


def untyped(source: str, module: str) -> list[str]:
    """Public functions of a module (and public methods of its public classes) with a loose type in their
    signature."""
    found = []
    tree = ast.parse(source)
    scopes = [("", tree.body)] + [(f"{c.name}.", c.body) for c in tree.body
                                  if isinstance(c, ast.ClassDef) and not c.name.startswith("_")]
    for prefix, body in scopes:
        for fn in body:
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and not fn.name.startswith("_"):
                args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs, fn.args.vararg, fn.args.kwarg]
                notes = [a.annotation for a in args if a is not None and a.annotation is not None]
                if any(LOOSE.search(ast.unparse(n)) for n in [*notes, *([fn.returns] if fn.returns else [])]):
                    found.append(f"{module}.{prefix}{fn.name}")
    return found


def loose() -> set[str]:
    return {name for path in sorted(COMMANDS.glob("*.py")) for name in untyped(path.read_text(), path.stem)}


# JSON that is a document, not a record: the serialiser itself, which takes any value; the record in its file
# format's shape (`show --json`, `export`), documented as such; a protocol's own figures, whose shape is the
# plugin's; and a workflow's job, written out as YAML.
DOCUMENTS = {
    "results.as_json", "results.to_json", "results.Result.to_json",
    "showing.discussion_data", "finished.result", "exporting.Exported.document",
    "exporting.rescore_one",
    "ci.shard_job", "ci.gather_job",
}


def test_the_application_layer_takes_and_gives_typed_values():
    """No public function of commands/ takes or returns a loose type (a `dict[str, Any]` read by string in two
    front ends was how results broke silently), but the documents named; none named is typed already."""
    found = loose()
    assert sorted(found - DOCUMENTS) == [], "return a Result dataclass (commands/results.py), not a loose type"
    assert sorted(DOCUMENTS - found) == [], "typed now: take it off the list"


@pytest.mark.parametrize("signature", [
    "def f(x) -> Any: ...", "def f(x: Any) -> int: ...", "def f() -> dict[str, Any]: ...",
    "def f() -> Mapping[str, Any]: ...", "def f() -> dict[str, object]: ...", "def f() -> object: ...",
    "def f() -> dict: ...", "def f() -> list: ...", "def f(x: Sequence) -> int: ...",
    "def f() -> list[dict[str, JSON]]: ...", "def f() -> tuple[dict[str, JSON], list[str]]: ...",
    "def f(*args: Any) -> None: ...", "def f(**kw: object) -> None: ...",
    "class C:\n    def f(self) -> dict[str, Any]: ...",
])
def test_a_loose_type_is_found_however_it_is_spelled(signature):
    assert untyped(signature, "m") in (["m.f"], ["m.C.f"])


@pytest.mark.parametrize("signature", [
    "def f(x: int) -> str: ...", "def f() -> dict[str, list[int]]: ...", "def f() -> Sequence[Row]: ...",
    "def f() -> tuple[list[Row], list[str]]: ...", "def f() -> dict[str, Row] | None: ...",
    "def f() -> Objective: ...", "def f() -> AnyRow: ...", "def _f() -> Any: ...",
    "class _C:\n    def f(self) -> Any: ...",
])
def test_a_precise_type_is_not(signature):
    assert untyped(signature, "m") == []
