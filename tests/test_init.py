"""From an empty folder to a published archive: `discuss init`, then ask, then the site."""

from __future__ import annotations

import os

from typer.testing import CliRunner

from discuss.cli import app


def cli(*args: str, cwd=None):
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        return CliRunner().invoke(app, list(args))
    finally:
        os.chdir(here)


def test_init_then_ask_with_the_offline_panel_then_the_site(tmp_path):
    folder = tmp_path / "my-study"
    made = cli("init", str(folder))
    assert made.exit_code == 0, made.output
    for rel in ("discussions/panels.yaml", "mkdocs.yml", "content/index.md", ".gitignore", ".gitattributes"):
        assert (folder / rel).is_file(), rel
    assert "discuss ask" in made.stdout
    asked = cli("ask", "Which unit should be replaced first?", "--panel", "offline", cwd=folder)
    assert asked.exit_code == 0, asked.output
    assert "## Summary" in asked.stdout or asked.stdout.strip()
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    build(load_config(str(folder / "mkdocs.yml")))
    page = (folder / "site" / "questions" / "which-unit-should-be-replaced-first.html").read_text()  # offline: no folders
    assert 'class="discuss"' in page and "simulated" in page
    again = cli("init", str(folder))
    assert again.exit_code == 2 and "already a discuss project" in again.stderr


def test_commands_outside_a_project_write_nothing_and_point_to_init(tmp_path):
    for args in (["new", "A question?"], ["ask", "A question?", "--panel", "offline"], ["status"], ["panels"],
                 ["run", "x"], ["doctor"]):
        result = cli(*args, cwd=tmp_path)
        assert result.exit_code == 2, (args, result.output)
        assert "not a discuss project" in result.stderr and "discuss init" in result.stderr
    assert list(tmp_path.iterdir()) == []
    assert cli("protocols", cwd=tmp_path).exit_code == 0  # needs no project
