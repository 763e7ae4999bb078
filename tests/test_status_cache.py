"""`discuss status` keeps what it read of each discussion and reads again only what changed: the rows are
those a first reading gives, whatever changed since (a round, a follow-up's progress, an audit, a hand edit,
a broken file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from discuss.store import statuscache

SRC = str(Path(__file__).resolve().parent.parent / "src")


def rows(project) -> list[dict]:
    result = project.cli("status", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def uncached(project) -> list[dict]:
    statuscache._file(project.content).unlink(missing_ok=True)
    return rows(project)


def test_every_change_is_seen_and_a_kept_row_is_what_a_reading_gives(project):
    assert rows(project)[0]["status"] == "not started"
    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1", "-q").exit_code == 0
    assert rows(project)[0]["rounds"] == 1 and rows(project) == uncached(project)
    assert project.cli("run", "swarm-power", "--auto", "-q").exit_code == 0
    assert rows(project)[0]["status"] == "concluded"
    assert project.cli("follow-up", "swarm-power", "And in eclipse?", "--rounds", "1", "-q").exit_code == 0
    assert [r["slug"] for r in rows(project)] == ["swarm-power", "swarm-power-part-2"]
    assert project.cli("follow-up", "swarm-power", "--auto", "-q").exit_code == 0  # the part's own progress
    assert rows(project)[1]["status"] == "concluded" and rows(project) == uncached(project)
    assert project.cli("audit", "swarm-power", "--orders", "1").exit_code == 0
    assert "audits" in rows(project)[0] and rows(project) == uncached(project)
    index = project.folder / "discussion.yaml"
    index.write_text(index.read_text().replace("status: concluded", "status: closed", 1))  # a hand edit
    assert rows(project)[0]["status"] == "closed"


def test_a_broken_discussion_warns_every_time(project):
    project.folder.mkdir()
    (project.folder / "discussion.yaml").write_text("status: [unclosed\n")
    for _ in range(2):
        result = project.cli("status")
        assert "discussion.yaml" in result.stderr and "left out" in result.stderr


def test_a_damaged_cache_is_read_past(project):
    first = rows(project)
    path = statuscache._file(project.content)
    kept = json.loads(path.read_text())
    for entry in kept["rows"].values():
        entry[1] = [["swarm-power", {"status": "made up"}]]  # the sources still match: only the rows are bad
    path.write_text(json.dumps(kept))
    assert rows(project) == first


def test_a_change_made_while_a_status_reads_is_seen_by_the_next(project, monkeypatch):
    """The folders are looked at before what is in them is read: a follow-up part written just after its folder
    was listed makes the kept row stale, not wrong for good."""
    from discuss.store import statuses

    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    real = statuses.part_names

    def listed_then_changed(folder: str) -> list[str]:
        found = real(folder)
        (project.folder / "part-2.md").write_text("---\ntitle: And in eclipse?\nslug: swarm-power-part-2\n---\n")
        return found

    monkeypatch.setattr(statuses, "part_names", listed_then_changed)
    assert [r["slug"] for r in uncached(project)] == ["swarm-power"]
    monkeypatch.undo()
    assert [r["slug"] for r in rows(project)] == ["swarm-power", "swarm-power-part-2"]


def test_a_kept_row_gives_back_each_count_where_it_was_read(project):
    import re

    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1", "-q").exit_code == 0
    index = project.folder / "discussion.yaml"
    counts = ("usage:\n  calls: 3\n  promptTokens: 11\n  completionTokens: 7\n  totalTokens: 18\n  cost: 0.25\n"
              "  cachedTokens: 2\n")
    index.write_text(re.sub(r"(?m)^usage:\n(?:  .*\n)*", counts, index.read_text(), count=1))
    expected = {"calls": 3, "promptTokens": 11, "completionTokens": 7, "totalTokens": 18, "cost": 0.25,
                "cachedTokens": 2}
    first = uncached(project)[0]
    assert first["usage"] == expected
    assert rows(project) == [first]  # the same, from what was kept


def test_an_archive_whose_every_discussion_is_unreadable_says_so(project):
    project.folder.mkdir()
    (project.folder / "discussion.yaml").write_text("status: [unclosed\n")
    result = project.cli("status")
    assert result.exit_code == 0 and "left out" in result.stderr
    assert "could be read (1 left out" in result.stdout and "no questions" not in result.stdout
    (project.folder / "discussion.yaml").unlink()
    project.folder.rmdir()
    assert "swarm-power" in project.cli("status").stdout


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_link_out_and_a_file_past_the_limit_are_left_out_not_read(project):
    """A pull request can carry links: one out of the project (to a file that never ends, here) is not
    followed; a file past the readers' limit is left out by the quick reader as by the full one."""
    outside = project.root.parent / "outside.yaml"  # a file of the machine's that reads as an index
    outside.write_text("status: concluded\ncompletedRounds: 1\nleader: leaked\nusage:\n  calls: 1\npanel:\n")
    project.folder.mkdir()
    (project.folder / "discussion.yaml").symlink_to(outside)
    (project.content / "questions" / "endless.md").symlink_to("/dev/zero")
    large = project.content / "questions" / "large.md"
    large.write_text("---\ntitle: Large?\n---\n\n" + "x" * (16 * 1024 * 1024))
    done = subprocess.run([sys.executable, "-m", "discuss", "--root", str(project.root), "status"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": SRC})
    assert done.returncode == 0
    warnings = done.stderr.splitlines()
    assert len(warnings) == 3, done.stderr
    assert "endless.md" in warnings[0] and "a link out of the project (to /dev/zero)" in warnings[0]
    assert "large.md" in warnings[1] and "larger than 16 MB" in warnings[1]
    assert "discussion.yaml" in warnings[2] and f"a link out of the project (to {outside})" in warnings[2]
    assert "leaked" not in done.stdout + done.stderr.replace(str(outside), "")
