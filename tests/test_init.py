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
    assert again.exit_code == 0 and "nothing to add" in again.stdout
    (folder / "mkdocs.yml").unlink()  # init in a project adds what it lacks, and changes nothing else
    panels = (folder / "discussions" / "panels.yaml").read_text()
    repaired = cli("init", str(folder))
    assert repaired.exit_code == 0 and "wrote mkdocs.yml" in repaired.stdout
    assert (folder / "discussions" / "panels.yaml").read_text() == panels


def test_init_makes_a_repository_and_warns_of_a_site_without_the_plugin(tmp_path):
    import shutil

    import pytest

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    folder = tmp_path / "own-site"
    folder.mkdir()
    (folder / "mkdocs.yml").write_text("site_name: Mine\nplugins:\n  - search\n")
    made = cli("init", str(folder))
    assert made.exit_code == 0 and (folder / ".git").is_dir()
    assert "does not list the discuss plugin" in made.stderr
    assert (folder / "mkdocs.yml").read_text() == "site_name: Mine\nplugins:\n  - search\n"
    inner = folder / "inner"
    assert cli("init", str(inner), "--no-git").exit_code == 0 and not (inner / ".git").exists()


def test_a_project_dyson_checkout_works_in_place(tmp_path):
    """init recognises Dyson's layout and changes none of its files; status, check, run, export and trials
    work on its questions where they are, with no MkDocs of ours."""
    import shutil
    from pathlib import Path

    checkout = tmp_path / "project-dyson"
    questions = checkout / "src" / "content" / "research-questions"
    shutil.copytree(Path(__file__).parent / "data" / "dyson", questions)
    (checkout / "package.json").write_text('{"name": "project-dyson"}\n')
    (checkout / ".gitignore").write_text("node_modules/\n")
    before = {p: p.read_bytes() for p in checkout.rglob("*") if p.is_file()}
    made = cli("init", str(checkout), "--no-git")
    assert made.exit_code == 0, made.output
    assert "a Project Dyson checkout" in made.stdout and "mkdocs build" not in made.stdout
    assert {p: p.read_bytes() for p in before} == before  # not one Dyson file changed
    added = sorted(str(p.relative_to(checkout)) for p in checkout.rglob("*") if p.is_file() and p not in before)
    assert added == ["discussions/panels.yaml"] and not (checkout / "content").exists()
    status = cli("status", "--json", cwd=checkout)
    assert {row["slug"] for row in __import__("json").loads(status.stdout)} >= {"slot-reallocation-governance"}
    assert cli("status", cwd=checkout).stdout.count("(Dyson)") >= 2  # the quick path reads them too
    assert cli("check", cwd=checkout).exit_code in (0, 1)  # Dyson's own rules may refuse a fixture, never crash
    members = "".join(f"      - {{id: {i}, model: offline/{p}, name: {i}}}\n" for i, p in
                      (("claude-opus-4-6", "pragmatist"), ("gemini-3-pro", "skeptic"), ("gpt-5-2", "visionary")))
    with (checkout / "discussions" / "panels.yaml").open("a") as f:
        f.write(f"  dyson:\n    members:\n{members}")  # the thread's own member ids, played offline
    ran = cli("run", "slot-reallocation-governance", "--panel", "dyson", "--rounds", "1", cwd=checkout)
    assert ran.exit_code == 0, ran.output
    assert cli("export", "--csv", str(tmp_path / "tables"), cwd=checkout).exit_code == 0
    assert (tmp_path / "tables" / "rounds.csv").read_text().count("\n") >= 3
    trials = cli("trials", "slot-reallocation-governance", "--runs", "1", "--panel", "offline", cwd=checkout)
    assert trials.exit_code == 0, trials.output


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


def test_a_content_folder_outside_the_project_is_refused_everywhere(tmp_path):
    from discuss.cli import quick

    folder = tmp_path / "study"
    assert cli("init", str(folder), "--no-git").exit_code == 0
    panels = folder / "discussions" / "panels.yaml"
    kept = panels.read_text()
    (tmp_path / "outside").mkdir()
    for named in ("../outside", "/etc", ".git"):
        panels.write_text(f"content: {named}\n{kept}")
        assert quick.status(["--root", str(folder), "status"]) is None  # the fast path reads nothing there
        for args in (["status"], ["run", "x"], ["panels"]):
            result = cli(*args, cwd=folder)
            assert result.exit_code == 2 and "must be a folder of the project" in result.stderr, (named, args)
