"""The CLI on the offline panel: whole runs, resume, status and show, bad input."""

import asyncio
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import fake_panel

GOLDEN = Path(__file__).parent / "golden" / "offline-swarm-power"
DYSON = Path(__file__).parent / "data" / "dyson"
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def files_of(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


DIGEST = re.compile(r"\b[0-9a-f]{64}\b")  # the chain's digests cover the files' times too


def without_stamps(files: dict[str, str]) -> dict[str, str]:
    return {k: DIGEST.sub("<sha256>", STAMP.sub("<time>", v)) for k, v in files.items()}


def test_auto_run_concludes_and_writes_every_file(project):
    result = project.cli("run", "swarm-power", "--auto", "--panel", "offline")
    assert result.exit_code == 0, result.output
    assert "concluded" in result.stdout
    assert "round 1: answers" in result.stderr and "ok skeptic [vote]" in result.stderr
    names = set(files_of(project.folder))
    assert {"discussion.yaml", "conclusion.md", "round-1/votes.yaml", "round-1/skeptic.md"} <= names
    text = (project.folder / "discussion.yaml").read_text()
    assert "status: concluded" in text and "simulated:" in text
    for name, body in files_of(project.folder).items():
        if name.endswith(".md"):
            assert "simulated:" in body, name  # every file the offline panel touched says so


def test_golden_discussion(project):
    """One whole offline discussion, with a fixed clock, equals the files checked in."""
    from discuss.engine.gateway import Gateway
    from discuss.engine.runner import Plan, Runner, prompts_for, start
    from discuss.store.panels import pick_panel
    from discuss.store.questions import read_question

    q = read_question(project.question)
    panel, settings = pick_panel(project.root / "discussions" / "panels.yaml", "offline")
    clock = lambda: "2026-01-01T00:00:00Z"  # noqa: E731
    d = start(q, panel, settings, clock())
    asyncio.run(Runner(Gateway(asks=settings.vote_attempts), prompts_for(project.root), clock)
                .run(q, d, Plan(auto=True)))
    got = files_of(project.folder)
    if os.environ.get("DISCUSS_UPDATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(project.folder, GOLDEN, ignore=shutil.ignore_patterns(".*"))
    assert got == files_of(GOLDEN)


def test_rounds_one_at_a_time_equal_one_auto_run(project, tmp_path):
    assert project.cli("run", "swarm-power", "--panel", "offline").exit_code == 0
    round1 = {k: v for k, v in files_of(project.folder).items() if k.startswith("round-1/")}
    assert project.cli("run", "swarm-power").exit_code == 0  # the panel is remembered
    after = files_of(project.folder)
    assert {k: after[k] for k in round1} == round1  # a new round only adds files
    assert "round-2/votes.yaml" in after
    assert project.cli("run", "swarm-power", "--auto").exit_code == 0
    stepwise = without_stamps(files_of(project.folder))

    other = type(project)(tmp_path / "other")
    assert other.cli("run", "swarm-power", "--auto", "--panel", "offline").exit_code == 0
    assert stepwise == without_stamps(files_of(other.folder))


def test_rounds_then_forced_conclusion(project):
    result = project.cli("run", "swarm-power", "--rounds", "1", "--conclude", "--panel", "offline")
    assert result.exit_code == 0, result.output
    text = (project.folder / "conclusion.md").read_text()
    assert "terminationReason: forced" in text and "## Summary" in text
    again = project.cli("run", "swarm-power", "--auto")
    assert again.exit_code == 0 and "already concluded" in again.stdout


def test_max_rounds_flag_stops_early_and_is_recorded(project):
    result = project.cli("run", "swarm-power", "--auto", "--panel", "offline", "--max-rounds", "1")
    assert result.exit_code == 0, result.output
    text = (project.folder / "discussion.yaml").read_text()
    assert "maxRounds: 1" in text and "terminationReason: max-rounds" in text


def test_status_and_show(project):
    project.cli("run", "swarm-power", "--auto", "--panel", "offline")
    status = project.cli("status")
    assert status.exit_code == 0
    row = next(line for line in status.stdout.splitlines() if line.startswith("swarm-power"))
    assert "concluded" in row and "unanimous-conclude" in row
    show = project.cli("show", "swarm-power")
    assert show.exit_code == 0
    assert "## Round 1" in show.stdout and "<- winner" in show.stdout and "## Conclusion" in show.stdout
    assert "simulated" in show.stdout


def test_new_creates_a_question_that_runs(project):
    result = project.cli("new", "Is fusion worth it?", "--tag", "energy")
    assert result.exit_code == 0, result.output
    path = project.content / "questions" / "is-fusion-worth-it.md"
    assert "title: Is fusion worth it?" in path.read_text()
    assert project.cli("new", "Is fusion worth it?").exit_code == 2  # never overwrites
    not_started = project.cli("show", "is-fusion-worth-it")
    assert "discuss run is-fusion-worth-it --auto" in not_started.stdout
    assert project.cli("run", "is-fusion-worth-it", "--panel", "offline", "-q").exit_code == 0


def test_status_and_show_read_project_dyson_folders(tmp_path):
    root = tmp_path / "dyson"
    shutil.copytree(DYSON, root / "content")
    (root / "discussions").mkdir()
    (root / "discussions" / "panels.yaml").write_text("panels: {}\n")
    from typer.testing import CliRunner

    from discuss.cli.app import app

    status = CliRunner().invoke(app, ["--root", str(root), "status"])
    assert status.exit_code == 0, status.output
    assert re.search(r"swarm-power-architecture-end-use\s+concluded \(Dyson\)\s+1\s+claude-opus-4-6", status.stdout)
    show = CliRunner().invoke(app, ["--root", str(root), "show", "swarm-power-architecture-end-use"])
    assert show.exit_code == 0, show.output
    assert "Claude Opus 4.6: 10 words, score 5 (3 approve, 0 reject) <- winner" in show.stdout
    assert "Gemini-3-pro" not in show.stdout and "Feed in-space industry first." in show.stdout
    assert "gpt-5-2: CONCLUDE - Enough." in show.stdout
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    run = CliRunner().invoke(app, ["--root", str(root), "run", "swarm-power-architecture-end-use"])
    assert run.exit_code == 0 and "already concluded" in run.stdout
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before  # reading changes nothing


BAD = [
    (["run", "no-such-question"], "no question 'no-such-question'"),
    (["run", "../etc/passwd"], "not a valid slug"),
    (["run", "swarm-power", "--panel", "nope"], "no panel 'nope'"),
    (["run", "swarm-power", "--auto", "--rounds", "2"], "cannot be used together"),
    (["run", "swarm-power", "--conclude", "--panel", "offline"], "nothing to conclude"),
    (["run", "swarm-power", "--rounds", "0"], "Invalid value"),
    (["show", "missing"], "no question 'missing'"),
]


@pytest.mark.parametrize("args, message", BAD)
def test_bad_input_exits_2_and_changes_nothing(project, args, message):
    before = project.snapshot()
    result = project.cli(*args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert project.snapshot() == before


def test_broken_files_exit_2_naming_the_file(project):
    project.question.write_text("---\ntitle: [unclosed\n---\nbody\n")
    result = project.cli("run", "swarm-power", "--panel", "offline")
    assert result.exit_code == 2 and "swarm-power.md" in result.stderr and "front matter" in result.stderr

    project.question.write_text("no front matter at all\n")
    assert "no front matter" in project.cli("run", "swarm-power").stderr


def test_broken_discussion_yaml_exits_2_and_is_left_alone(project):
    assert project.cli("run", "swarm-power", "--panel", "offline").exit_code == 0
    index = project.folder / "discussion.yaml"
    index.write_text("rounds: [oops\n")
    before = project.snapshot()
    result = project.cli("run", "swarm-power")
    assert result.exit_code == 2 and "discussion.yaml" in result.stderr
    assert project.snapshot() == before


@pytest.mark.parametrize("panels, message", [
    ("panels:\n  offline:\n    members: []\n", "non-empty 'members'"),
    ("panels:\n  offline:\n    members:\n      - {id: a, model: offline/x}\n      - {id: a, model: offline/y}\n",
     "duplicate member id a"),
    ("panels:\n  offline:\n    members:\n      - {id: ../a, model: offline/x}\n", "id '../a'"),
    ("panels:\n  offline:\n    members:\n      - {id: a}\n", "'model' is missing"),
    ("panels:\n  offline:\n    members: [offline/x]\n    settings: {maxRoundz: 3}\n", "unknown setting 'maxRoundz'"),
    ("- not a mapping\n", "'panels' mapping"),
])
def test_bad_panel_files(project, panels, message):
    (project.root / "discussions" / "panels.yaml").write_text(panels)
    result = project.cli("run", "swarm-power", "--panel", "offline")
    assert result.exit_code == 2 and message in result.stderr
    assert not project.folder.exists()


def test_missing_key_is_reported_before_any_call(project, fake, monkeypatch):
    monkeypatch.delenv("FAKE_KEY")
    project.write_panels(fake_panel(fake.url))
    result = project.cli("run", "swarm-power", "--panel", "fake")
    assert result.exit_code == 2
    assert "FAKE_KEY (for alpha)" in result.stderr
    assert fake.requests == [] and not project.folder.exists()


def test_help_does_not_import_litellm():
    code = ("import sys; sys.argv=['discuss','--help']\n"
            "from discuss.cli.app import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "assert 'litellm' not in sys.modules, 'litellm was imported'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "run" in done.stdout and "status" in done.stdout


@pytest.mark.parametrize("args, message", [
    (["new", "!!!"], "at least one letter or digit"),
    (["new", "A title", "--section", "../outside"], "not a safe folder path"),
    (["show", "../etc/passwd"], "not a valid slug"),
    (["status", "no-such"], "no question 'no-such'"),
    (["run", "swarm-power", "--protocol", "nope", "--panel", "offline"], "unknown protocol 'nope'"),
    (["run", "swarm-power", "--no-such-option"], "No such option"),
])
def test_bad_input_to_every_command(project, args, message):
    before = project.snapshot()
    result = project.cli(*args)
    assert result.exit_code == 2 and message in result.output
    assert project.snapshot() == before


def test_status_and_show_name_a_broken_discussion_file(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "-q").exit_code == 0
    (project.folder / "discussion.yaml").write_text("status: [broken\n")
    for command in ("status", "show"):
        result = project.cli(command, "swarm-power")
        assert result.exit_code == 2 and "discussion.yaml" in result.stderr


def test_the_application_layer_names_each_of_its_modules_and_loads_one_when_it_is_first_used():
    """`commands.running` is imported the first time a front end names it, never at `discuss --help`: the list the
    package gives is every module in it, so a new one is reachable the same way."""
    import discuss.commands as commands

    folder = Path(commands.__file__).parent
    assert sorted(commands.__all__) == sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        commands.nothing  # noqa: B018
    code = ("import sys; sys.argv=['discuss','--help']\n"
            "from discuss.cli.app import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "import discuss.commands as c\n"
            "print(sorted(m for m in sys.modules if m.startswith('discuss.commands.')))\n"
            "c.running.Plan\nprint('discuss.engine.runner' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded, engine = done.stdout.splitlines()[-2:]
    assert loaded == "['discuss.commands.project']"
    assert engine == "True"  # naming the module imported it, and what it needs
