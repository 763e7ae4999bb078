"""The CLI's habits: --version, panels, show --full/--round/--json, status --json, totals, warnings."""

from __future__ import annotations

import json
import os
import re

from discuss.protocols.vote.record import ballot_box
from scripted import scripted_panel, write_scripts


def test_version(project):
    from importlib.metadata import version

    result = project.cli("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"discuss {version('discuss-panel')}"


def test_panels_lists_members_roles_and_keys_without_a_call(project, monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    project.write_panels(
        "    mixed:\n      members:\n        - {id: gem, model: gemini/gemini-2.5-pro, name: Gem}\n"
        "        - {id: off, model: offline/skeptic, name: Off}\n"
        "      judge: {id: ref, model: offline/pragmatist, name: Ref}\n")
    out = project.cli("panels").stdout
    assert "missing GEMINI_API_KEY" in out and "GOOGLE_API_KEY" not in out  # one variable to set, not two
    rows = {line.split()[1]: line for line in out.splitlines()[2:]}
    assert rows["off"].endswith("not needed") and "judge" in rows["ref"] and "member" in rows["gem"]


def test_show_full_round_and_json(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "2", "-q").exit_code == 0
    full = project.cli("show", "swarm-power", "--full", "--round", "2").stdout
    assert "## Round 2" in full and "## Round 1" not in full
    assert "### Skeptic (respondent)" in full and "Votes on it:" in full and "- Skeptic (own): " in full
    data = json.loads(project.cli("show", "swarm-power", "--json").stdout)
    assert data["schema"] == 1 and data["question"]["slug"] == "swarm-power" and len(data["rounds"]) == 2
    r1 = data["rounds"][0]
    assert {a["panelist"] for a in r1["answers"]} == {"pragmatist", "skeptic", "visionary"}
    assert len(r1["votes"]) == 9 and r1["winner"] in {"pragmatist", "skeptic", "visionary"}
    assert data["bias"]["panelists"] and data["usage"]["calls"] == 12
    one = json.loads(project.cli("show", "swarm-power", "--json", "--round", "1").stdout)
    assert [r["number"] for r in one["rounds"]] == [1]
    missing = project.cli("show", "swarm-power", "--round", "9")
    assert missing.exit_code == 2 and "no round 9" in missing.stderr


def test_status_json_parses_back(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "-q").exit_code == 0
    rows = json.loads(project.cli("status", "--json").stdout)
    assert rows == [{"slug": "swarm-power", "status": "active", "dyson": False, "rounds": 1,
                     "leader": rows[0]["leader"], "terminationReason": None, "usage": rows[0]["usage"],
                     "protocol": "vote", "waitingFor": [], "verified": True}]
    assert rows[0]["usage"]["calls"] == 6 and rows[0]["leader"] in {"pragmatist", "skeptic", "visionary"}


def test_run_all_ends_with_a_table_and_totals(project):
    project.write_panels(scripted_panel())
    write_scripts(project.root, ann=[], bob=[], cy=[])
    result = project.cli("run", "--all")
    assert result.exit_code == 0, result.output
    assert "swarm-power" in result.stdout and "concluded" in result.stdout
    total = [line for line in result.stdout.splitlines() if line.startswith("total: ")]
    assert total and total[0].endswith("tokens, $0.0000") and " calls, " in total[0]


def test_a_question_without_background_is_run_with_a_warning(project):
    text = project.question.read_text()
    project.question.write_text(text[: text.index("---", 3) + 4]
                                + "\nDescribe the background of the question here: what is known, what is at stake.\n")
    result = project.cli("run", "swarm-power", "--panel", "offline", "-q")
    assert result.exit_code == 0 and "background is still the template's text" in result.stderr
    project.question.write_text(text)
    (project.folder / "discussion.yaml").unlink()
    import shutil

    shutil.rmtree(project.folder)
    project.question.write_text(text[: text.index("---", 3) + 4] + "\n")
    quiet = project.cli("run", "swarm-power", "--panel", "offline", "-q", "--yes")
    assert quiet.exit_code == 0 and "warning" not in quiet.stderr


def test_ask_writes_the_question_runs_it_and_prints_the_conclusion(project, tmp_path):
    background = tmp_path / "bg.md"
    background.write_text("The swarm has 40 units and one ground station.\n")
    result = project.cli("ask", "Which unit fails first?", "--panel", "offline", "--background", str(background),
                         "-q")
    assert result.exit_code == 0, result.output
    path = project.content / "questions" / "which-unit-fails-first.md"
    assert "The swarm has 40 units" in path.read_text()
    assert result.stdout.startswith("## Conclusion (by ") and "Key points:" in result.stdout
    assert (path.with_suffix("") / "conclusion.md").is_file()  # the files stay, for git


def test_ask_prints_a_tournaments_champion_as_its_result(project):
    result = project.cli("ask", "Who should run the ground station?", "--panel", "offline",
                         "--protocol", "tournament", "-q")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("## Result: the answer of ") and "## Position" in result.stdout


def test_ask_refuses_an_unknown_protocol_before_writing(project):
    before = project.snapshot()
    result = project.cli("ask", "Anything?", "--protocol", "nonesuch")
    assert result.exit_code == 2 and project.snapshot() == before


def test_run_all_estimate_prices_the_batch_and_writes_nothing(project):
    (project.content / "questions" / "second.md").write_text("---\ntitle: Second?\n---\n\nMore.\n")
    before = project.snapshot()
    result = project.cli("run", "--all", "--estimate", "--panel", "offline")
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[2:-1]}
    assert set(rows) == {"second", "swarm-power"}
    calls = sum(int(r[2]) for r in rows.values())
    assert f"estimate of the batch, an upper bound: {calls} calls" in result.stdout
    assert calls == 2 * 31  # each: 5 rounds of 3 answers and 3 ballots, and the conclusion
    assert project.snapshot() == before


def test_the_leaderboard_has_panelists_only_and_counts_rounds_with_a_winner(project):
    from discuss.archive.leaderboard import standings
    from discuss.store import discussions as store
    from discuss.store.questions import question_files, read_question

    for name in ("tournament", "decompose", "council"):
        (project.content / "questions" / f"{name}.md").write_text(f"---\ntitle: {name}?\n---\n\nBody.\n")
        assert project.cli("run", name, "--panel", "offline", "--protocol", name, "-q").exit_code == 0
    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "2", "-q").exit_code == 0
    found = [store.load(read_question(p).folder) for p in question_files(project.content)]
    table = {s.panelist_id: s for s in standings([d for d in found if d])}
    assert set(table) == {"pragmatist", "skeptic", "visionary"}  # no match-1, part-1 or judge rows
    vote = next(d for d in found if d and d.protocol == "vote")
    for pid, s in table.items():
        assert s.rounds == 2  # the two vote rounds; council, tournament and decompose rounds have no winner
        assert s.wins == sum(ballot_box(r).winner_id == pid for r in vote.rounds)


def _events():
    from discuss.calls import CallResult, CallSpec
    from discuss.domain import Panelist, Usage

    specs = [CallSpec(i, Panelist(i, f"offline/{i}", i), [], "respond") for i in ("ann", "bob")]
    done = CallResult(specs[0], text="x", usage=Usage(10, 5, 0.01, 1), attempts=1)
    failed = CallResult(specs[1], error="timed out", attempts=1, timed_out=True)
    return [("start", specs[0], None), ("start", specs[1], None), ("done", specs[0], done),
            ("failed", specs[1], failed)]


def test_progress_on_a_terminal_rewrites_one_line_per_call_with_running_totals():
    import io

    from discuss.cli.progress import Progress

    out = io.StringIO()
    progress = Progress(out, live=True)
    progress.line("round 1: answers")
    for event in _events():
        progress.event(*event)
    text = out.getvalue()
    # Drawn once, then redrawn in place: up 2 lines (one call and the totals), then up 3 (two calls), twice.
    assert text.count("\x1b[2F") == 1 and text.count("\x1b[3F") == 2
    final = text.split("\x1b[3F")[-1]
    assert final.count("\n") == 3 and "ok ann [respond] 15 tokens" in final and "!! bob [respond] failed" in final
    assert "-- 2 calls, 15 tokens, $0.0100 so far" in final


def test_the_running_total_never_claims_a_cost_nobody_knows():
    import io

    from discuss.calls import CallResult, CallSpec
    from discuss.cli.progress import Progress
    from discuss.domain import Panelist, Usage

    spec = CallSpec("ann", Panelist("ann", "openai/local-model", "ann"), [], "respond")
    progress = Progress(io.StringIO(), live=True)
    progress.event("done", spec, CallResult(spec, text="x", usage=Usage(10, 5, None, 1), attempts=1))
    assert progress.spent() == "cost unknown"
    progress.event("done", spec, CallResult(spec, text="x", usage=Usage(10, 5, 0.01, 1), attempts=1))
    assert progress.spent() == "$0.0100 and 1 call(s) of unknown cost"


def test_progress_in_a_log_prints_plain_lines():
    import io

    from discuss.cli.progress import Progress

    out = io.StringIO()  # not a terminal
    progress = Progress(out)
    for event in _events():
        progress.event(*event)
    assert "\x1b" not in out.getvalue()
    assert out.getvalue().splitlines() == ["  .. ann [respond] thinking", "  .. bob [respond] thinking",
                                           "  ok ann [respond] 15 tokens, $0.0100, 0.0s",
                                           "  !! bob [respond] failed: timed out"]


def test_progress_is_live_on_a_terminal_by_itself():
    import os

    from discuss.cli.progress import Progress

    leader, follower = os.openpty()
    with os.fdopen(follower, "w") as tty:
        assert Progress(tty).live is True
    os.close(leader)


def test_flags_show_no_value_type_in_help(project):
    for command in ([], ["run"], ["show"], ["ask"]):
        out = project.cli(*command, "--help").stdout
        assert "<bool>" not in out
    assert "<int" in project.cli("run", "--help").stdout  # options that take a value still say what


def test_a_mistyped_panel_gets_a_suggestion(project):
    for args in (("run", "swarm-power", "--panel", "ofline"), ("doctor", "--panel", "ofline")):
        result = project.cli(*args)
        assert result.exit_code == 2 and "no panel 'ofline'" in result.stderr, result.output
        assert "did you mean offline?" in result.stderr
    assert not project.folder.exists()
    result = project.cli("run", "swarm-power", "--panel", "zzz")
    assert result.exit_code == 2 and "did you mean" not in result.stderr


def test_panels_of_the_usual_providers_need_no_litellm(project, monkeypatch):
    """Its import costs seconds; the keys of the usual providers are known without it, as litellm knows them."""
    import subprocess
    import sys

    from discuss.providers.litellm import KEY_VARIABLES, load, one_of

    for name in [n for names in KEY_VARIABLES.values() for n in names]:
        monkeypatch.delenv(name, raising=False)
    for provider, names in KEY_VARIABLES.items():
        report = load().validate_environment(model=f"{provider}/some-model")
        assert one_of(report.get("missing_keys") or []) == [names[0]], provider
    members = "".join(f"        - {{model: {p}/m-{p}}}\n" for p in KEY_VARIABLES)
    project.write_panels(f"    hosted:\n      members:\n{members}")
    code = ("import sys; from typer.testing import CliRunner; from discuss.cli.app import app; "
            f"r = CliRunner().invoke(app, ['--root', {str(project.root)!r}, 'panels']); "
            "print(r.stdout); print('litellm' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if k not in
                               {n for names in KEY_VARIABLES.values() for n in names}})
    assert done.stdout.strip().endswith("False"), done.stdout + done.stderr
    assert "missing ANTHROPIC_API_KEY" in done.stdout and "missing GEMINI_API_KEY" in done.stdout


def test_export_csv_has_a_row_per_discussion_round_and_vote_for_every_protocol(project, tmp_path):
    import csv

    other = project.question.with_name("other.md")
    other.write_text(project.question.read_text().replace("slug: swarm-power", "slug: other")
                     .replace("rq-9-1", "rq-9-2"))
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto").exit_code == 0
    assert project.cli("run", "other", "--panel", "offline", "--protocol", "council", "--auto").exit_code == 0
    assert project.cli("export", "--csv", str(tmp_path / "t")).exit_code == 0
    read = {n: list(csv.DictReader((tmp_path / "t" / f"{n}.csv").open())) for n in ("discussions", "rounds", "votes")}
    by_slug = {row["question_slug"]: row for row in read["discussions"]}
    vote, council = by_slug["swarm-power"], by_slug["other"]
    assert (vote["protocol"], council["protocol"]) == ("vote", "council")
    assert int(vote["total_votes"]) == sum(1 for v in read["votes"] if v["question_slug"] == "swarm-power") > 0
    assert council["total_votes"] == "" and not any(v["question_slug"] == "other" for v in read["votes"])
    assert int(vote["prompt_tokens"]) > 0 and vote["path"] == "questions/swarm-power"
    rounds = [r for r in read["rounds"] if r["question_slug"] == "other"]
    assert [r["stage"] for r in rounds] and all(r["winner_id"] == "" for r in rounds)
    before = (tmp_path / "t" / "votes.csv").read_bytes()
    assert project.cli("export", "--csv", str(tmp_path / "t")).exit_code == 0
    assert (tmp_path / "t" / "votes.csv").read_bytes() == before  # the same files give the same tables


def test_export_gives_the_divergent_views_and_each_rounds_answer_similarity(project, fake, tmp_path):
    from conftest import fake_panel
    from discuss.archive.tables import divergent_views, located
    from discuss.rules.agreement import agreement
    from discuss.store import discussions as store
    from discuss.store.questions import read_question
    from discuss.store.yamlio import load

    project.write_panels(fake_panel(fake.url))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--auto").exit_code == 0
    result = project.cli("export", "--csv", str(tmp_path / "t"))
    assert result.exit_code == 0 and "1 divergent view(s)" in result.output
    views = load((tmp_path / "t" / "divergent_views.yaml").read_text())
    d = store.load(project.folder)
    kept = d.conclusion.minority_positions[0]
    assert views["schema"] == 1 and len(views["divergentViews"]) == 1
    doc = views["divergentViews"][0]
    assert (doc["questionId"], doc["path"], doc["part"], doc["trial"]) == ("rq-9-1", "questions/swarm-power", 1, None)
    assert doc["generated"] == d.conclusion.generated and doc["concludedBy"] == d.conclusion.generated_by
    # Dyson's shape: topics, each with positions and the models holding them.
    [topic] = doc["topics"]
    panel, dissent = topic["positions"]
    assert topic["topic"] == kept.position and dissent["statement"] == kept.position
    assert dissent["models"] == [kept.held_by] and dissent["reasoning"] == kept.reasoning  # names no member
    assert panel == {"statement": d.conclusion.summary, "models": ["alpha", "beta", "gamma"]}
    kept.held_by = "Beta, with gamma"  # names two members, by name and by id
    [named] = divergent_views([located(read_question(project.question), d, project.folder, project.content)])
    panel, dissent = named["topics"][0]["positions"]
    assert dissent["models"] == ["beta", "gamma"] and panel["models"] == ["alpha"]
    rounds = __import__("csv").DictReader((tmp_path / "t" / "rounds.csv").open())
    texts = [[reply.text for reply in r.replies.values()] for r in d.rounds]
    assert [float(row["answer_similarity"]) for row in rounds] == [agreement(t) for t in texts]
    as_json = __import__("json").loads(project.cli("export", "--json").stdout)
    assert as_json["divergent_views"] == views["divergentViews"]
    shown = __import__("json").loads(project.cli("show", "swarm-power", "--json").stdout)
    assert [r["answerSimilarity"] for r in shown["rounds"]] == [agreement(t) for t in texts]  # per round, too


def test_ask_reads_stdin_takes_limits_and_prints_json(project):
    import json

    from discuss.store.questions import read_question

    asked = project.cli("ask", "-", "--panel", "offline", "-q", "--max-rounds", "1", "--json",
                        input="Which orbit\nfirst?\n")
    assert asked.exit_code == 0, asked.output
    data = json.loads(asked.stdout)
    assert data["question"]["title"] == "Which orbit first?" and len(data["rounds"]) == 1
    assert data["status"] in ("concluded", "closed")
    grounded = project.cli("ask", "Why beam power down?", "--background", "-", "--panel", "offline", "-q",
                           input="The rectenna sites are fixed.\n")
    assert grounded.exit_code == 0, grounded.output
    path = project.content / "questions" / "why-beam-power-down.md"
    assert "The rectenna sites are fixed." in read_question(path).background
    both = project.cli("ask", "-", "--background", "-", input="x")
    assert both.exit_code == 2 and "only one" in both.stderr


def test_show_without_a_question_shows_the_discussion_that_changed_last(project):
    import os

    assert project.cli("show").exit_code == 2  # nothing started yet
    other = project.question.with_name("other.md")
    other.write_text(project.question.read_text().replace("slug: swarm-power", "slug: other")
                     .replace("How should swarm power be distributed?", "Another question?"))
    assert project.cli("run", "other", "--panel", "offline").exit_code == 0
    assert project.cli("run", "swarm-power", "--panel", "offline").exit_code == 0
    index = project.folder / "discussion.yaml"
    os.utime(index, ns=(index.stat().st_atime_ns, index.stat().st_mtime_ns + 10**9))
    assert "How should swarm power be distributed?" in project.cli("show").stdout


def test_status_names_each_discussions_protocol(project):

    assert project.cli("run", "swarm-power", "--panel", "offline", "--protocol", "council", "-q").exit_code == 0
    table = project.cli("status").stdout.splitlines()
    assert table[0].split()[-3:] == ["protocol", "waiting", "for"]
    assert table[2].split()[:2] == ["swarm-power", "concluded"] and table[2].split()[-2:] == ["council", "-"]


def test_the_fast_status_shows_the_protocol_as_the_full_one(project, capsys):
    from discuss.cli.quick import status as fast_status

    assert project.cli("run", "swarm-power", "--panel", "offline", "--protocol", "debate", "-q").exit_code == 0
    full = project.cli("status").stdout
    assert fast_status(["--root", str(project.root), "status"], {}) == 0
    assert capsys.readouterr().out == full and full.splitlines()[2].split()[-2] == "debate"


def test_show_puts_what_the_discussion_came_to_first(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    shown = project.cli("show", "swarm-power").stdout
    assert shown.index("## Conclusion (by ") < shown.index("## Round 1")
    other = type(project)(project.root.parent / "tournament")
    assert other.cli("run", "swarm-power", "--panel", "offline", "--protocol", "tournament", "--auto").exit_code == 0
    bracket = other.cli("show", "swarm-power").stdout
    assert bracket.index("## Result: the answer of ") < bracket.index("## Round 1")
    from discuss.protocols import get_protocol
    from discuss.store import discussions as store

    d = store.load(other.folder)
    champion = d.rounds[0].replies[get_protocol("tournament").result_of(d)].text.strip()
    assert champion and bracket.index(champion[:60]) < bracket.index("## Round 1")  # its text, not only its name


def test_ask_with_models_builds_an_ad_hoc_panel_that_the_discussion_keeps(project):
    from discuss.store import discussions as store
    from discuss.store.questions import read_question

    asked = project.cli("ask", "-m", "offline/skeptic", "-m", "offline/visionary", "Ring or swarm?", "-q")
    assert asked.exit_code == 0, asked.output
    path = project.content / "questions" / "ring-or-swarm.md"
    d = store.load(read_question(path).folder)
    assert d.panel.name == "ad-hoc" and d.panel.ids == ["skeptic", "visionary"] and d.concluded
    assert "panels:" in (project.root / "discussions" / "panels.yaml").read_text()  # the panel file is untouched
    both = project.cli("ask", "-m", "offline/skeptic", "--panel", "offline", "Another?")
    assert both.exit_code == 2 and "not both" in both.stderr
    wrong = project.cli("ask", "-m", "", "Yet another?")
    assert wrong.exit_code == 2


def test_ask_estimate_prices_the_question_and_leaves_nothing(project):
    before = project.snapshot()
    priced = project.cli("ask", "Which orbit for the first collectors?", "--panel", "offline", "--estimate")
    assert priced.exit_code == 0, priced.output
    assert "which-orbit-for-the-first-collectors: estimate of this run (vote, panel offline)" in priced.stdout
    assert re.search(r"calls: +\d+ \(\d+ respond, \d+ vote, 1 conclude\)", priced.stdout)
    assert project.snapshot() == before  # no question file, no discussion
    asked = project.cli("ask", "Which orbit for the first collectors?", "--panel", "offline", "-q")
    assert asked.exit_code == 0 and "Conclusion" in asked.stdout  # the same ask then runs as ever


def test_no_prompt_and_no_page_carries_the_scaffolds_placeholder(project, fake):
    from conftest import fake_panel
    from discuss.store.questions import PLACEHOLDER
    from sitekit import build

    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    asked = project.cli("ask", "Which swarm unit goes first?", "--panel", "fake", "--max-rounds", "1", "-q")
    assert asked.exit_code == 0, asked.output
    new = project.cli("new", "How many spares should a swarm keep?")
    assert new.exit_code == 0 and PLACEHOLDER in (project.content / "questions" /
                                                  "how-many-spares-should-a-swarm-keep.md").read_text()
    run = project.cli("run", "how-many-spares-should-a-swarm-keep", "--panel", "fake", "--rounds", "1", "--yes")
    assert run.exit_code == 0, run.output
    assert fake.requests and not any(PLACEHOLDER in str(r["messages"]) for r in fake.requests)
    (project.root / "mkdocs.yml").write_text("site_name: t\ndocs_dir: content\nplugins:\n  - discuss\n")
    site = build(project.root)
    assert not any(PLACEHOLDER in p.read_text(errors="replace") for p in site.rglob("*.html"))


def test_panels_doctor_and_check_give_json_with_the_rows_they_print(project):
    import json

    panels = json.loads(project.cli("panels", "--json").stdout)
    assert {row["id"] for row in panels} >= {"pragmatist", "skeptic", "visionary"} and all("key" in r for r in panels)
    doctor = project.cli("doctor", "--panel", "offline", "--json")
    rows = json.loads(doctor.stdout)
    assert doctor.exit_code == 0 and rows and not any(r["failed"] for r in rows)
    project.question.write_text(project.question.read_text().replace("title: ", "title: Bad\u202e ", 1))
    check = project.cli("check", "--json")
    found = json.loads(check.stdout)
    assert check.exit_code == 1 and found["refused"][0]["path"].endswith("swarm-power.md")


def test_ci_init_outside_a_project_writes_nothing(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from discuss.cli.app import app

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["ci", "init"])
    assert result.exit_code == 2 and "not a discuss project" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_ask_sets_a_protocols_own_setting_and_refuses_one_it_lacks(project):
    from discuss.store import yamlio

    done = project.cli("ask", "Keep a spare unit?", "--panel", "offline", "--protocol", "critique",
                       "--set", "critiqueRounds=1", "-q")
    assert done.exit_code == 0, done.output
    index = yamlio.load((project.content / "questions" / "keep-a-spare-unit" / "discussion.yaml").read_text())
    assert index["config"]["critiqueRounds"] == 1 and index["currentRound"] == 2
    refused = project.cli("ask", "Another?", "--panel", "offline", "--protocol", "council", "--set", "critiqueRounds=1")
    assert refused.exit_code == 2 and "not a setting of the council protocol" in refused.output
    assert not (project.content / "questions" / "another.md").exists()


def test_discuss_auto_runs_a_question_to_its_end_or_asks_a_title(project):
    import subprocess
    import sys

    from discuss.store import discussions as store

    def auto(*args):
        return subprocess.run([sys.executable, "-m", "discuss", "--root", str(project.root), "--auto", *args],
                              capture_output=True, text=True, timeout=120)

    ran = auto("swarm-power", "--panel", "offline", "-q")
    assert ran.returncode == 0, ran.stderr
    assert store.load(project.folder).concluded
    asked = auto("Which unit should fail over first?", "--panel", "offline", "-q")
    assert asked.returncode == 0, asked.stderr
    assert "Conclusion" in asked.stdout
    assert (project.content / "questions" / "which-unit-should-fail-over-first").is_dir()


def test_a_background_written_after_round_one_is_named_on_resume(project):
    """Round 1 answered the template's text; the rounds after it read the background written since."""
    text = project.question.read_text()
    head = text[: text.index("---", 3) + 4]
    project.question.write_text(head + "\nDescribe the background of the question here: what is known, what is at stake.\n")
    assert project.cli("run", "swarm-power", "--panel", "offline", "-q", "--yes").exit_code == 0
    again = project.cli("run", "swarm-power", "-q")
    assert again.exit_code == 0 and "changed after" not in again.stderr  # the same text: nothing to say
    project.question.write_text(text)
    resumed = project.cli("run", "swarm-power", "-q")
    assert resumed.exit_code == 0, resumed.output
    assert "changed after round 2 answered it" in resumed.stderr
    quiet = project.cli("run", "swarm-power", "-q")
    assert "changed after" not in quiet.stderr  # said once: the record now holds the new text's digest


def test_a_command_is_parsed_with_only_its_own_parameters_built(monkeypatch):
    """typer builds every registered command before it parses; `main` hands it the one named (or its family),
    the whole app where the word names none, so a misspelt command still gets the list to choose from."""
    import typer.main

    from discuss.cli import app as cli

    built: list[list[str]] = []
    real = typer.main.get_group

    def get_group(typer_instance):
        group = real(typer_instance)
        built.append(sorted(group.commands))
        return group

    monkeypatch.setattr(typer.main, "get_group", get_group)

    def run(*argv: str) -> None:
        try:
            cli.main(list(argv))
        except SystemExit:
            pass

    run("--root", "/", "run", "--help")
    run("sources", "--help")
    run("runn")
    everything = sorted(typer.main.get_command(cli.app).commands)
    assert built[:2] == [["run"], ["sources"]]
    assert built[2] == everything and "status" in everything  # a word naming no command: the whole app
    assert sorted(typer.main.get_command(cli.app).commands) == everything  # and the app is whole again after


def test_every_command_is_listed_in_whole_sentences():
    from typer.testing import CliRunner

    from discuss.cli.app import app

    listed = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "400", "TERM": "dumb"}).stdout
    for command in app.registered_commands:
        first = (command.callback.__doc__ or "").split("\n\n")[0]
        assert "\n" not in first, command.callback.__name__
        assert first[:60] in listed, first  # on one line of the list, not broken where the source's line ended
