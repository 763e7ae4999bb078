"""The smaller hostile inputs: odd names, huge inputs, a broken discussion among many, faults of the disk."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import pytest

from conftest import fake_panel

COMMANDS = [["show"], ["run"], ["status"], ["reply", "--as", "ann"], ["follow-up"]]


@pytest.mark.parametrize("name", ["", ".", "..", " ", "swarm-power\n", "a\x1b[2Jb"])
@pytest.mark.parametrize("command", COMMANDS)
def test_empty_dot_and_control_names_are_refused_in_words(project, name, command):
    result = project.cli(command[0], name, *command[1:])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)  # no traceback
    assert "error:" in result.stderr


@pytest.mark.parametrize("title", ["CON", "nul", "lpt1"])
def test_a_title_that_names_a_device_gets_a_file_name_no_system_keeps(project, title):
    result = project.cli("new", title)
    assert result.exit_code == 0, result.output
    made = [p.name for p in (project.content / "questions").glob(f"{title.lower()}*.md")]
    assert len(made) == 1 and re.fullmatch(rf"{title.lower()}-[0-9a-f]{{8}}\.md", made[0]), made


@pytest.mark.parametrize("title,section", [("Two\nlines", "questions"), ("Fine title", "questions\n"),
                                           ("Fine title", "../out")])
def test_new_refuses_names_with_control_characters_and_sections_that_leave(project, title, section):
    before = project.snapshot()
    result = project.cli("new", title, "--section", section)
    assert result.exit_code == 2 and "error:" in result.stderr, result.output
    assert project.snapshot() == before


def test_status_leaves_out_a_broken_discussion_naming_it(project):
    second = project.content / "questions" / "second.md"
    second.write_text(project.question.read_text().replace("slug: swarm-power", "slug: second"))
    for slug in ("swarm-power", "second"):
        assert project.cli("run", slug, "--panel", "offline", "--rounds", "1").exit_code == 0
    (project.folder / "discussion.yaml").write_text("questionSlug: [unclosed\n")
    for args in (["status"], ["status", "--json"]):
        result = project.cli(*args)
        assert result.exit_code == 0, result.output
        assert "swarm-power/discussion.yaml" in result.stderr and "left out" in result.stderr
        assert "second" in result.stdout


def test_a_background_without_end_is_refused_before_anything_is_written(project):
    before = project.snapshot()
    result = project.cli("ask", "What now?", "--panel", "offline", "--background", "/dev/zero")
    assert result.exit_code == 2 and "larger than 1 MB" in result.stderr
    assert project.snapshot() == before


def test_a_follow_up_of_the_longest_slug_fits(project):
    long_title = "Which " + " ".join(["distribution"] * 12)
    assert project.cli("new", long_title).exit_code == 0
    slug = next(p.stem for p in (project.content / "questions").glob("which-*.md"))
    assert len(slug) <= 80 and re.search(r"-[0-9a-f]{8}$", slug)  # words past a slug's length: a digest
    assert project.cli("run", slug, "--panel", "offline", "--auto").exit_code == 0
    result = project.cli("follow-up", slug, "And then?", "--auto")
    assert result.exit_code == 0, result.output
    part = project.content / "questions" / slug / "part-2.md"
    assert part.is_file() and f"slug: {slug[:73].rstrip('-')}-part-2" in part.read_text()


@pytest.mark.parametrize("branch", ["$(touch pwned)", "a;b", "-x", "a..b", "x y", "ok\n"])
def test_ci_init_refuses_a_branch_a_shell_would_run(project, branch):
    result = project.cli("ci", "init", "--branch", branch)
    assert result.exit_code == 2 and "plain branch name" in result.stderr
    assert not (project.root / ".github").exists()


def test_ci_init_quotes_the_branch_it_takes(project):
    assert project.cli("ci", "init", "--branch", "discuss/rounds").exit_code == 0
    text = (project.root / ".github" / "workflows" / "discuss.yml").read_text()
    assert '"HEAD:discuss/rounds"' in text


def test_a_full_disk_ends_in_one_line_and_resumes(project, fake, monkeypatch):
    import discuss.store.files as files

    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    real = files.os.replace

    def full(src, dst, **where):  # the writer renames within its folder's descriptor
        if str(dst).endswith("votes.yaml"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, dst, **where)

    monkeypatch.setattr(files.os, "replace", full)
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.strip().splitlines()[-1:]
    assert "votes.yaml: No space left on device" in line and "asked again" in line
    assert "Traceback" not in result.output
    monkeypatch.setattr(files.os, "replace", real)
    answered = len(fake.requests_for("alpha", "respond"))
    again = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert again.exit_code == 0, again.output
    assert len(fake.requests_for("alpha", "respond")) == answered  # saved answers are not bought again


def test_a_full_disk_or_a_read_only_folder_is_refused_before_the_panel_is_asked(project, fake, monkeypatch):
    """A run writes its start once its first requests are out: a folder it cannot write spends nothing."""
    import discuss.store.files as files

    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    real = files.os.statvfs
    monkeypatch.setattr(files.os, "statvfs", lambda path: os.statvfs_result((4096, 4096, 10**6, 0, 3, 10**5, 0, 0, 0, 255)))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 1, result.output
    assert "No space left on device (12288 bytes free" in result.stderr and "Traceback" not in result.output
    assert fake.requests == [] and not (project.folder / "discussion.yaml").exists()
    monkeypatch.setattr(files.os, "statvfs", real)
    access = files.os.access
    # The discussion's folder read-only (root would be let write it anyway).
    monkeypatch.setattr(files.os, "access", lambda path, mode, **kw: access(path, mode, **kw)
                        and not (mode == os.W_OK and Path(path) == project.folder))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 1 and "the panel was not asked" in result.stderr, result.output
    assert fake.requests == [] and not (project.folder / "discussion.yaml").exists()
    monkeypatch.setattr(files.os, "access", access)
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1").exit_code == 0


def test_a_folder_where_a_file_belongs_is_named(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1").exit_code == 0
    (project.folder / "conclusion.md").mkdir()
    result = project.cli("run", "swarm-power", "--panel", "offline", "--conclude")
    assert result.exit_code == 2, result.output
    assert "conclusion.md: is not a regular file" in result.stderr and "Traceback" not in result.output


def test_a_failed_ask_leaves_nothing_and_the_same_ask_goes_on(project, fake, monkeypatch):
    monkeypatch.delenv("MISSING_KEY", raising=False)
    panel = fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxRounds: 1}")
    project.write_panels(panel.replace("FAKE_KEY", "MISSING_KEY"))
    before = project.snapshot()
    result = project.cli("ask", "Which unit first?", "--panel", "fake")
    assert result.exit_code == 2 and "MISSING_KEY" in result.stderr
    assert project.snapshot() == before  # exit 2: nothing on disk changed
    project.write_panels(panel)
    fake.fail_always("beta")
    fake.fail_always("gamma")
    fake.fail_always("alpha")
    failed = project.cli("ask", "Which unit first?", "--panel", "fake")
    assert failed.exit_code == 1 and "the same `discuss ask` goes on where it stopped" in failed.stderr
    fake.always.clear()
    again = project.cli("ask", "Which unit first?", "--panel", "fake")
    assert again.exit_code == 0, again.output
    assert "asked before: going on with it" in again.stderr and "Conclusion written by" in again.stdout


def test_ask_quiet_prints_the_result_and_nothing_else(project):
    result = project.cli("ask", "Which unit first?", "--panel", "offline", "-q")
    assert result.exit_code == 0, result.output
    assert result.stderr == "" and "Conclusion" in result.stdout


@pytest.mark.parametrize("cell", ["=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)",
                                  "\tleading tab", "\rcarriage"])
def test_a_csv_cell_a_spreadsheet_would_evaluate_is_text(cell):
    import csv
    import io

    from discuss.archive.tables import as_csv

    written = as_csv([{"reason": cell, "score": -1.5, "plain": "a reason"}])
    (row,) = list(csv.DictReader(io.StringIO(written, newline="")))
    assert row["reason"] == "'" + cell.replace("\r", "\n") and row["plain"] == "a reason"
    assert row["score"] == "-1.5"  # a number stays a number


def test_an_exported_title_and_reason_cannot_run_in_a_spreadsheet(project, tmp_path):
    text = project.question.read_text()
    project.question.write_text(text.replace("title: ", "title: '=HYPERLINK(\"http://evil\",\"click\")' #", 1))
    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1").exit_code == 0
    assert project.cli("export", "--csv", str(tmp_path / "out")).exit_code == 0
    for path in (tmp_path / "out").glob("*.csv"):
        for line in path.read_text().splitlines()[1:]:
            assert not any(cell.startswith(("=", "+", "@")) for cell in line.split(",")), (path.name, line)
    assert "'=HYPERLINK" in (tmp_path / "out" / "discussions.csv").read_text()


@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\u2066", "\u200f"])
def test_a_title_or_name_that_shows_something_else_is_refused_everywhere_by_name(project, char):
    text = project.question.read_text()
    project.question.write_text(text.replace("title: ", f"title: Power{char}gnihtemos ", 1))
    checked = project.cli("check")
    assert checked.exit_code != 0 and f"U+{ord(char):04X}" in checked.output, checked.output
    run = project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1")
    assert run.exit_code == 2 and f"U+{ord(char):04X}" in run.stderr
    project.question.write_text(text)
    project.write_panels(f"    odd:\n      members:\n        - {{id: a, model: offline/a, name: 'Ann{char}'}}\n")
    for args in (["panels"], ["run", "swarm-power", "--panel", "odd", "--rounds", "1"]):
        result = project.cli(*args)
        assert result.exit_code == 2 and f"U+{ord(char):04X}" in result.stderr, result.output
    assert not project.folder.exists()


def test_a_discussion_folder_on_a_read_only_file_system_asks_no_one(project, fake):
    """The folder made read-only for real (a read-only bind mount over it), where this machine allows one."""
    import subprocess

    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    folder = project.folder
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("no bind mount here (not root, or no mount command)")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], capture_output=True).returncode != 0:
            pytest.skip("no read-only remount here")
        result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
        assert result.exit_code == 1 and "cannot be written" in result.stderr, result.output
        assert fake.requests == []
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True)
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1").exit_code == 0
