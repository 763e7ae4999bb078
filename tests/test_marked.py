"""A discussion whose record does not hold under `discuss verify`'s checks is marked in every view of the
archive: `status` (its text and `--json`), the site's discussions index, its home listing and the navigation's
icon, as its own page marks it; honest ones are not, and a file changed after a status kept its row changes the
next status's mark."""

from __future__ import annotations

import json
import re

from conftest import Project
from test_verify_protocols import reseal


def forged(folder) -> None:
    """A ballot turned against its target, the chain recomputed to match: only the recomputation names it."""
    votes = folder / "round-1" / "votes.yaml"
    text = votes.read_text()
    assert re.search(r"vote: (APPROVE|NEUTRAL)", text)
    votes.write_text(re.sub(r"vote: (APPROVE|NEUTRAL)", "vote: REJECT", text, count=1))
    reseal(folder)


def two_concluded(project: Project) -> Project:
    """swarm-power and a second question, both concluded by the offline panel."""
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    assert project.cli("ask", "Which unit first?", "--panel", "offline", "-q").exit_code == 0
    return project


def marks(project: Project) -> dict[str, bool | None]:
    result = project.cli("status", "--json")
    assert result.exit_code == 0, result.output
    return {row["slug"]: row["verified"] for row in json.loads(result.stdout)}


def line_of(project: Project, slug: str) -> str:
    return next(line for line in project.cli("status").stdout.splitlines() if line.startswith(slug + " "))


def test_status_marks_a_record_that_does_not_hold_and_sees_every_file_change(project):
    two_concluded(project)
    assert marks(project) == {"swarm-power": True, "which-unit-first": True}
    assert "does not hold" not in project.cli("status").stdout
    # A reply edited in place after a status kept its row, its size and inode the same: only its times change.
    reply = next((project.folder / "round-1").glob("*.md"))
    before = reply.read_text()
    at = before.rindex("e")
    reply.write_text(before[:at] + "a" + before[at + 1:])
    assert marks(project) == {"swarm-power": False, "which-unit-first": True}
    assert "concluded (does not hold)" in line_of(project, "swarm-power")
    assert "does not hold" not in line_of(project, "which-unit-first")
    reply.write_text(before)  # put back: the next status reads it again and finds it holds
    assert marks(project)["swarm-power"] is True
    added = project.folder / "round-1" / "late.md"  # a file added to a round that closed: its folder's times
    added.write_text("---\nrole: respondent\n---\n\nAn answer nobody gave.\n")
    assert marks(project)["swarm-power"] is False
    added.unlink()
    assert marks(project)["swarm-power"] is True
    forged(project.folder)
    assert marks(project) == {"swarm-power": False, "which-unit-first": True}
    assert project.cli("verify", "swarm-power").exit_code == 1  # the mark is verify's word
    one = json.loads(project.cli("status", "swarm-power", "--json").stdout)
    assert [row["verified"] for row in one] == [False]


def test_a_kept_mark_is_the_one_a_reading_gives(project):
    from discuss.store import statuscache

    two_concluded(project)
    forged(project.folder)
    first = marks(project)
    assert statuscache._file(project.content).is_file()
    assert marks(project) == first == {"swarm-power": False, "which-unit-first": True}


def test_a_question_not_started_is_not_known_to_hold(project):
    assert marks(project) == {"swarm-power": None}


def test_the_index_the_home_listing_and_the_navigation_mark_it(project):
    from sitekit import MKDOCS, build

    two_concluded(project)
    forged(project.folder)
    (project.root / "mkdocs.yml").write_text(MKDOCS)
    (project.content / "index.md").write_text("# Home\n")
    site = build(project.root)
    index = (site / "discussions" / "index.html").read_text()
    forged_row = next(r for r in re.findall(r"<tr data-protocol.*?</tr>", index, re.S) if "swarm-power" in r)
    honest_row = next(r for r in re.findall(r"<tr data-protocol.*?</tr>", index, re.S) if "which-unit-first" in r)
    assert 'data-verified="false"' in forged_row and "does not hold" in forged_row
    assert "data-verified" not in honest_row and "does not hold" not in honest_row
    home = (site / "index.html").read_text()
    latest = dict(re.findall(r'<li><a href="questions/([\w-]+)/">[^<]*</a>: (.*?)</li>', home))
    assert "does not hold" in latest["swarm-power"] and "does not hold" not in latest["which-unit-first"]
    page = (site / "questions" / "which-unit-first" / "index.html").read_text()
    nav = dict(re.findall(r'<a href="\.\./([\w-]+)/" class="md-nav__link">(?:(?!</a>).)*?md-status--(\w+)', page, re.S))
    assert nav == {"swarm-power": "unverified"}  # the page's own link is its title, not a link
    assert 'md-status--concluded" title="Concluded"' in page
    assert "The recorded outcome does not follow from the record" in (
        site / "questions" / "swarm-power" / "index.html").read_text()


def test_a_large_first_reading_checks_no_record_says_so_and_a_changed_file_is_checked(project, monkeypatch):
    from discuss.store import statuses

    two_concluded(project)
    forged(project.folder)
    monkeypatch.setattr(statuses, "CHECK_AT_MOST", 1)  # two read for the first time: more than a status checks
    first = project.cli("status", "--json")
    assert {row["slug"]: row["verified"] for row in json.loads(first.stdout)} == {"swarm-power": None,
                                                                                  "which-unit-first": None}
    assert "2 discussion(s) read for the first time were not checked" in first.stderr
    assert "discuss verify" in first.stderr
    again = project.cli("status", "--json")
    assert "not checked" not in again.stderr  # said once; the rows are kept as read
    forged(project.folder)  # a file of the forged discussion changes: its row, and its check, are done again
    assert marks(project)["swarm-power"] is False
