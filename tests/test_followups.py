"""Follow-ups: a finished discussion asked a further question; the earlier files stay byte for byte."""

from __future__ import annotations

import re
from collections import Counter

from conftest import fake_panel
from discuss.store import discussions as store
from discuss.store import documents

FOLLOW_UP = "What changes if eclipses cut the supply for an hour a day?"


def finished(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--auto", "-q")
    assert result.exit_code == 0 and store.load(project.folder).concluded, result.output
    return project.snapshot()


def test_a_follow_up_adds_files_and_reads_the_first_conclusion(project, fake):
    before = finished(project, fake)
    asked_before = len(fake.requests)
    result = project.cli("follow-up", "swarm-power", FOLLOW_UP, "--auto", "-q")
    assert result.exit_code == 0, result.output
    after = project.snapshot()
    assert {k: after[k] for k in before} == before  # every earlier file byte for byte
    added = sorted(set(after) - set(before))
    assert added and all(k.startswith("content/questions/swarm-power/part-2") for k in added)
    first = store.load(project.folder).conclusion.summary
    prompts = [r["messages"][-1]["content"] for r in fake.requests[asked_before:]]
    answers = [p for r, p in zip(fake.requests[asked_before:], prompts) if r["task"] == "respond"]
    assert answers and all(first in p and FOLLOW_UP in p for p in answers)
    meta, _ = documents.read(project.folder / "part-2.md")
    assert (meta["part"], meta["followUpOf"], meta["panel"], meta["protocol"]) == (2, "swarm-power", "fake", "vote")
    second = store.load(project.folder / "part-2")
    assert second.concluded and second.conclusion and second.conclusion.summary


def test_a_follow_up_may_take_another_protocol_and_is_recorded(project, fake):
    finished(project, fake)
    result = project.cli("follow-up", "swarm-power", FOLLOW_UP, "--protocol", "council", "--auto", "-q")
    assert result.exit_code == 0, result.output
    assert documents.read(project.folder / "part-2.md")[0]["protocol"] == "council"
    assert store.load(project.folder / "part-2").protocol == "council"


def test_what_cannot_be_followed_up_is_refused_with_nothing_written(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    fake.termination = "CONTINUE"
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    before = project.snapshot()
    result = project.cli("follow-up", "swarm-power", FOLLOW_UP)
    assert result.exit_code == 2 and "a follow-up asks a finished discussion" in result.stderr
    assert project.cli("follow-up", "swarm-power", "   ").exit_code == 2
    assert project.snapshot() == before


def test_an_unfinished_part_goes_on_and_blocks_a_new_one(project, fake):
    finished(project, fake)
    fake.termination = "CONTINUE"
    assert project.cli("follow-up", "swarm-power", FOLLOW_UP, "--rounds", "1", "-q").exit_code == 0
    again = project.cli("follow-up", "swarm-power", "And a third question?")
    assert again.exit_code == 2 and "part 2 has not finished" in again.stderr
    fake.termination = "CONCLUDE"
    result = project.cli("follow-up", "swarm-power", "--auto", "-q")  # no text: go on with part 2
    assert result.exit_code == 0, result.output
    assert store.load(project.folder / "part-2").concluded
    done = project.cli("follow-up", "swarm-power")
    assert done.exit_code == 2 and "give the follow-up question's text" in done.stderr


def test_the_page_shows_the_parts_in_order(project, fake):
    finished(project, fake)
    assert project.cli("follow-up", "swarm-power", FOLLOW_UP, "--auto", "-q").exit_code == 0
    from sitekit import build

    (project.root / "mkdocs.yml").write_text("site_name: t\ndocs_dir: content\ntheme:\n  name: material\n"
                                              "plugins:\n  - discuss\n")
    (project.content / "index.md").write_text("# Home\n")
    site = build(project.root)
    html = (site / "questions" / "swarm-power" / "index.html").read_text()
    first, second = html.index('id="discussion-summary"'), html.index('id="part-2-discussion-summary"')
    assert first < second and f"Follow-up 1: {FOLLOW_UP}" in html
    # Announced before the first conclusion, with the follow-up's outcome and a link to it; linked back.
    banner = html.index('data-followed-up="1"')
    assert banner < html.index('class="discuss-conclusion"') < second
    announced = html[banner:html.index("</div>", banner)]
    part = store.load(project.folder / "part-2")
    assert 'href="#part-2-discussion-summary"' in announced and part.conclusion.summary[:60] in announced
    assert html.index('data-follows-up="verdict"') > second and 'id="verdict"' in html
    assert 'id="part-2-round-1"' in html and 'aria-controls="part-2-round-1-answer-1"' in html
    ids = Counter(re.findall(r'\sid="([^"]+)"', html))
    assert [i for i, n in ids.items() if n > 1] == []  # parts never share an id
    assert not (site / "questions" / "swarm-power" / "part-2").exists()  # raw files are not published
    data = __import__("json").loads((site / "discussions.json").read_text())
    assert [d["question"]["slug"] for d in data] == ["swarm-power", "swarm-power-part-2"]
    home = (site / "index.html").read_text() if (site / "index.html").is_file() else ""
    analysis = (site / "analysis" / "index.html").read_text() if (site / "analysis").is_dir() else ""
    shown = [page for page in (home, analysis) if 'data-figure="discussions">' in page]
    assert len(shown) == 2 and all(re.search(r'data-figure="discussions">2\b', page) for page in shown)  # follow-ups count


def test_run_all_goes_on_with_an_unfinished_follow_up(project, fake):
    finished(project, fake)
    fake.termination = "CONTINUE"
    assert project.cli("follow-up", "swarm-power", FOLLOW_UP, "--rounds", "1", "-q").exit_code == 0
    fake.termination = "CONCLUDE"
    result = project.cli("run", "--all", "-q")
    assert result.exit_code == 0, result.output
    assert "swarm-power-part-2: concluded" in result.stderr
    assert store.load(project.folder / "part-2").concluded
    assert "no open discussion" in project.cli("run", "--all").output


def test_a_follow_up_is_in_status_and_show_under_the_name_it_was_given(project, fake):
    import json

    finished(project, fake)
    result = project.cli("follow-up", "swarm-power", FOLLOW_UP, "--auto")
    assert result.exit_code == 0, result.output
    named = re.search(r"^(swarm-power-part-2): concluded", result.stderr, re.MULTILINE).group(1)
    for args in (("status",), ("status", "--json")):  # the full CLI
        listed = project.cli(*args).stdout
        assert listed.index("swarm-power") < listed.index(named)
    import contextlib
    import io

    from discuss.cli.quick import status as quick_status  # the fast path must say the same

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert quick_status(["--root", str(project.root), "status", "--json"]) == 0
    rows = json.loads(out.getvalue())
    assert [r["slug"] for r in rows] == ["swarm-power", named] and rows[1]["status"] == "concluded"
    shown = project.cli("show", named)
    assert shown.exit_code == 0 and FOLLOW_UP in shown.stdout
    assert project.cli("show", "swarm-power-part-3").exit_code == 2  # no such part


def test_a_follow_up_runs_to_its_end_by_default_and_prints_what_it_came_to(project, fake):
    finished(project, fake)
    result = project.cli("follow-up", "swarm-power", FOLLOW_UP, "-q")  # neither --auto nor --rounds
    assert result.exit_code == 0, result.output
    second = store.load(project.folder / "part-2")
    assert second.concluded and second.conclusion.summary in result.stdout
    assert "swarm-power-part-2: concluded" not in result.stdout  # the status line goes to stderr, not stdout


def test_a_tournaments_winner_and_a_follow_up_are_announced_before_the_figures(project):
    from sitekit import MKDOCS, build

    other = project.content / "questions" / "other.md"
    other.write_text(project.question.read_text().replace("slug: swarm-power", "slug: other"))
    assert project.cli("run", "other", "--panel", "offline", "--protocol", "tournament", "--auto", "-q").exit_code == 0
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    assert project.cli("follow-up", "swarm-power", "And then?", "-q").exit_code == 0
    (project.root / "mkdocs.yml").write_text(MKDOCS)
    site = build(project.root)
    tournament = (site / "questions" / "other" / "index.html").read_text()
    assert 0 < tournament.index("The winning answer") < tournament.index("discuss-cards")
    followed = (site / "questions" / "swarm-power" / "index.html").read_text()
    assert 0 < followed.index("Followed up") < followed.index("discuss-cards")
