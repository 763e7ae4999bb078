"""A Project Dyson repository runs on discuss unchanged: threads continue, conclude and run in Dyson's shape.

The fixture `rq-1-40-...` is an active Dyson thread of two rounds (ties
broken by list order, ballots the reference tool invented); `rq-1-11-...`
is a concluded one. After discuss adds rounds, every field Dyson's site
reads is present and typed as Dyson writes it, Dyson's own rounds are
byte-for-byte as they were, and discuss still reads the whole thread.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from typer.testing import CliRunner

from conftest import fake_panel
from discuss.cli.app import app
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store

DYSON = Path(__file__).parent / "data" / "dyson"
IDS = ("claude-opus-4-6", "gemini-3-pro", "gpt-5-2")
THREAD = "slot-reallocation-governance"
PERSONAS = dict(zip(IDS, ("pragmatist", "skeptic", "visionary")))


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "dyson"
    shutil.copytree(DYSON, root / "content" / "research-questions")
    (root / "discussions").mkdir()
    members = "".join(f"        - {{id: {i}, model: offline/{PERSONAS[i]}, name: {i}}}\n" for i in IDS)
    (root / "discussions" / "panels.yaml").write_text(
        f"panels:\n    default:\n      members:\n{members}      settings: {{retryBaseDelay: 0.0}}\n")
    return root


def cli(root: Path, *args: str):
    return CliRunner().invoke(app, ["--root", str(root), *args])


def folder(root: Path) -> Path:
    return root / "content" / "research-questions" / "phase-1" / f"rq-1-40-{THREAD}"


def raw(root: Path) -> dict:
    return YAML(typ="safe").load((folder(root) / "discussion.yaml").read_text())


def assert_dyson_round(entry: dict, number: int) -> None:
    """The fields and types Dyson's site reads from a round of discussion.yaml."""
    assert entry["roundNumber"] == number
    assert {r["modelId"] for r in entry["responses"]} == set(IDS)
    for r in entry["responses"]:
        assert isinstance(r["content"], str) and r["content"] and isinstance(r["wordCount"], int)
        assert isinstance(r["generatedAt"], str)
    for result in entry["votes"]:
        assert result["targetId"] in IDS and len(result["votes"]) == 3
        assert all(set(v) == {"voterId", "targetId", "vote", "reasoning"} for v in result["votes"])
        for key in ("rawScore", "weightedScore"):
            value = result[key]
            assert isinstance(value, int) or (isinstance(value, float) and not value.is_integer())
        assert isinstance(result["approveCount"], int) and isinstance(result["rejectCount"], int)
    assert entry["winnerId"] in IDS and isinstance(entry["shouldTerminate"], bool)
    assert {t["modelId"] for t in entry["terminationVotes"]} == set(IDS)
    assert all(t["vote"] in ("CONCLUDE", "CONTINUE") for t in entry["terminationVotes"])


def test_a_dyson_thread_goes_on_one_round_in_dysons_shape(repo):
    before = raw(repo)
    dyson_files = {p: p.read_bytes() for p in folder(repo).glob("round-*/*")}
    result = cli(repo, "run", THREAD, "--rounds", "1")
    assert result.exit_code == 0, result.output
    after = raw(repo)
    assert after["rounds"][:2] == before["rounds"]  # Dyson's rounds as Dyson wrote them
    assert {p: p.read_bytes() for p in dyson_files} == dyson_files
    assert_dyson_round(after["rounds"][2], 3)
    assert after["rounds"][2]["writtenBy"] == "discuss" and "tieBreak" in after["rounds"][2]
    for key in ("questionId", "questionSlug", "questionTitle", "phaseId", "startedAt"):
        assert after[key] == before[key]
    assert after["questionId"] and after["config"] == before["config"]  # allowSelfVoting, unanimousTermination kept
    assert after["currentRound"] == 3 and after["stats"]["totalRounds"] == 3
    assert after["stats"]["totalVotes"] == 27 and isinstance(after["stats"]["averageResponseWords"], int)
    assert sorted((folder(repo) / "round-3").iterdir()) == sorted(
        folder(repo) / "round-3" / name for name in [*(f"{i}.md" for i in IDS), "votes.yaml"])
    d = store.load(folder(repo))  # discuss reads the thread back, Dyson's rounds and its own
    assert d.legacy and [r.imported for r in d.rounds] == [True, True, False]
    assert d.rounds[2].replies["gpt-5-2"].generated == d.rounds[2].replies["gpt-5-2"].generated[:10]
    # The new round saw the thread: every answer of round 2 is in its prompts' material.
    assert d.rounds[2].complete and ballot_box(d.rounds[2]).winner_id in IDS


def test_a_dyson_thread_concludes_with_dysons_conclusion_fields(repo):
    result = cli(repo, "run", THREAD, "--conclude")
    assert result.exit_code == 0, result.output
    after = raw(repo)
    assert after["status"] == "concluded" and after["terminationReason"] == "forced"
    conclusion = after["conclusion"]
    for key in ("keyPoints", "unresolvedQuestions", "recommendedActions"):
        assert isinstance(conclusion[key], list) and all(isinstance(x, str) for x in conclusion[key])
    assert conclusion["summary"] and conclusion["generatedBy"] in IDS and conclusion["generatedAt"]
    assert len(after["rounds"]) == 2 and after["concludedAt"]
    assert (folder(repo) / "conclusion.md").is_file()
    assert store.load(folder(repo)).concluded
    assert "already concluded" in cli(repo, "run", THREAD).stdout


def test_run_all_takes_the_active_dyson_thread_and_leaves_the_concluded_one(repo):
    concluded = folder(repo).parent / "rq-1-11-swarm-power-architecture-end-use"
    untouched = {p: p.read_bytes() for p in concluded.rglob("*") if p.is_file()}
    result = cli(repo, "run", "--all")
    assert result.exit_code == 0, result.output
    assert raw(repo)["status"] == "concluded" and len(raw(repo)["rounds"]) >= 3
    assert {p: p.read_bytes() for p in concluded.rglob("*") if p.is_file()} == untouched


def test_a_panel_with_other_members_is_refused_before_anything_is_written(repo, fake):
    (repo / "discussions" / "panels.yaml").write_text("panels:\n" + fake_panel(fake.url).replace("fake:", "default:"))
    before = raw(repo)
    result = cli(repo, "run", THREAD, "--rounds", "1")
    assert result.exit_code == 2 and "member ids are the thread's" in result.stderr
    assert raw(repo) == before and not fake.requests


def test_a_dyson_thread_goes_on_over_http(repo, fake):
    members = "".join(f"        - {{id: {i}, model: openai/{i}, name: {i}, api_base: '{fake.url}', "
                      f"api_key_env: FAKE_KEY}}\n" for i in IDS)
    (repo / "discussions" / "panels.yaml").write_text(
        f"panels:\n    default:\n      members:\n{members}      settings: {{retryBaseDelay: 0.01}}\n")
    result = cli(repo, "run", THREAD, "--rounds", "1")
    assert result.exit_code == 0, result.output
    assert_dyson_round(raw(repo)["rounds"][2], 3)
    prompt = fake.requests_for("gpt-5-2", "respond")[0]["messages"][-1]["content"]
    assert "The queue, with a board to hear appeals." in prompt  # the thread's last round is shown


def test_list_order_ties_and_invented_ballots_are_marked_not_counted(repo):
    d = store.load(folder(repo))
    # Both rounds: claude and gemini at 4, one approval from the other each, no rejects: list order decided.
    assert [ballot_box(r).tie_break for r in d.rounds] == ["list-order", "list-order"]
    assert [sum(v.invented for v in ballot_box(r).votes) for r in d.rounds] == [3, 3]
    assert [[t.model_id for t in ballot_box(r).termination_votes if t.invented] for r in d.rounds] == [["gpt-5-2"], ["gpt-5-2"]]
    from discuss.protocols import get_protocol
    from discuss.protocols.stats import approval_rate

    # Of the 12 votes on others' answers, 6 were invented; of the 6 cast, 3 approve.
    assert approval_rate([j for r in d.rounds for j in get_protocol(d.protocol).figures.of_round(r).judgements]) == 50.0
    shown = cli(repo, "show", THREAD).stdout
    assert shown.count("tie broken by: list-order") == 2
    assert "GPT-5.2: CONTINUE - API unavailable (invented by the recording tool, not cast)" in shown
    assert "rounds won by list order in a tie (the recording tool's model order, not the votes): 1, 2" in shown
    # Round 2: claude and gemini CONCLUDE, gpt's CONTINUE invented: cast unanimously, with a quorum.
    assert "this would have stopped at round 2 (unanimous-conclude), not gone on" in shown


def test_the_leaderboard_counts_list_order_wins_as_tie_break_wins(repo):
    from discuss.archive.leaderboard import standings

    table = {s.panelist_id: s for s in standings([store.load(folder(repo))])}
    assert table["claude-opus-4-6"].wins == 2 and table["claude-opus-4-6"].tie_break_wins == 2
    assert table["gpt-5-2"].votes_given == 0  # every ballot of gpt's was invented


def test_continuing_counts_invented_termination_votes_as_abstentions(repo):
    # Round 3 by the offline panel: whatever it votes, round 2's invented CONTINUE never counts.
    from discuss.protocols.vote.termination import conclude_counts

    d = store.load(folder(repo))
    assert conclude_counts(d.rounds[1]) == (2, 2)


def test_reading_a_dyson_repository_changes_no_file(repo):
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    for args in (["status"], ["show", THREAD], ["show", "swarm-power-architecture-end-use"]):
        assert cli(repo, *args).exit_code == 0
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_new_questions_in_a_dyson_repository_are_named_numbered_and_placed_as_dysons(repo):
    result = cli(repo, "new", "Who maintains the power beam?", "--tag", "power")
    assert result.exit_code == 0, result.output
    first = repo / "content" / "research-questions" / "phase-1" / "rq-1-41-who-maintains-the-power-beam.md"
    assert first.is_file()  # after rq-1-40, the highest of phase 1
    meta = YAML(typ="safe").load(first.read_text().split("---")[1])
    assert meta["questionId"] == "rq-1-41" and meta["sourcePhase"] == "phase-1" and meta["slug"]
    assert cli(repo, "new", "A second phase question", "--section", "research-questions/phase-2",
               "--bom-item", "bom-2-1", "--bom-slug", "ground-station").exit_code == 0
    assert (repo / "content" / "research-questions" / "phase-2" / "rq-2-1-a-second-phase-question.md").is_file()
    refused = cli(repo, "new", "Elsewhere", "--section", "research-questions/notes", "--dyson")
    assert refused.exit_code == 2 and "phase-<n> folder" in refused.stderr


def test_a_new_dyson_question_is_discussed_in_dysons_shape(repo):
    assert cli(repo, "new", "Who maintains the power beam?").exit_code == 0
    result = cli(repo, "run", "who-maintains-the-power-beam", "--auto")
    assert result.exit_code == 0, result.output
    thread = repo / "content" / "research-questions" / "phase-1" / "rq-1-41-who-maintains-the-power-beam"
    data = YAML(typ="safe").load((thread / "discussion.yaml").read_text())
    assert data["questionId"] == "rq-1-41" and data["phaseId"] == "phase-1" and data["status"] == "concluded"
    assert data["config"]["allowSelfVoting"] is True and data["config"]["unanimousTermination"] is True
    for n, entry in enumerate(data["rounds"], start=1):
        assert_dyson_round(entry, n)
    assert data["conclusion"]["generatedAt"] and isinstance(data["conclusion"]["keyPoints"], list)
    assert data["stats"]["totalRounds"] == len(data["rounds"]) and "panel" not in data
    d = store.load(thread)
    assert d.legacy and d.concluded and not any(r.imported for r in d.rounds)


def test_sections_may_nest_but_every_part_must_be_safe(project):
    assert project.cli("new", "Nested one", "--section", "topics/power").exit_code == 0
    assert (project.content / "topics" / "power" / "nested-one.md").is_file()
    bad = project.cli("new", "Escape", "--section", "topics/../../etc")
    assert bad.exit_code == 2 and "not a safe folder path" in bad.stderr


def test_dyson_key_points_are_read_clean_and_words_averaged_half_up(repo):
    concluded = folder(repo).parent / "rq-1-11-swarm-power-architecture-end-use"
    d = store.load(concluded)
    assert d.conclusion.key_points == ["Industry first"]  # not '**Industry** first' as discussion.yaml has it
    from discuss.protocols.stats import discussion_stats

    replies = d.rounds[0].replies
    replies["claude-opus-4-6"].text, replies["gemini-3-pro"].text = "two words", "three words here"
    del replies["gpt-5-2"]
    assert discussion_stats(d)["averageResponseWords"] == 3  # 2.5 rounds up, as Dyson rounds; never to even


def test_the_bias_report_by_hand(repo):
    from discuss.protocols.vote.bias import report

    rep = report([store.load(folder(repo))])
    rows = {p.panelist_id: p for p in rep.panelists}
    # claude: its own APPROVE (2) against gemini's APPROVE (2), gpt's invented vote left out: +0 in both rounds.
    assert rows["claude-opus-4-6"].self_generosity == 0.0 and rows["gemini-3-pro"].self_generosity == 0.0
    assert rows["gpt-5-2"].self_generosity is None  # its only own votes were invented
    assert rows["claude-opus-4-6"].self_generosity_ci == [0.0, 0.0] and rows["gpt-5-2"].self_generosity_ci is None
    assert rep.as_json()["panelists"][0]["ownAnswers"] == 2
    assert dict(rows["claude-opus-4-6"].tie_break_wins) == {"list-order": 2}
    assert [rows[i].invented_ballots for i in IDS] == [0, 0, 2]
    assert not rep.winning_positions  # Dyson recorded no labels
    assert cli(repo, "run", THREAD, "--rounds", "1").exit_code == 0
    rep = report([store.load(folder(repo))])
    assert sum(rep.winning_positions.values()) == 3  # one label per ballot of round 3 held the winner
    shown = cli(repo, "show", THREAD).stdout
    assert "Bias:" in shown and "wins by tie-break 2 by list-order" in shown


def test_self_generosity_has_a_seeded_interval_around_its_mean():
    from collections import Counter

    from discuss.protocols.vote.bias import BiasReport, Leaning, lines

    lean = Leaning("a", "A", margins=[1.0, -1.0, 0.5, 0.0, 2.0, -0.5])
    low, high = lean.self_generosity_ci
    assert low < lean.self_generosity < high and -1.0 <= low and high <= 2.0
    assert Leaning("a", "A", margins=list(lean.margins)).self_generosity_ci == [low, high]  # the same every time
    assert Leaning("a", "A", margins=[1.0]).self_generosity_ci is None  # one answer is no interval
    assert f"(95% CI {low:+.2f} to {high:+.2f}, 6 answers)" in lines(BiasReport([lean], Counter()))[0]


def test_the_site_shows_the_bias_report(repo):
    from sitekit import MKDOCS, build

    (repo / "mkdocs.yml").write_text(MKDOCS)
    site = build(repo)
    html = (site / "research-questions" / "phase-1" / f"rq-1-40-{THREAD}" / "index.html").read_text()
    assert "Bias report" in html and 'data-bias-panelist="gpt-5-2"' in html
    assert "Bias report" in (site / "leaderboard" / "index.html").read_text()


# What Project Dyson's site and content tests require of every research-questions/phase-*/rq-*.md.
REQUIRED = {"questionId": r"rq-\d+-\d+", "slug": r"[a-z0-9-]+", "title": r".+", "sourcePhase": r"phase-\d+",
            "sourceBOMItemId": r"bom-\d+-\d+", "sourceBOMItemSlug": r"[a-z0-9-]+", "questionType": r"discussion"}


def test_a_new_dyson_question_has_every_field_dysons_site_requires(repo):
    import re

    result = cli(repo, "new", "Who maintains the power beam?")
    assert result.exit_code == 0, result.output
    assert "BOM item bom-1-7 (slot-allocation-registry) taken from rq-1-40" in result.stdout
    path = repo / "content" / "research-questions" / "phase-1" / "rq-1-41-who-maintains-the-power-beam.md"
    meta = YAML(typ="safe").load(path.read_text().split("---")[1])
    for key, shape in REQUIRED.items():
        assert isinstance(meta.get(key), str) and re.fullmatch(shape, meta[key]), (key, meta.get(key))
    assert path.stem == f"{meta['questionId']}-{meta['slug']}"
    chosen = cli(repo, "new", "Who pays for the beam?", "--bom-item", "bom-1-2")
    assert chosen.exit_code == 0 and "BOM item bom-1-2 (power-distribution-bus)" in chosen.stdout
    for args, words in ((["--bom-item", "bom-1-99"], "give --bom-slug"), (["--bom-item", "b1"], "look like bom-1-3"),
                        (["--section", "research-questions/phase-3"], "give --bom-item")):
        refused = cli(repo, "new", "Another", *args)
        assert refused.exit_code == 2 and words in refused.stderr, refused.output


def test_usage_of_a_continued_dyson_thread_is_shown_everywhere_the_conclusion_included(repo):
    import json

    assert cli(repo, "run", THREAD, "--rounds", "1", "--conclude").exit_code == 0
    d = store.load(folder(repo))
    spent = d.usage
    assert spent.calls > 0 and d.conclusion.usage.calls == 1 and spent.total_tokens > 0
    assert raw(repo)["usage"]["calls"] == spent.calls  # beside Dyson's own fields
    row = next(x for x in json.loads(cli(repo, "status", "--json").stdout) if x["slug"] == THREAD)
    assert row["usage"]["totalTokens"] == spent.total_tokens
    shown = json.loads(cli(repo, "show", THREAD, "--json").stdout)
    assert shown["usage"]["calls"] == spent.calls and shown["usage"]["totalTokens"] == spent.total_tokens


def test_continuing_a_thread_keeps_dysons_bytes_and_adds_only_the_new_round(repo):
    """What Dyson wrote stays byte for byte (flow mappings, quoting, indentation); the diff is the new round."""
    index = folder(repo) / "discussion.yaml"
    before = index.read_text()
    head, rounds_and_rest = before.split("\nrounds:\n", 1)
    dyson_rounds = rounds_and_rest.split("\ncurrentRound:", 1)[0]
    assert cli(repo, "run", THREAD, "--rounds", "1").exit_code == 0
    after = index.read_text()
    assert after.split("\nstatus:", 1)[0] == head.split("\nstatus:", 1)[0]  # ids and config untouched
    assert "\nrounds:\n" + dyson_rounds + "\n  - roundNumber: 3\n" in after  # Dyson's rounds, then ours
    assert "{voterId: claude-opus-4-6, targetId: claude-opus-4-6, vote: APPROVE, reasoning: Mine.}" in after
    assert raw(repo)["rounds"][2]["writtenBy"] == "discuss"
    store.save(store.load(folder(repo)), folder(repo))
    assert index.read_text() == after  # read and saved again: not a byte moves, our round's included


def test_a_splice_that_would_read_back_differently_writes_the_whole_file():
    from discuss.store import yamlio
    from discuss.store.yamlwrite import splice

    original = "a: 1\nlist:\n- {x: 1}\nb: [1, 2]\n"
    grown = splice(original, {"a": 1, "list": [{"x": 1}, {"x": 2}], "b": [1, 2], "c": "new"})
    assert grown.startswith("a: 1\nlist:\n- {x: 1}\n- x: 2\nb: [1, 2]\n") and grown.endswith("c: new\n")
    assert yamlio.load(grown) == {"a": 1, "list": [{"x": 1}, {"x": 2}], "b": [1, 2], "c": "new"}
    changed = splice(original, {"a": 2, "list": [{"x": 9}], "b": [1, 2]})
    assert changed.startswith("a: 2\n") and "b: [1, 2]\n" in changed and yamlio.load(changed)["list"] == [{"x": 9}]
    broken = splice("a: [unclosed\n", {"a": 1})
    assert yamlio.load(broken) == {"a": 1}


def test_check_lists_what_dysons_content_rules_refuse_and_changes_nothing(repo):
    phase = repo / "content" / "research-questions" / "phase-1"
    assert cli(repo, "new", "Who maintains the power beam?").exit_code == 0
    assert cli(repo, "check").exit_code == 0  # what `discuss new` writes passes
    (phase / "rq-1-50-bare.md").write_text('---\nquestionId: "rq-1-50"\nslug: "bare"\ntitle: "Bare?"\n---\n\nText.\n')
    (phase / "rq-1-40-copy.md").write_text(
        '---\nquestionId: "rq-2-40"\nslug: "other"\ntitle: "Copy?"\nsourcePhase: "phase-2"\n'
        'sourceBOMItemId: "bom-7"\nsourceBOMItemSlug: "x"\n---\n\nText.\n')
    (phase / "rq-1-51-dup.md").write_text(
        '---\nquestionId: "rq-1-40"\nslug: "dup"\ntitle: "Dup?"\nsourcePhase: "phase-1"\n'
        'sourceBOMItemId: "bom-1-7"\nsourceBOMItemSlug: "x"\n---\n\nText.\n')
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = cli(repo, "check")
    assert result.exit_code == 1, result.output
    out = result.stdout
    assert "rq-1-50-bare.md: 'sourcePhase' is missing or empty" in out and "'sourceBOMItemSlug' is missing" in out
    assert "rq-1-40-copy.md: questionId 'rq-2-40' is not rq-1-<number>" in out
    assert "sourcePhase 'phase-2' is not its folder's 'phase-1'" in out and "'bom-7' is not bom-1-<number>" in out
    assert "rq-1-40-copy.md: file name is not rq-2-40-other.md" in out
    assert "questionId rq-1-40 is also" in out  # one id, two files
    assert "3 of 6 question file(s) would be refused" in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_a_run_in_a_git_repository_leaves_only_the_discussions_own_files(repo):
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    git("-c", "user.email=t@example.org", "-c", "user.name=t", "add", "-A")
    git("-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "before")
    assert cli(repo, "run", THREAD, "--rounds", "1").exit_code == 0
    changed = [line[3:] for line in git("status", "--porcelain", "--untracked-files=all").splitlines()]
    thread = f"content/research-questions/phase-1/rq-1-40-{THREAD}/"
    assert changed and all(path.startswith(thread) for path in changed), changed  # no lock, no stray file
    assert not any(Path(path).name.startswith(".") for path in changed)


def test_each_round_of_a_continued_thread_says_how_it_was_run(repo):
    import json

    assert cli(repo, "run", THREAD, "--rounds", "1").exit_code == 0
    assert raw(repo)["rounds"][2]["method"] == "anonymised" and "method" not in raw(repo)["rounds"][0]
    shown = cli(repo, "show", THREAD).stdout
    rounds = shown.split("## Round ")[1:]
    assert all("method: Project Dyson's reference tool" in r for r in rounds[:2])
    assert "method: discuss: answers under letters shuffled per voter" in rounds[2]
    exported = json.loads(cli(repo, "show", THREAD, "--json").stdout)["rounds"]
    assert [r.get("method") for r in exported] == ["dyson-reference", "dyson-reference", "anonymised"]
    store.save(store.load(folder(repo)), folder(repo))  # read back, the method stays
    assert raw(repo)["rounds"][2]["method"] == "anonymised"


def test_export_csv_gives_the_paper_tables_computed_from_the_threads_by_hand(repo, tmp_path):
    import csv
    import json

    out = tmp_path / "tables"
    result = cli(repo, "export", "--csv", str(out))
    assert result.exit_code == 0, result.output
    read = {name: list(csv.DictReader((out / f"{name}.csv").open())) for name in ("discussions", "rounds", "votes")}
    for thread in sorted((DYSON / "phase-1").glob("rq-*/discussion.yaml")):
        data = YAML(typ="safe").load(thread.read_text())
        slug = data["questionSlug"]
        cast = [v for r in data["rounds"] for result in r["votes"] for v in result["votes"]]
        row = next(x for x in read["discussions"] if x["question_slug"] == slug)
        assert row["question_id"] == data["questionId"] and row["status"] == data["status"]
        assert int(row["total_votes"]) == len(cast) and int(row["total_rounds"]) == len(data["rounds"])
        for vote, column in (("APPROVE", "approve_count"), ("NEUTRAL", "neutral_count"), ("REJECT", "reject_count")):
            assert int(row[column]) == sum(v["vote"] == vote for v in cast)
        approved = sum(v["vote"] == "APPROVE" for v in cast)
        assert row["approve_rate"] == str(round(approved / len(cast), 4))  # the paper's fraction, four places
        assert float(row["approve_pct"]) == round(100 * approved / len(cast), 1)
        question = YAML(typ="safe").load(thread.parent.with_suffix(".md").read_text().split("---")[1])
        assert row["category"] == str(question.get("category") or "")
        rounds = [x for x in read["rounds"] if x["question_slug"] == slug]
        assert [x["winner_id"] for x in rounds] == [r["winnerId"] for r in data["rounds"]]
        majority = [sum(t["vote"] == "CONCLUDE" for t in r["terminationVotes"])
                    > sum(t["vote"] == "CONTINUE" for t in r["terminationVotes"]) for r in data["rounds"]]
        assert [x["should_terminate"] for x in rounds] == [str(m) for m in majority]  # the paper's: the majority
        assert [x["stopping_rule_met"] for x in rounds] == [str(r["shouldTerminate"]) for r in data["rounds"]]
        assert {x["phase_id"] for x in rounds} == {"phase-1"}
        assert [int(x["conclude_votes"]) for x in rounds] == [
            sum(t["vote"] == "CONCLUDE" for t in r["terminationVotes"]) for r in data["rounds"]]
        votes = [x for x in read["votes"] if x["question_slug"] == slug]
        assert len(votes) == len(cast) and {x["vote"] for x in votes} <= {"APPROVE", "NEUTRAL", "REJECT"}
        assert all(x["is_self_vote"] == str(x["voter_id"] == x["target_id"]) for x in votes)
    invented = [v for t in (DYSON / "phase-1").glob("rq-*/discussion.yaml")
                for r in YAML(typ="safe").load(t.read_text())["rounds"] for res in r["votes"] for v in res["votes"]
                if v["reasoning"].lower().startswith(("parse error", "api unavailable"))]
    assert sum(x["invented"] == "True" for x in read["votes"]) == len(invented) > 0  # kept, and marked
    as_json = json.loads(cli(repo, "export", "--json").stdout)
    assert len(as_json["votes"]) == len(read["votes"]) and as_json["rounds"][0]["round_number"] == 1
    assert cli(repo, "export").exit_code == 2  # neither --csv nor --json: nothing to do


def test_a_round_a_finished_thread_never_listed_is_said_by_show_and_check_and_never_read(repo):
    done = repo / "content" / "research-questions" / "phase-1" / "rq-1-11-swarm-power-architecture-end-use"
    shutil.copytree(folder(repo) / "round-2", done / "round-2")  # a round begun and left by the tool
    shown = cli(repo, "show", "swarm-power-architecture-end-use")
    assert shown.exit_code == 0 and "Left out: round-2/, which discussion.yaml does not list" in shown.stdout
    assert "## Round 2" not in shown.stdout
    import json

    data = json.loads(cli(repo, "show", "swarm-power-architecture-end-use", "--json").stdout)
    assert data["orphanRounds"] == [2] and [r["number"] for r in data["rounds"]] == [1]
    checked = cli(repo, "check", "--json")
    assert {"path": done.relative_to(repo).as_posix(), "note": "round-2/ not listed in discussion.yaml: left out, "
            "never counted"} in json.loads(checked.stdout)["notices"]


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

scalars = st.one_of(st.integers(-5, 5), st.booleans(), st.none(), st.text(max_size=12))
entries = st.dictionaries(st.sampled_from(["a", "b", "c"]), scalars, max_size=3)


@given(before=st.lists(entries, max_size=3), added=st.lists(entries, max_size=2), other=scalars, flow=st.booleans())
def test_a_splice_always_reads_back_as_the_data_and_keeps_an_unchanged_prefix(before, added, other, flow):
    from discuss.store import yamlio, yamlwrite
    from discuss.store.yamlwrite import splice

    original = yamlwrite.dump({"head": other, "rounds": before, "tail": 1})
    if flow and before:  # another tool's style: items as flow mappings, indented by two
        original = "head: " + yamlwrite.dump(other).strip() + "\nrounds:\n" + "".join(
            "  - " + yamlwrite.dump(item).strip().replace("\n", ", ").join("{}") + "\n" for item in before) + "tail: 1\n"
        try:
            written = yamlio.load(original)
        except ValueError:
            written = None
        if written != {"head": other, "rounds": before, "tail": 1}:
            return  # a style this sketch cannot write for these values
    data = {"head": other, "rounds": before + added, "tail": 2}
    text = splice(original, data)
    assert yamlio.load(text) == data
    if before and text != yamlwrite.dump(data):
        kept = original.split("\ntail:")[0]
        assert text.startswith(kept)  # what was there is a byte prefix of what is written


def test_a_splice_that_came_out_wrong_is_never_written(monkeypatch):
    """Whatever goes wrong in keeping lines, the text written reads back as the data, or is ours whole."""
    from discuss.store import yamlio, yamlwrite

    monkeypatch.setattr(yamlwrite, "_list", lambda block, key, before, now: block)  # keeps, adds nothing
    data = {"a": 1, "rounds": [{"x": 1}, {"x": 2}]}
    text = yamlwrite.splice("a: 1\nrounds:\n- {x: 1}\n", data)
    assert yamlio.load(text) == data and text == yamlwrite.dump(data)


def test_a_follow_up_of_a_dyson_question_is_a_dyson_question_beside_it(repo):
    import re

    phase = repo / "content" / "research-questions" / "phase-1"
    original = phase / "rq-1-11-swarm-power-architecture-end-use"
    before = {p: p.read_bytes() for p in original.rglob("*") if p.is_file()}
    asked = cli(repo, "follow-up", "swarm-power-architecture-end-use", "What if the bus fails at night?", "--auto",
                "-q")
    assert asked.exit_code == 0, asked.output
    path = phase / "rq-1-41-what-if-the-bus-fails-at-night.md"  # within Dyson's two folder levels
    meta = YAML(typ="safe").load(path.read_text().split("---")[1])
    for key, shape in REQUIRED.items():
        assert isinstance(meta.get(key), str) and re.fullmatch(shape, meta[key]), (key, meta.get(key))
    assert (meta["followUpOf"], meta["part"]) == ("swarm-power-architecture-end-use", 2)
    assert (meta["sourceBOMItemId"], meta["sourceBOMItemSlug"]) == ("bom-1-2", "power-distribution-bus")
    assert "What the panel concluded (part 1)" in path.read_text()  # it reads the thread's conclusion
    thread = YAML(typ="safe").load((path.with_suffix("") / "discussion.yaml").read_text())
    assert thread["phaseId"] == "phase-1" and thread["rounds"][0]["responses"]  # in Dyson's shape
    assert {p: p.read_bytes() for p in original.rglob("*") if p.is_file()} == before
    assert cli(repo, "check").exit_code == 0  # nothing Dyson's content rules refuse
    again = cli(repo, "follow-up", "swarm-power-architecture-end-use", "And in an eclipse season?", "--auto", "-q")
    assert again.exit_code == 0, again.output
    third = phase / "rq-1-42-and-in-an-eclipse-season.md"
    assert YAML(typ="safe").load(third.read_text().split("---")[1])["part"] == 3
    assert "What the panel concluded (part 2)" in third.read_text()
