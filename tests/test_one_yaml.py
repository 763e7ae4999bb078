"""Every YAML text discuss reads goes through one reader, every one it writes through one writer.

The reader (store/yamlio.py), the writer (store/yamlwrite.py) and the shape guard they both rely on
(store/yamlshape.py) are the only modules that import a YAML library or read `key: value` lines; any other
would read some files differently, or skip the guard that refuses hostile shapes.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "discuss"
OURS = {"store/yamlio.py", "store/yamlwrite.py", "store/yamlshape.py"}
LIBRARIES = {"yaml", "ruamel", "frontmatter", "strictyaml", "oyaml"}


def uses(tree: ast.AST) -> list[str]:
    """What in a module reads or writes YAML by itself: an import of a YAML library, a line split at `: `
    (a `module:name` split at `:` is not YAML)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}:{node.lineno}" for a in node.names if a.name.split(".")[0] in LIBRARIES]
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in LIBRARIES:
            found.append(f"from {node.module}:{node.lineno}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("partition", "split", "rpartition") and node.args \
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == ": ":
            found.append(f"{node.func.attr} at {node.args[0].value!r}:{node.lineno}")
    return found


def test_no_module_but_the_reader_and_the_writer_reads_or_writes_yaml():
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        if name not in OURS and (hits := uses(ast.parse(path.read_text()))):
            found[name] = hits
    assert found == {}


def test_the_check_finds_what_it_looks_for():
    code = "import yaml\nfrom ruamel.yaml import YAML\ndef f(line):\n    return line.partition(': ')\n"
    assert [hit.split(":")[0] for hit in uses(ast.parse(code))] == ["import yaml", "from ruamel.yaml", "partition at '"]
    assert uses(ast.parse((SRC / "store" / "yamlio.py").read_text()))  # the reader does both
