"""The site: pages built from sample projects, figures checked against hand counts."""

import re
import shutil
from pathlib import Path

from discuss.archive.leaderboard import match_standings, participation, standings
from discuss.domain import Discussion, Panel, Panelist, Reply, Round, Settings
from discuss.store import discussions as store
from sitekit import build, first_discussion, sample_site, second_discussion, with_abstention

DYSON = Path(__file__).parent / "data" / "dyson"


def page(site: Path, uri: str) -> str:
    """A page's HTML with names' direction isolation taken out, so a test reads the names as text."""
    return re.sub(r"</?bdi>", "", raw_page(site, uri))


def raw_page(site: Path, uri: str) -> str:
    return (site / uri / "index.html").read_text()


def figure(html: str, name: str) -> str:
    return re.search(rf'data-figure="{name}">([^<]*)<', html).group(1)


def test_question_page_cards_and_conclusion(tmp_path):
    html = page(build(sample_site(tmp_path)), "questions/first")
    # by hand: 2 rounds; Ann and Bob one win each, Bob won last; 3 of 4 votes on
    # others approve; words (3 + 2 + 2 + 4) / 4 rounds to 3
    assert figure(html, "rounds") == "2"
    assert figure(html, "leader") == "Bob"
    assert "leading, 1 win<" in html
    assert figure(html, "approval") == "75%"
    assert figure(html, "words") == "3"
    assert figure(html, "tokens") == "123"
    assert figure(html, "cost") == "$0.0123"
    assert "Stopped because every panelist that voted asked to conclude" in html
    assert html.count('id="conclusion"') == 1
    assert "Both <strong>agree</strong> in the end." in html
    assert "<li>point one</li>" in html and "<li>open one</li>" in html and "<li>act one</li>" in html
    assert "Ann would go slower" in html and "held by Ann" in html


def test_rounds_replies_votes_and_tie_breaks(tmp_path):
    html = page(build(sample_site(tmp_path)), "questions/first")
    rounds = re.findall(r'<details class="discuss-round"( open)? id="round-(\d)">', html)
    assert rounds == [("", "1"), (" open", "2")]  # the latest round is open
    round2 = html.split('id="round-2"')[1]
    assert re.search(r'<div class="discuss-reply discuss-winner" role="tabpanel"[^>]*>\s*<p class="discuss-reply-head">'
                     r'<strong>Bob</strong>', round2)
    tabs = re.findall(r'<button type="button" role="tab"[^>]*aria-selected="(\w+)">([^<]+)</button>', round2)
    assert tabs == [("true", "Bob"), ("false", "Ann")]  # one tab per panelist, the winner first and chosen
    assert round2.count('role="tabpanel"') == 2 and "<input" not in round2
    assert "score 3 (2 approve, 0 reject)" in round2
    assert "Tie broken by rule <code>seeded-draw</code>" in round2
    assert "Bob misses the point" in html and "Ann is right" in html
    assert "Termination votes: 2 of 2 CONCLUDE." in round2 and "agreed" in round2
    round1 = html.split('id="round-1"')[1].split('id="round-2"')[0]
    assert "score 3 (2 approve, 0 reject)" in round1 and "score 0.5 (0 approve, 1 reject)" in round1
    section = html.split('<section class="discuss"')[1].split("</section>")[0]
    assert "<svg" in section and "Weighted score per round" in section and "<script" not in section


def test_failures_abstentions_and_a_question_without_discussion(tmp_path):
    root = sample_site(tmp_path)
    folder = root / "content" / "questions" / "second"
    store.save(with_abstention(second_discussion()), folder)
    site = build(root)
    html = page(site, "questions/second")
    assert "Failed call: Ann in respond after 3 attempts: RateLimitError (429)" in html
    assert "Abstained: Ann (invalid ballot: no vote for B)" in html
    third = page(site, "questions/third")
    assert "<code>discuss run third --auto</code>" in third and "No discussion yet" in third


def test_raw_discussion_files_are_not_published(tmp_path):
    site = build(sample_site(tmp_path))
    assert not (site / "questions" / "first" / "round-1").exists()
    assert not list(site.rglob("conclusion*"))
    assert (site / "assets" / "discuss.css").is_file()


def index_rows(html: str) -> list[dict]:
    rows = re.findall(r'<tr data-protocol="([^"]*)" data-status="([^"]*)">(.*?)</tr>', html, re.S)
    out = []
    for protocol, status, cells in rows:
        values = [re.sub("<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", cells, re.S)]
        out.append({"protocol": protocol, "status": status, "href": re.search(r'href="([^"]+)"', cells).group(1),
                    "cells": values})
    return out


def test_index_lists_every_question_with_sort_and_filter_data(tmp_path):
    html = page(build(sample_site(tmp_path)), "discussions")
    rows = index_rows(html)
    assert [(r["href"], r["status"], r["cells"][0], r["cells"][4], r["cells"][5], r["cells"][6], r["cells"][8])
            for r in rows] == [
        ("../questions/first/", "concluded", "First question?Both agree in the end.", "2", "Bob", "unanimous-conclude",
         "power, policy"),
        ("../questions/second/", "active", "Second question?", "1", "Bob", "-", ""),
        ("../questions/third/", "not started", "Third question?", "0", "-", "-", ""),
    ]
    assert [r["protocol"] for r in rows] == ["vote", "vote", ""]
    assert '<option>vote</option>' in html and '<option>not started</option>' in html
    assert 'data-type="number">Rounds' in html and "table data-sortable" in html
    assert re.search(r'<script src="[^"]*assets/discuss.js"', html)


def test_the_home_page_gives_an_account_of_the_archive(tmp_path):
    root = sample_site(tmp_path)
    later = root / "content" / "questions" / "second" / "discussion.yaml"
    later.write_text(later.read_text().replace("startedAt: '2026-01-01T00:00:00Z'", "startedAt: '2026-02-01T00:00:00Z'"))
    html = (build(root) / "index.html").read_text()
    assert 'data-figure="questions">3<' in html and 'data-figure="discussions">2<' in html
    assert "By status: active 1, concluded 1" in html and "By protocol: vote 2" in html
    latest = html[html.index('id="latest"'):html.index('id="not-yet-discussed"')]
    assert latest.index("Second question?") < latest.index("First question?")  # newest first
    assert "started 2026-02-01" in latest
    waiting = html[html.index('id="not-yet-discussed"'):]
    assert "Third question?" in waiting and "discuss run third --auto" in waiting


def test_leaderboard_figures_by_hand(tmp_path):
    table = {s.panelist_id: s for s in standings([first_discussion(), second_discussion()])}
    a, b = table["a"], table["b"]
    assert (a.discussions, a.rounds, a.wins, a.win_rate, a.tie_break_wins) == (2, 2, 1, 50.0, 0)
    assert (b.discussions, b.rounds, b.wins, b.win_rate, b.tie_break_wins) == (2, 3, 2, 66.7, 1)
    assert (a.approval_received, a.approval_given, a.self_generosity) == (100.0, 66.7, 0.67)
    assert (b.approval_received, b.approval_given, b.self_generosity) == (66.7, 100.0, -0.33)

    html = page(build(sample_site(tmp_path)), "leaderboard")
    rows = re.findall(r'<tr data-panelist="(\w)">(.*?)</tr>', html)
    cells = {pid: [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)] for pid, row in rows}
    assert [pid for pid, _ in rows] == ["b", "a"]  # most wins first
    # each rate beside how many rounds or votes it is of
    assert cells["a"] == ["Ann", "2", "2", "1", "50% of 2", f"100% of {a.votes_received}", "66.7%", "0.67", "0"]
    assert cells["b"] == ["Bob", "2", "3", "2", "66.7% of 3", f"66.7% of {b.votes_received}", "100%", "-0.33", "1"]
    assert a.votes_received == 2 and b.votes_received == 3  # one vote from each other panelist, by hand
    assert "Win rate" in html and "<svg" in html
    # what each did in any protocol: Ann's answer in the second discussion failed; Bob wrote the conclusion
    parts = dict(re.findall(r'<tr data-part-panelist="(\w)">(.*?)</tr>', html))
    cell = r"<td(?: data-label=\"[^\"]*\")?>([^<]*)</td>"
    assert re.findall(cell, parts["a"]) == ["Ann", "vote", "2", "2", "0", "0", "1"]
    assert re.findall(cell, parts["b"]) == ["Bob", "vote", "2", "3", "0", "1", "0"]
    assert 'id="matches"' not in html  # no tournament, no match table


def tournament(slug: str, members: str, rounds: list[dict]) -> Discussion:
    names = {"a": "Ann", "b": "Bob", "c": "Cy"}
    panel = Panel("t", [Panelist(i, f"offline/{i}", names[i]) for i in members])
    found = [Round(number=n, seed=n, notes=notes) for n, notes in enumerate(rounds, 1)]
    found[0].replies = {i: Reply(i, i, 1, "answer", "2026-01-01T00:00:00Z") for i in members}
    found[0].replies["match-1"] = Reply(members[-1], "match-1", 1, "verdict", "2026-01-01T00:00:00Z", role="judge")
    return Discussion(f"q-{slug}", slug, "Cup?", panel, Settings(), protocol="tournament",
                      started_at="2026-01-01T00:00:00Z", rounds=found)


def tournaments() -> list[Discussion]:
    """Ann beats Bob while Cy has a bye, then Cy beats Ann; elsewhere Ann v Bob is not judged yet."""
    return [tournament("cup", "abc", [{"matches": [{"a": "a", "b": "b", "winner": "a"}], "byes": ["c"]},
                                      {"matches": [{"a": "a", "b": "c", "winner": "c"}], "champion": "c"}]),
            tournament("replay", "ab", [{"matches": [{"a": "a", "b": "b", "winner": None}]}])]


def test_tournament_standings_by_hand():
    found = match_standings([*tournaments(), first_discussion()])
    figures = {s.panelist_id: (s.tournaments, s.matches, s.match_wins, s.win_rate, s.championships) for s in found}
    # only tournaments count (first_discussion's a and b vote), and an undecided match is no match
    assert figures == {"a": (2, 2, 1, 50.0, 0), "b": (2, 1, 0, 0.0, 0), "c": (1, 1, 1, 100.0, 1)}
    assert [s.panelist_id for s in found] == ["c", "a", "b"]
    people = {p.panelist_id: p for p in participation(tournaments())}
    assert (people["c"].answers, people["c"].refereed, people["c"].protocols) == (1, 1, {"tournament"})
    assert (people["b"].answers, people["b"].refereed, people["b"].discussions) == (2, 1, 2)


def test_unreadable_discussion_is_reported_on_its_page(tmp_path):
    root = sample_site(tmp_path)
    (root / "content" / "questions" / "second" / "discussion.yaml").write_text("rounds: [broken\n")
    html = page(build(root), "questions/second")
    assert "This discussion cannot be read" in html and "discussion.yaml" in html


def test_project_dyson_folders_render(tmp_path):
    root = sample_site(tmp_path)
    shutil.copytree(DYSON, root / "content" / "dyson")
    html = page(build(root), "dyson/phase-1/rq-1-11-swarm-power-architecture-end-use")
    assert "Project Dyson format" in html
    assert figure(html, "leader") == "Claude Opus 4.6"
    assert "Beam to Earth later; feed in-space industry first." in html
    assert "Too narrow." in html and "Feed in-space industry first." in html


def test_plugin_can_be_switched_off(tmp_path):
    root = sample_site(tmp_path)
    (root / "mkdocs.yml").write_text((root / "mkdocs.yml").read_text().replace(
        "  - discuss\n", "  - discuss:\n      enabled: false\n"))
    site = build(root)
    assert "data-figure" not in page(site, "questions/first")
    assert not (site / "leaderboard").exists()


def test_questions_dir_limits_what_is_collected(tmp_path):
    root = sample_site(tmp_path)
    other = root / "content" / "notes" / "note.md"
    other.parent.mkdir()
    other.write_text("---\ntitle: A note, not a question\n---\n\nText.\n")
    (root / "mkdocs.yml").write_text((root / "mkdocs.yml").read_text().replace(
        "  - discuss\n", "  - discuss:\n      questions_dir: questions\n"))
    site = build(root)
    assert "data-figure" not in page(site, "notes/note") and "No discussion yet" not in page(site, "notes/note")
    index = page(site, "discussions").split('class="discuss-index"')[1].split("</table>")[0]
    assert "A note, not a question" not in index and "First question?" in index


def test_serve_watches_the_docs_folder_for_discussion_changes(tmp_path):
    from discuss.site.plugin import DiscussPlugin

    watched = []
    server = type("Server", (), {"watch": lambda self, path: watched.append(path)})()
    config = type("Config", (), {"docs_dir": str(tmp_path)})()
    DiscussPlugin().on_serve(server, config, builder=None)
    assert watched == [str(tmp_path)]


def test_council_family_pages_show_their_structure(tmp_path):
    from typer.testing import CliRunner

    from conftest import OFFLINE_PANEL, QUESTION
    from discuss.cli.app import app

    root = sample_site(tmp_path)
    (root / "discussions").mkdir()
    (root / "discussions" / "panels.yaml").write_text("panels:\n" + OFFLINE_PANEL)
    for protocol in ("debate", "adversarial", "tournament", "decompose", "deliberate"):
        (root / "content" / "questions" / f"{protocol}.md").write_text(
            QUESTION.replace("slug: swarm-power", f"slug: {protocol}"))
        result = CliRunner().invoke(app, ["--root", str(root), "run", protocol, "--panel", "offline",
                                          "--protocol", protocol, "-q"])
        assert result.exit_code == 0, result.output
    site = build(root)
    debate = page(site, "questions/debate")
    assert "Round 2: cross-examination" in debate and "Round 3: rebuttal" in debate
    assert "Critiqued the answer of" in debate and "Synthesis by the chairman" in debate
    assert re.search(r'data-figure="agreement">0\.\d+<', debate) and "Agreement of the answers per round" in debate
    assert '<span class="discuss-role">critic</span>' in debate
    adversarial = page(site, "questions/adversarial")
    assert "Round 1: draft" in adversarial and "Round 2: review" in adversarial
    assert "Final answer by the converger" in adversarial and '<span class="discuss-role">reviewer</span>' in adversarial
    tournament = page(site, "questions/tournament")
    assert 'class="discuss-chart discuss-bracket"' in tournament and "Champion: <strong>" in tournament
    assert " vs " in tournament and "(bye)" in tournament
    # The champion's answer is the result, shown in full above the rounds.
    result_block = tournament[tournament.index("Result: the champion's answer"):tournament.index('id="rounds"')]
    assert "<h5>Position</h5>" in result_block and "Seen from what can be built and verified first" in result_block
    assert '<span class="discuss-role">debater</span>' in tournament
    decompose = page(site, "questions/decompose")
    assert "Round 1: split" in decompose and "Answered by" in decompose
    assert "Reassembled answer by the splitter" in decompose
    deliberate = page(site, "questions/deliberate")
    assert "Gate 1 (consensus): passed" in deliberate and "Gate 2 (rigour)" in deliberate
    assert "Conformity warning: unanimous although priorities conflict" in deliberate
    assert "Security Analyst: Attack surface" in deliberate and "Staged pilot (chosen)" in deliberate


def test_critique_pages_show_judge_scores_and_stances(tmp_path):
    from typer.testing import CliRunner

    from conftest import OFFLINE_PANEL, QUESTION
    from discuss.cli.app import app

    root = sample_site(tmp_path)
    (root / "discussions").mkdir()
    (root / "discussions" / "panels.yaml").write_text("panels:\n" + OFFLINE_PANEL)
    (root / "content" / "questions" / "crit.md").write_text(QUESTION.replace("slug: swarm-power", "slug: crit"))
    result = CliRunner().invoke(app, ["--root", str(root), "run", "crit", "--panel", "offline",
                                      "--protocol", "critique", "--auto", "-q"])
    assert result.exit_code == 0, result.output
    html = page(build(root), "questions/crit")
    assert "Round 2: critique" in html and "Judge's convergence score: 0.8333" in html
    assert "Convergence test <code>judge</code>: passed." in html
    assert "Disagrees with" in html and "how fast to scale" in html
    assert "Attributed answer by the synthesizer" in html and "Triggers to revisit" in html


def test_a_question_title_written_as_html_is_shown_as_text(tmp_path):
    from sitekit import question

    root = sample_site(tmp_path)
    path = question(root, "first", "Title <img src=x onerror=alert(1)>?")
    d = first_discussion()
    store.save(d, path.with_suffix(""))
    html = page(build(root), "questions/first")
    assert "<img src=x onerror" not in html and "<img src=\"x\" onerror" not in html
    assert "Title &lt;img src=x onerror=alert(1)&gt;?" in html


def test_a_dyson_thread_page_marks_list_order_ties_and_invented_ballots(tmp_path):
    root = sample_site(tmp_path)
    shutil.copytree(DYSON, root / "content" / "dyson")
    html = page(build(root), "dyson/phase-1/rq-1-40-slot-reallocation-governance")
    assert "Decided by mechanics, not by the panel" in html
    assert html.count("won by its place in the recording tool's model list") == 2
    assert html.count("<s>NEUTRAL</s> invented, not cast") == 6 and "<s>CONTINUE</s> invented, not cast" in html
    assert "would have stopped at round 2" in html


def test_the_site_publishes_discussions_json(tmp_path):
    import json

    site = build(sample_site(tmp_path))
    data = json.loads((site / "discussions.json").read_text())
    assert sorted(x["question"]["slug"] for x in data) == ["first", "second"]
    first = next(x for x in data if x["question"]["slug"] == "first")
    assert first["schema"] == 1 and first["rounds"] and {"voter", "target", "vote", "reasoning", "invented"} <= set(
        first["rounds"][0]["votes"][0])
    assert first["usage"]["totalTokens"] == first["usage"]["promptTokens"] + first["usage"]["completionTokens"]
    assert first["path"] == "questions/first" and first["part"] == 1  # two trials of one question differ here


def test_the_projects_own_site_opens_from_disk(tmp_path):
    """The demo's site: links to files (not folders), a dark-mode toggle, page-status tooltips."""
    repo = Path(__file__).resolve().parent.parent
    for name in ("content", "site_config"):
        shutil.copytree(repo / name, tmp_path / name)
    shutil.copy(repo / "mkdocs.yml", tmp_path / "mkdocs.yml")
    site = build(tmp_path)
    home = (site / "index.html").read_text()
    links = re.findall(r'href="(questions/[^"#]*)"', home)
    assert links and all(link.endswith(".html") and (site / link).is_file() for link in links)
    assert 'aria-label="Dark mode"' in home
    page_html = (site / links[0]).read_text()
    assert re.search(r'class="md-status md-status--(open|concluded)" title="(Open question|Concluded)"', page_html)


def test_a_rounds_votes_are_a_voter_by_answer_matrix(tmp_path):
    root = sample_site(tmp_path)
    shutil.copytree(DYSON, root / "content" / "dyson")
    html = page(build(root), "dyson/phase-1/rq-1-40-slot-reallocation-governance")
    matrix = html[html.index('<div class="discuss-matrix" data-search-exclude>'):]
    matrix = matrix[: matrix.index("</table>")]
    rows = dict(re.findall(r'<tr data-voter="([\w-]+)">(.*?)</tr>', matrix, re.S))
    assert list(rows) == ["claude-opus-4-6", "gemini-3-pro", "gpt-5-2"]
    cells = {v: re.findall(r'<td class="discuss-cell ([^"]*)"[^>]*>(.*?)</td>', row) for v, row in rows.items()}
    # Round 1 by hand: claude approves itself and gemini, is neutral on gpt; gpt's ballot was invented.
    assert [c for c, _ in cells["claude-opus-4-6"]] == [
        "discuss-vote-approve discuss-own", "discuss-vote-approve", "discuss-vote-neutral"]
    assert [t for _, t in cells["gemini-3-pro"]] == ["APPROVE", "APPROVE (own)", "REJECT"]
    assert all("discuss-invented" in c and t.startswith("<s>NEUTRAL</s>") for c, t in cells["gpt-5-2"])
    assert "Claude Opus 4.6 (winner, tie: list-order)" in matrix
    assert 'title="Too narrow."' not in matrix and 'title="Wasteful."' in matrix  # the reasons one hover away
    assert "Every vote with its reasoning" in html
    shorts = re.findall(r'<tr data-voter="gemini-3-pro">.*?</tr>', matrix, re.S)[0]
    assert re.findall(r'data-short="([^"]*)"', shorts) == ["A", "A*", "R"]  # the phone's compact form
    css = (Path(__file__).resolve().parent.parent / "src/discuss/site/assets/discuss.css").read_text()
    assert "td.discuss-cell[data-short]::before { content: attr(data-short)" in css


def test_pages_name_referees_by_display_name_and_list_only_those_who_took_part(tmp_path):
    from typer.testing import CliRunner

    from conftest import QUESTION
    from discuss.cli.app import app

    root = sample_site(tmp_path)
    (root / "discussions").mkdir()
    (root / "discussions" / "panels.yaml").write_text(
        "panels:\n  default:\n    members:\n"
        + "".join(f"      - {{id: {p}, model: offline/{p}, name: {p.title()} Bot}}\n"
                  for p in ("pragmatist", "skeptic", "visionary"))
        + "    judge: {id: referee, model: offline/pragmatist, name: The Referee}\n"
        + "    synthesizer: {id: scribe, model: offline/skeptic, name: The Scribe}\n")
    for protocol in ("critique", "council"):
        (root / "content" / "questions" / f"{protocol}.md").write_text(
            QUESTION.replace("slug: swarm-power", f"slug: {protocol}"))
        result = CliRunner().invoke(app, ["--root", str(root), "run", protocol, "--protocol", protocol, "--auto", "-q"])
        assert result.exit_code == 0, result.output
    site = build(root)
    critique = page(site, "questions/critique")
    assert "Written by The Scribe" in critique and "Written by scribe" not in critique
    assert re.search(r"held by (Pragmatist|Skeptic|Visionary) Bot", critique)
    panel = critique[critique.index('<div class="discuss-panel">'):]
    panel = panel[: panel.index("</table>")]
    assert "<td>The Referee</td><td>judge</td>" in panel and "<td>The Scribe</td><td>synthesizer</td>" in panel
    council = page(site, "questions/council")
    panel = council[council.index('<div class="discuss-panel">'):]
    panel = panel[: panel.index("</table>")]
    assert "The Referee" not in panel and "The Scribe" not in panel  # they took no part in the council
    assert "<th>Persona</th>" not in panel  # no column of dashes


def test_line_charts_have_axis_titles_and_never_one_point():
    from discuss.site.charts import line_chart

    assert line_chart({"agreement": [(1, 0.4)]}, "Agreement", top=1.0) == ""
    svg = line_chart({"a": [(1, 2.0), (2, 3.0)]}, "Score", top=4.0, y_title="weighted score")
    assert ">round</text>" in svg and ">weighted score</text>" in svg and "rotate(-90)" in svg
    css = (Path(__file__).resolve().parent.parent / "src/discuss/site/assets/discuss.css").read_text()
    size = int(re.search(r"\.discuss-chart \{[^}]*font-size: (\d+)px", css).group(1))
    assert size >= 12


def test_charts_keep_equal_series_apart_label_the_axis_and_say_how_many_cases_a_bar_is_of():
    from discuss.site.charts import bar_chart, line_chart

    svg = line_chart({"Ann": [(1, 2.0), (2, 3.0)], "Bob": [(1, 2.0), (2, 3.0)], "Cy": [(1, 1.0), (2, 0.0)]},
                     "Score", top=4.0)
    assert ">Bob (the same as Ann)</text>" in svg and ">Ann</text>" in svg and ">Cy</text>" in svg
    assert 'stroke-dasharray="6 3"' in svg  # the second series is dashed: visible where it lies on the first
    assert [t for t in ("0", "1", "2", "3", "4") if f'text-anchor="end">{t}</text>' in svg] == ["0", "1", "2", "3", "4"]
    bars = bar_chart([("Ann", 100.0), ("Bob", 60.0)], "Win rate", samples=[1, 20])
    assert ">100% of 1</text>" in bars and ">60% of 20</text>" in bars
    assert bars.count('fill-opacity="0.35"') == 1  # one round's 100% is pale; twenty rounds' 60% is not


def test_word_diff_marks_what_changed_and_escapes_model_text():
    from discuss.site.diff import word_diff

    share, html = word_diff("Build a small pilot first.", "Build a <b>large</b> pilot first, then scale.")
    assert str(html) == ("Build a <del>small</del> <ins>&lt;b&gt;large&lt;/b&gt;</ins> pilot "
                         "<del>first.</del> <ins>first, then scale.</ins>")
    assert share == 0.5  # 3 words kept of 5 + 7: 1 - 2 * 3 / 12
    assert word_diff("a b c d", "a  b c\nd") == (0.0, "") and word_diff("a b", "c d")[0] == 1.0


def test_a_page_shows_what_each_panelist_changed_since_its_last_answer(tmp_path):
    root = sample_site(tmp_path)
    shutil.copytree(DYSON, root / "content" / "dyson")
    html = page(build(root), "dyson/phase-1/rq-1-40-slot-reallocation-governance")
    assert html.count("What changed since round 1") == 3  # each panelist's round-2 answer
    # "A standing slot board decides within a week." -> "A slot board with a queue as its default."
    assert ("A <del>standing</del> slot board <del>decides within</del> <ins>with</ins> a <del>week.</del> "
            "<ins>queue as its default.</ins>") in html


def test_the_navigation_marks_each_question_with_its_discussion_status(tmp_path):
    root = sample_site(tmp_path)
    # A question file's own `status` is what it was when written; the discussion's status wins.
    path = root / "content" / "questions" / "first.md"
    path.write_text(path.read_text().replace("slug: first\n", "slug: first\nstatus: open\n"))
    html = page(build(root), "")
    marks = re.findall(r'<span class="md-status md-status--(\w+)" title="([^"]+)">', html)
    assert marks == [("concluded", "Concluded"), ("active", "Under discussion"), ("open", "Open: not discussed yet")]


def test_a_rebuild_reads_and_renders_only_the_discussion_that_changed(tmp_path, monkeypatch):
    from discuss.site import collect, render

    loads, renders = [], []
    real_load, real_render = store.load, render.question_section
    monkeypatch.setattr(store, "load", lambda folder: loads.append(folder.name) or real_load(folder))
    monkeypatch.setattr(render, "question_section", lambda e, *first: renders.append(e.question.slug) or real_render(e, *first))
    root = sample_site(tmp_path)
    build(root)
    assert sorted(loads) == ["first", "second", "third"] and sorted(renders) == ["first", "second", "third"]
    loads.clear(), renders.clear()
    build(root)  # as `mkdocs serve` rebuilds: the same process, nothing changed
    assert loads == [] and renders == []
    reply = next((root / "content" / "questions" / "second" / "round-1").glob("b.md"))
    reply.write_text(reply.read_text().replace("solo answer", "solo answer, edited"))
    site = build(root)
    assert loads == ["second"] and renders == ["second"]
    assert "solo answer, edited" in page(site, "questions/second")
    assert collect.signature(root / "content" / "questions" / "second.md")  # names the files it watched


def test_the_index_lists_the_latest_started_first_and_the_unstarted_last(tmp_path):
    root = sample_site(tmp_path)
    index = next(root.rglob("second/discussion.yaml"))
    index.write_text(index.read_text().replace("startedAt: '2026-01-01T00:00:00Z'", "startedAt: '2026-02-01T00:00:00Z'"))
    html = (build(root) / "discussions" / "index.html").read_text()
    started = re.findall(r'<td data-label="Started" data-value="([^"]*)">', html)
    assert started[0].startswith("2026-02-01") and started == sorted(started, reverse=True) and started[-1] == ""
    titles = re.findall(r'<td data-label="Question"><a [^>]*>([^<]+)</a>', html)
    assert titles[:2] == ["Second question?", "First question?"]  # by date, not by slug


def test_the_conclusions_byline_says_why_its_author_wrote_it_and_when_in_words(tmp_path):
    from discuss.protocols.vote.record import ballot_box
    from discuss.protocols.vote.scoring import describe_tie
    from sitekit import first_discussion

    d = first_discussion()
    last = d.rounds[-1]
    assert ballot_box(last).winner_id == d.conclusion.generated_by  # the sample's author won the last round
    html = build(sample_site(tmp_path))
    page = (html / "questions" / "first" / "index.html").read_text()
    byline = re.search(r'<p class="discuss-byline">(.*?)</p>', page, re.S).group(1)
    tie = ballot_box(last).tie_break
    assert f"the winner of round {last.number}, the last round with one" in byline
    assert (f"a tie, broken by {describe_tie(tie)}" in byline) == bool(tie)
    assert byline.endswith("on 1 January 2026, 00:00 UTC.")


def test_agreement_is_explained_where_it_is_shown(project):
    from discuss.site.collect import collect
    from discuss.site.render import question_section

    assert project.cli("run", "swarm-power", "--panel", "offline", "--protocol", "council").exit_code == 0
    page = question_section(collect(project.content)[0][0])
    assert "agreement of the answers, 0 to 1" in page
    assert re.search(r'title="How alike the last round.s answers are: [^"]*consensus from 0.7, contested at or below 0.3"',
                     page)


def test_every_name_on_a_page_keeps_its_own_direction(tmp_path):
    html = raw_page(build(sample_site(tmp_path)), "questions/first")
    for shown in ("held by <bdi>Ann</bdi>", "<td><bdi>Bob</bdi></td>", "<strong><bdi>Ann</bdi></strong>",
                  'data-figure="leader"><bdi>Bob</bdi>', "Written by <bdi>Bob</bdi>"):
        assert shown in html, shown


def test_a_page_says_what_was_decided_before_how(tmp_path):
    site = build(sample_site(tmp_path))
    html = page(site, "questions/first")
    article = html[html.index('<article'):]
    verdict, background = article.index('id="verdict"'), article.index("Background of first.")
    assert article.index("<h1") < verdict < article.index('id="conclusion"') < background
    assert background < article.index('class="discuss-cards"') < article.index('id="rounds"')
    assert html.count('id="conclusion"') == 1 and 'href="#discussion-summary"' in article
    assert "stopped because every panelist that voted asked to conclude" in article[verdict:background]
    unfinished = page(site, "questions/second")  # no conclusion yet: nothing above its text
    assert 'id="verdict"' not in unfinished


def test_the_index_and_home_give_each_outcome_in_a_line():
    from discuss.site.render import gist

    assert gist("Both **agree** in the end. Then more.") == "Both agree in the end."
    assert gist("See [the paper](http://x) first") == "See the paper first"
    long = gist("word " * 100)
    assert long.endswith("…") and len(long) <= 161 and "  " not in long


def test_the_index_and_home_show_what_each_discussion_came_to(tmp_path):
    site = build(sample_site(tmp_path))
    index, home = page(site, "discussions"), (site / "index.html").read_text()
    for html in (index, home):
        assert '<small class="discuss-outcome">Both agree in the end.</small>' in html


def test_a_page_makes_its_figures_and_charts_once(tmp_path, monkeypatch):
    from discuss.site import plugin, render

    made, real = [], render.discussion_view
    monkeypatch.setattr(render, "discussion_view", lambda d: made.append(d.question_slug) or real(d))
    plugin.forget()
    build(sample_site(tmp_path))
    assert sorted(made) == ["first", "second"]  # the verdict and the discussion below it share one view
