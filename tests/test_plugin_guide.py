"""docs/adding-a-protocol.md is a plugin: its files, saved and installed, run a protocol; every hook is in it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from discuss import plugin
from discuss.protocols.base import Protocol
from discuss.protocols.parts import Figures, Presentation, RoundStorage
from discuss.providers.registry import ProviderPlugin

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "adding-a-protocol.md"
FILE_BLOCK = re.compile(r'^```\w+ title="([^"]+)"\n(.*?)^```$', re.S | re.M)


def public(cls: type) -> set[str]:
    return {name for name in vars(cls) if not name.startswith("_")}


def test_every_public_hook_is_in_the_guide():
    text = GUIDE.read_text()
    hooks = public(Protocol) | public(RoundStorage) | public(Presentation) | public(Figures) | public(ProviderPlugin)
    missing = sorted(h for h in hooks if f"`{h}" not in text)
    assert not missing, f"hooks the guide does not name: {missing}"


def test_every_name_of_the_plugin_module_is_in_the_guide():
    """What the built-in protocols are written with is public, so the guide names all of it."""
    text = GUIDE.read_text()
    missing = sorted(name for name in plugin.__all__ if f"`{name}" not in text)
    assert not missing, f"names of discuss.plugin the guide does not name: {missing}"


def test_a_protocol_defines_at_most_sixteen_rules_the_rest_are_parts():
    assert len(public(Protocol)) <= 16, sorted(public(Protocol))
    assert {"storage", "presentation", "figures"} <= public(Protocol)


def test_the_guides_code_imports_only_the_plugin_module():
    for path, code in FILE_BLOCK.findall(GUIDE.read_text()):
        if path.endswith(".py"):
            imported = set(re.findall(r"^\s*(?:from|import) (discuss[\w.]*)", code, re.M))
            assert imported <= {"discuss.plugin"}, (path, imported)
            names = re.search(r"from discuss\.plugin import \((.*?)\)", code, re.S).group(1)
            assert {n.strip() for n in names.split(",") if n.strip()} <= set(plugin.__all__)


def test_the_guides_files_saved_and_installed_run_a_protocol_offline_and_keep_its_notes(tmp_path):
    for path, code in FILE_BLOCK.findall(GUIDE.read_text()):
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(code)
    site = tmp_path / "site-packages"
    # Built as a release builds it (offline: the test extra's setuptools), installed as an installer does with
    # a pure-Python wheel: unpacked where Python looks, its entry points with it. (A venv made by uv has no pip.)
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                            str(tmp_path / "dist"), str(tmp_path / "discuss-echo")],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    import zipfile

    (wheel,) = (tmp_path / "dist").glob("*.whl")
    zipfile.ZipFile(wheel).extractall(site)
    project = tmp_path / "project"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}

    def discuss(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "discuss", *args], capture_output=True, text=True, env=env,
                              cwd=project if project.exists() else tmp_path, timeout=120)

    assert discuss("init", str(project), "--no-git").returncode == 0
    listed = json.loads(discuss("protocols", "--json").stdout)
    echo = next(p for p in listed if p["name"] == "echo")
    assert echo["settings"] == ["echoRounds"]
    asked = discuss("ask", "Which swarm unit should be replaced first?", "--protocol", "echo", "--panel", "offline",
                    "--set", "echoRounds=2")
    assert asked.returncode == 0, asked.stderr
    folder = project / "content" / "questions" / "which-swarm-unit-should-be-replaced-first"
    assert (folder / "round-2" / "round.yaml").is_file()  # notes of rounds with no stage are kept
    shown = json.loads(discuss("show", "which-swarm-unit-should-be-replaced-first", "--json").stdout)
    assert shown["protocol"] == "echo" and shown["status"] == "concluded"
    assert "answered: 3" in (folder / "round-1" / "round.yaml").read_text()
