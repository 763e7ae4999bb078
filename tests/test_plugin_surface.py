"""The built-in protocols are written as a plugin is: each imports discuss only from `discuss.plugin`, so the
public module is shown to be enough for nine protocols; and that module loads each name only when asked."""

from __future__ import annotations

import ast
import subprocess
import sys

from discuss import plugin
from discuss.protocols import BUILT_IN
from test_layers import LAYERS, SRC, imports, layer, name_of

PROTOCOLS = SRC / "discuss" / "protocols"


def discuss_imports(text: str, module: str, package: bool = False) -> list[tuple[int, str]]:
    """Each import of a module of discuss in a module's text (inside functions and type-only ones too), by
    line, as the module it names; `package`: the text is a package's __init__."""
    here = module if package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                found.append((node.lineno, ".".join([*base, *([node.module] if node.module else [])])))
            elif (node.module or "").startswith("discuss"):
                found.append((node.lineno, node.module or ""))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "discuss"]
    return found


def test_every_built_in_protocol_is_a_package_of_its_own():
    packages = {target.split(":")[0].split(".")[2] for target in BUILT_IN.values()}
    assert packages == {p.name for p in PROTOCOLS.iterdir() if (p / "__init__.py").is_file()}
    assert len(packages) == 6 and len(BUILT_IN) == 9  # the council family is four protocols of one package


def test_built_in_protocols_import_discuss_only_through_the_plugin_module():
    strays = []
    for package in sorted(p for p in PROTOCOLS.iterdir() if (p / "__init__.py").is_file()):
        own = name_of(package / "__init__.py")
        for path in sorted(package.rglob("*.py")):
            for line, module in discuss_imports(path.read_text(), name_of(path), path.name == "__init__.py"):
                if module != "discuss.plugin" and module != own and not module.startswith(own + "."):
                    strays.append(f"{path.relative_to(SRC)}:{line}: {module}")
    assert strays == []


def test_the_walk_sees_a_stray_import():
    """The reader itself: the absolute import a plugin writes, a relative one within the package, and one
    out of it inside a function."""
    text = "from discuss.plugin import Step\nfrom . import notes\n\ndef f():\n    from ...domain import Round\n"
    assert [m for _, m in discuss_imports(text, "discuss.protocols.toy.rules")] == [
        "discuss.plugin", "discuss.protocols.toy", "discuss.domain"]


def type_checked_names() -> dict[str, str]:
    """The names plugin.py imports for type checkers, each with the module it comes from."""
    path = SRC / "discuss" / "plugin.py"
    names = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                module = f"discuss.{imp.module}" if imp.level else imp.module or ""
                names |= {(a.asname or a.name): f"{module}.{a.name}" for a in imp.names}
    return names


def test_the_names_for_type_checkers_are_the_names_loaded_at_run_time():
    loaded = {name: f"{module}.{name}" for name, module in plugin._WHERE.items()}
    loaded |= {name: module for name, module in plugin._MODULES.items()}
    assert type_checked_names() == loaded
    assert set(plugin.__all__) == set(loaded)
    for name in plugin.__all__:
        assert getattr(plugin, name) is not None
    assert "Protocol" in dir(plugin)


def test_the_plugin_module_names_only_what_lies_below_the_protocols():
    """No name it gives may come from a built-in protocol or the registry that names them: a built-in imports
    this module, so that would be a circle."""
    modules = set(plugin._WHERE.values()) | set(plugin._MODULES.values())
    ours = {m for m in modules if m.startswith("discuss")}
    assert all(layer(m) <= [name for name, _ in LAYERS].index("plugin") + 1 for m in ours), sorted(ours)
    assert "discuss.protocols" not in ours and not any(m.startswith(tuple(t.split(":")[0] for t in BUILT_IN.values()))
                                                        for m in ours)
    assert imports()["discuss.plugin"] == set()  # what it names is loaded by name, when asked


def test_importing_the_plugin_module_loads_nothing_else_of_discuss():
    """A name is loaded with its own module when first asked for: a protocol's module that imports its
    figures' names loads no prompt templates, so a status that reads figures stays as light as before."""
    code = ("import sys, discuss.plugin as p; before = sorted(m for m in sys.modules if m.startswith('discuss'));"
            "p.Figures; after = sorted(m for m in sys.modules if m.startswith('discuss'));"
            "print(before, 'discuss.text.prompting' in after, 'discuss.protocols.parts' in after)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['discuss', 'discuss.plugin'] False True"


def test_an_unknown_name_is_an_attribute_error():
    try:
        plugin.Nothing  # noqa: B018
    except AttributeError as exc:
        assert "Nothing" in str(exc)
    else:
        raise AssertionError("plugin.Nothing resolved")
