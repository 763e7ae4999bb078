"""Imports of discuss's own modules made inside functions are few, and may only get fewer.

Each is a module loaded later than its reader, which a reader of the code has to keep in mind. One stays
where a benchmark shows what it keeps off a command's start-up, or where it keeps a heavy library (httpx,
litellm, jinja2) off a path that does not need it."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
MOST = 48


def inside_functions() -> list[str]:
    """Each import of a module of discuss made inside a function, as "module:line"."""
    found = []
    for path in sorted((SRC / "discuss").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            for node in ast.walk(function):
                ours = isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("discuss")) \
                    or isinstance(node, ast.Import) and any(a.name.startswith("discuss") for a in node.names)
                if ours:
                    found.append(f"{module}:{node.lineno}")
    return sorted(set(found))  # an import in a function within a function is counted once


def test_few_imports_of_discuss_are_left_inside_functions():
    found = inside_functions()
    assert len(found) <= MOST, f"{len(found)} imports inside functions (at most {MOST}): move them to the top"
    assert any(f.startswith("discuss.providers.builtin:") for f in found)  # each provider imported when first used
