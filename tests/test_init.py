"""From an empty folder to a published archive: `discuss init`, then ask, then the site."""

from __future__ import annotations

import os

from typer.testing import CliRunner

from discuss.cli.app import app


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


def test_a_newcomers_whole_path(tmp_path, monkeypatch):
    """init; ask offline; an ask that fails on a missing key, then the same ask again; a budget stop, then a
    raised budget; a follow-up; the site built and readable from disk."""
    import re

    from fakeserver import FakeLLM

    folder = tmp_path / "study"
    assert cli("init", str(folder)).exit_code == 0
    first = cli("ask", "Which orbit first?", "--panel", "offline", "-q", cwd=folder)
    assert first.exit_code == 0 and "Conclusion" in first.stdout

    with FakeLLM() as fake:
        panels = folder / "discussions" / "panels.yaml"
        panels.write_text(panels.read_text() + (
            "  hosted:\n    members:\n"
            f"      - {{id: alpha, model: openai/alpha, api_base: '{fake.url}', api_key_env: STUDY_KEY}}\n"
            f"      - {{id: beta, model: openai/beta, api_base: '{fake.url}', api_key_env: STUDY_KEY}}\n"
            "    settings: {retryBaseDelay: 0.0}\n"))
        monkeypatch.delenv("STUDY_KEY", raising=False)
        before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
        failed = cli("ask", "Is a tether worth it?", "--panel", "hosted", cwd=folder)
        assert failed.exit_code == 2 and "STUDY_KEY" in failed.stderr
        assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before and not fake.requests
        monkeypatch.setenv("STUDY_KEY", "sk-study-0123456789")
        again = cli("ask", "Is a tether worth it?", "--panel", "hosted", "-q", cwd=folder)
        assert again.exit_code == 0, again.output

    assert cli("new", "What fails first in the dark?", cwd=folder).exit_code == 0
    budget = cli("run", "what-fails-first-in-the-dark", "--panel", "offline", "--auto", "--max-calls", "4", "-y",
                 cwd=folder)
    assert "budget" in budget.output
    assert "stopped (budget)" in cli("status", cwd=folder).stdout
    raised = cli("run", "what-fails-first-in-the-dark", "--auto", "--max-calls", "100", "-y", cwd=folder)
    assert raised.exit_code == 0 and "concluded" in raised.output

    follow = cli("follow-up", "which-orbit-first", "And after the first ten years?", "--auto", "-q", cwd=folder)
    assert follow.exit_code == 0, follow.output
    assert "which-orbit-first-part-2" in cli("status", cwd=folder).stdout

    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    build(load_config(str(folder / "mkdocs.yml")))
    site = folder / "site"
    home = (site / "index.html").read_text()
    links = re.findall(r'href="(questions/[^"#]*)"', (site / "discussions.html").read_text())
    assert links and all(link.endswith(".html") and (site / link).is_file() for link in links)  # from disk
    page = (site / "questions" / "which-orbit-first.html").read_text()
    assert "Follow-up 1: And after the first ten years?" in page and 'class="discuss"' in home + page


def test_every_example_in_the_panel_file_parses_when_uncommented_and_names_models_litellm_prices(tmp_path):
    from discuss.providers.litellm import price_check
    from discuss.store.panels import load_panels

    assert CliRunner().invoke(app, ["init", str(tmp_path)]).exit_code == 0
    path = tmp_path / "discussions" / "panels.yaml"
    lines = path.read_text().splitlines()
    uncommented = [line.replace("  # ", "  ", 1) if line.startswith("  #   ") or line.startswith("  # default:")
                   or line.startswith("  # local:") else line for line in lines]
    path.write_text("\n".join(uncommented) + "\n")
    panels = load_panels(path)
    assert {"offline", "default", "local"} <= set(panels)
    for member in panels["default"][0].members:
        assert price_check(member).startswith("ok"), member.model


def test_a_project_with_one_panel_runs_without_naming_it(tmp_path, monkeypatch):
    assert CliRunner().invoke(app, ["init", str(tmp_path)]).exit_code == 0
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(app, ["new", "Which swarm unit goes first?"]).exit_code == 0
    ran = CliRunner().invoke(app, ["run", "which-swarm-unit-goes-first", "--auto", "--yes", "-q"])
    assert ran.exit_code == 0, ran.output
