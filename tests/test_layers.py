"""Layers import one way and modules form no cycle: read from the source, as an import linter would.

core (domain, schema, rules, the pure figures) <- protocols <- store <- the run (gateway, providers,
runner) <- what people see (cli, site, reports). Imports for type checking only are left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
LAYERS = [  # lowest first; a module not named here is core
    ("protocols", ["discuss.protocols", "discuss.stats", "discuss.trialstats"]),  # stats read the protocols' figures
    ("store", ["discuss.store"]),
    ("run", ["discuss.gateway", "discuss.providers", "discuss.runner", "discuss.prepare", "discuss.batch", "discuss.actions",
             "discuss.dry_run", "discuss.scaffold", "discuss.ci", "discuss.doctor"]),
    ("presentation", ["discuss.site", "discuss.report", "discuss.listing", "discuss.export", "discuss.leaderboard",
                      "discuss.tables"]),
    ("application", ["discuss.commands"]),  # what each command does, returning values
    ("interfaces", ["discuss.cli", "discuss.mcp_server", "discuss.entry", "discuss.quick", "discuss.__main__"]),
]


def layer(module: str) -> int:
    for rank, (_, prefixes) in enumerate(LAYERS, start=1):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return 0


def name_of(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def type_only(tree: ast.Module) -> set[int]:
    """Line numbers of imports under `if TYPE_CHECKING:`."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            lines |= {n.lineno for child in node.body for n in ast.walk(child) if hasattr(n, "lineno")}
    return lines


def imports() -> dict[str, set[str]]:
    """Each module of discuss, and the modules of discuss it imports (a package's name for its __init__)."""
    files = {name_of(p): p for p in (SRC / "discuss").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text())
        skip, found = type_only(tree), set()
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join([*base, *([node.module] if node.module else [])])
                found |= {f"{target}.{a.name}" if f"{target}.{a.name}" in files else target for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        graph[module] = {m for m in found if m in files and m != module}
    return graph


def test_no_layer_imports_a_layer_above_it():
    upward = sorted(f"{m} -> {d}" for m, deps in imports().items() for d in deps if layer(d) > layer(m))
    assert upward == []


def test_no_module_imports_itself_through_others():
    graph = imports()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(m: str) -> None:  # Tarjan's strongly connected components
        index[m] = low[m] = len(index)
        stack.append(m)
        for d in sorted(graph[m]):
            if d not in index:
                visit(d)
                low[m] = min(low[m], low[d])
            elif d in stack:
                low[m] = min(low[m], index[d])
        if low[m] == index[m]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == m:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    assert cycles == []


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    """The reader itself: a protocol importing the store is caught (as vote's audit once did)."""
    graph = imports()
    assert "discuss.protocols.base" in graph["discuss.protocols.vote.protocol"]
    assert layer("discuss.store.discussions") > layer("discuss.protocols.vote.audit")


# The vote protocol's own names, in code and in its files: only its package may use them.
VOTE_NAMES = re.compile(r"\b(winner_id|termination_votes|approve_count|reject_count|should_terminate|VoteResult|"
                        r"TerminationVote|BallotBox|VOTE_SCORES|winnerId|winnerScore|voteResults|approveCount|"
                        r"rejectCount|shouldTerminate)\b|\.(ballots|abstentions|votes)\b(?! import)")


def test_no_module_outside_the_vote_package_names_a_vote_field():
    found = []
    for path in sorted((SRC / "discuss").rglob("*")):
        if path.suffix not in (".py", ".j2") or (SRC / "discuss" / "protocols" / "vote") in path.parents:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if VOTE_NAMES.search(line):
                found.append(f"{path.relative_to(SRC)}:{number}: {line.strip()}")
    assert found == []
