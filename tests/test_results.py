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


ANY = re.compile(r"\bAny\b")


def untyped() -> list[str]:
    """Public functions of commands/ (and public methods of its public classes) with `Any` in their signature."""
    found = []
    for path in sorted(COMMANDS.glob("*.py")):
        tree = ast.parse(path.read_text())
        scopes = [("", tree.body)] + [(f"{c.name}.", c.body) for c in tree.body
                                      if isinstance(c, ast.ClassDef) and not c.name.startswith("_")]
        for prefix, body in scopes:
            for fn in body:
                if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and not fn.name.startswith("_"):
                    args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs, fn.args.vararg, fn.args.kwarg]
                    notes = [a.annotation for a in args if a is not None and a.annotation is not None]
                    if any(ANY.search(ast.unparse(n)) for n in [*notes, *([fn.returns] if fn.returns else [])]):
                        found.append(f"{path.stem}.{prefix}{fn.name}")
    return found


# What still takes or gives `Any`, to be typed as the rest was: take a name off once it is typed; a function
# not named here that takes or gives `Any` fails.
NOT_YET = {
    "evalestimate.bounds", "evalestimate.estimate", "evalestimate.protocol_bounds",
    "evalrun.baseline_work", "evalrun.filling", "evalrun.item_specs", "evalrun.prepared", "evalrun.priced",
    "evalrun.protocol_tokens", "evalrun.read_ahead", "evalrun.samples", "evalrun.together", "evaluating.evaluate",
    "evaluating.Eval.binding", "evaluating.progress_of", "evaluating.start_eval",
}


def test_the_application_layer_takes_and_gives_typed_values():
    """No public function of commands/ takes or returns `Any` (a `dict[str, Any]` read by string in two
    front ends was how results broke silently), but those still listed."""
    assert sorted(set(untyped()) - NOT_YET) == [], "return a Result dataclass (commands/results.py), not Any"
