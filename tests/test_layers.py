"""Layers import one way and modules form no cycle: read from the source, as an import linter would.

core (domain, calls, errors, text, schema, rules) <- plugin (the public surface, with the interfaces it names: a
protocol's, its parts', a provider's, and the checks protocols share) <- protocols <- store <- engine (the run
and its providers) <- presentation (site, archive) <- commands <- interfaces (cli, mcp_server). Every import
statement is read, those inside functions as well as those at the top of a module (a lazy import is an import
all the same). Imports for type checking only are left out here; the cycle
test counts them too, and
the modules a module names to import later (an `import_module` string, "module:object" in a table, an entry-point
group of pyproject.toml whose name it holds): a cycle through a name is a cycle all the same.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
LAYERS = [  # lowest first, by package; everything else (domain, calls, errors, text, schema, rules) is core
    # The names a plugin imports, and the modules defining the interfaces among them: the built-in protocols
    # import discuss only from here, so these may import no protocol.
    ("plugin", ["discuss.plugin", "discuss.protocols.base", "discuss.protocols.parts", "discuss.protocols.checks",
                "discuss.providers.base"]),
    ("protocols", ["discuss.protocols"]),
    ("store", ["discuss.store"]),
    ("engine", ["discuss.engine", "discuss.providers"]),  # the run: gateway, runner, providers
    ("presentation", ["discuss.site", "discuss.archive"]),  # what a reader sees of the record
    ("application", ["discuss.commands"]),  # what each command does, returning values
    ("interfaces", ["discuss.cli", "discuss.mcp_server", "discuss.__main__"]),
]


def layer(module: str) -> int:
    for rank, (_, prefixes) in enumerate(LAYERS, start=1):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return 0


def name_of(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def type_only(tree: ast.Module) -> set[int]:
    """Line numbers of imports under `if TYPE_CHECKING:`."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            lines |= {n.lineno for child in node.body for n in ast.walk(child) if hasattr(n, "lineno")}
    return lines


DOTTED = re.compile(r"discuss(\.\w+)+")


def named(node: ast.AST, module: str, groups: dict[str, dict[str, str]]) -> set[str]:
    """The modules a text in the code names for importing later: "discuss.x.y" or "discuss.x.y:object",
    f"{__name__}.y", or an entry-point group (the modules of its entries)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if node.value in groups:
            return {target.split(":")[0] for target in groups[node.value].values()}
        return {node.value.split(":")[0]} if DOTTED.fullmatch(node.value.split(":")[0]) else set()
    if isinstance(node, ast.JoinedStr) and len(node.values) == 2 and "__name__" in ast.unparse(node.values[0]):
        tail = node.values[1]
        return {module + tail.value.split(":")[0]} if isinstance(tail, ast.Constant) else set()
    return set()


def imports(type_only_too: bool = False, names_too: bool = False, src: Path = SRC) -> dict[str, set[str]]:
    """Each module of discuss, and the modules of discuss it imports (a package's name for its __init__), at any
    depth of the module (a function's own imports included); with `names_too`, also those it names to import
    later."""
    files = {name_of(p, src): p for p in (src / "discuss").rglob("*.py")}
    groups = tomllib.loads((src.parent / "pyproject.toml").read_text())["project"]["entry-points"] if names_too \
        else {}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text())
        skip, found = (set() if type_only_too else type_only(tree)), set()
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join([*base, *([node.module] if node.module else [])])
                found |= {f"{target}.{a.name}" if f"{target}.{a.name}" in files else target for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif names_too:
                found |= named(node, module, groups)
        graph[module] = {m for m in found if m in files and m != module}
    return graph


def test_no_layer_imports_a_layer_above_it():
    upward = sorted(f"{m} -> {d}" for m, deps in imports().items() for d in deps if layer(d) > layer(m))
    assert upward == []


def test_no_module_imports_itself_through_others():
    graph = imports(type_only_too=True, names_too=True)
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


def test_the_cycle_check_sees_the_modules_named_for_later():
    """A registry naming its entries ("module:object"), an entry-point group, an f-string of `__name__`."""
    graph = imports(names_too=True)
    assert "discuss.providers.builtin" in graph["discuss.providers.registry"]
    assert "discuss.store.formats.dyson" in graph["discuss.store.formats"]
    assert "discuss.protocols.council" in graph["discuss.protocols"]
    assert "discuss.protocols.vote.protocol" in graph["discuss.protocols.vote"]
    assert "discuss.providers.builtin" not in imports()["discuss.providers.registry"]


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    """The reader itself: a protocol importing the store is caught (as vote's audit once did), and an import
    inside a function, under a condition, counts as one at the top of the module."""
    graph = imports()
    assert "discuss.plugin" in graph["discuss.protocols.vote.protocol"]
    assert layer("discuss.store.discussions") > layer("discuss.protocols.vote.audit")
    for name, text in {"__init__": "", "cli/__init__": "", "store/__init__": "", "store/files": "",
                       "cli/lazy": "def f(x):\n    if x:\n        from ..store import files\n        return files\n",
                       "cli/plain": "from discuss.store.files import *\n"}.items():
        (tmp_path / "discuss" / f"{name}.py").parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "discuss" / f"{name}.py").write_text(text)
    seen = imports(src=tmp_path)
    assert seen["discuss.cli.lazy"] == seen["discuss.cli.plain"] == {"discuss.store.files"}


# The vote protocol's own names, in code and in its files: only its package may use them, and the format of
# the threads that protocol ran for another tool (Project Dyson's), which is the vote's record by definition.
FOREIGN_FORMATS = {"discuss.store.formats.dyson": "discuss.protocols.vote"}
VOTE_NAMES = re.compile(r"\b(winner_id|termination_votes|approve_count|reject_count|should_terminate|VoteResult|"
                        r"TerminationVote|BallotBox|VOTE_SCORES|winnerId|winnerScore|voteResults|approveCount|"
                        r"rejectCount|shouldTerminate)\b|\.(ballots|abstentions|votes)\b(?! import)")


def test_no_module_outside_the_vote_package_names_a_vote_field():
    found = []
    for path in sorted((SRC / "discuss").rglob("*")):
        if path.suffix not in (".py", ".j2") or (SRC / "discuss" / "protocols" / "vote") in path.parents \
                or name_of(path) in FOREIGN_FORMATS:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if VOTE_NAMES.search(line):
                found.append(f"{path.relative_to(SRC)}:{number}: {line.strip()}")
    assert found == []


def package_of(module: str) -> str:
    """A module's package under discuss, or "core" for the modules at its top."""
    parts = module.split(".")
    if module == "discuss.__main__":
        return "cli"
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (SRC / "discuss" / parts[1]).is_dir()) else "core"


def picture() -> str:
    """The layers and the imports between their packages above the core, as an SVG chart (from the code)."""
    from layerchart import svg

    graph = imports()
    packages = sorted({package_of(m) for m in graph if m != "discuss"})
    # Every package may use the core layer; the chart draws only the arrows between the layers above it.
    edges = sorted({(package_of(m), package_of(d)) for m, deps in graph.items() for d in deps
                    if package_of(m) != package_of(d) and m != "discuss" and layer(f"discuss.{package_of(d)}")})
    ranks = [("core", [])] + LAYERS
    bands = [(name, [p for p in packages if layer(f"discuss.{p}") == rank]) for rank, (name, _) in enumerate(ranks)]
    return svg([band for band in bands if band[1]], edges)


CHART = SRC.parent / "docs" / "architecture.svg"


def test_the_architecture_chart_shows_the_layers_as_the_code_has_them():
    page = (SRC.parent / "docs" / "architecture.md").read_text()
    assert "](architecture.svg)" in page
    assert CHART.is_file() and CHART.read_text() == picture(), "run python scripts/architecture.py"


def test_few_modules_at_the_top_and_no_long_files():
    top = sorted(p.name for p in (SRC / "discuss").glob("*.py"))
    assert len(top) <= 8, top
    long = [str(p.relative_to(SRC)) for p in (SRC / "discuss").rglob("*.py") if len(p.read_text().splitlines()) > 500]
    assert long == []


def test_no_protocol_package_is_imported_from_outside_protocols():
    """The store, the run and the CLI ask a protocol through the registry and its hooks, never by importing it."""
    packages = {f"discuss.protocols.{p.name}" for p in (SRC / "discuss" / "protocols").iterdir()
                if (p / "__init__.py").is_file()}
    reached = sorted(f"{m} -> {d}" for m, deps in imports(type_only_too=True).items()
                     if not m.startswith("discuss.protocols") for d in deps
                     if any(d == p or d.startswith(p + ".") for p in packages)
                     and not d.startswith(FOREIGN_FORMATS.get(m, "-") + "."))
    assert packages and reached == []


BELOW_THE_APPLICATION = ("discuss.engine", "discuss.providers", "discuss.store", "discuss.archive",
                         "discuss.protocols", "discuss.site")


def test_front_ends_call_the_application_layer_and_nothing_below_it():
    """The CLI and the MCP server parse, call `commands/` and present: what a command does is said once. They
    take plain values from the core (domain, schema, errors, text) and everything else from `commands/`, never
    the engine, the providers, the store, the archive, a protocol or the site, not even inside a function."""
    graph = imports(type_only_too=True)
    found = {f"{m} -> {d}" for m, deps in graph.items()
             if m.startswith(("discuss.cli", "discuss.mcp_server")) or m == "discuss.__main__"
             for d in deps if d.startswith(BELOW_THE_APPLICATION)}
    assert sorted(found) == [], "call commands/ instead"


def test_no_module_under_protocols_reads_or_writes_a_foreign_format():
    """Project Dyson's files are the store's to read and write (store/formats/), never a protocol's."""
    found = sorted(f"{m} -> {d}" for m, deps in imports(type_only_too=True).items()
                   if m.startswith("discuss.protocols") for d in deps if d.startswith("discuss.store"))
    assert found == [] and not list((SRC / "discuss" / "protocols").rglob("dyson*.py"))

