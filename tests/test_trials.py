"""Repeated trials of one question: independent runs beside it, and the figures of how stable they are."""

from __future__ import annotations

import json
import shutil
import statistics
from collections import Counter
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from discuss.protocols import get_protocol
from discuss.store import discussions as store
from sitekit import MKDOCS

DYSON = Path(__file__).parent / "data" / "dyson" / "phase-1"


def trial_folders(project) -> list[Path]:
    return sorted((project.folder / "trials").glob("trial-*"))


def test_trials_run_independently_and_the_report_is_their_figures(project):
    result = project.cli("trials", "swarm-power", "--runs", "3", "--panel", "offline", "--json")
    assert result.exit_code == 0, result.output
    folders = trial_folders(project)
    assert [f.name for f in folders] == ["trial-1", "trial-2", "trial-3"]
    trials = [store.load(f) for f in folders]
    assert [d.trial for d in trials] == [1, 2, 3] and all(d.question_slug == "swarm-power" for d in trials)
    assert "trial: 2\n" in (folders[1] / "discussion.yaml").read_text()
    assert len({d.rounds[0].seed for d in trials}) == 3  # each trial draws its own labels and ties

    report = json.loads(result.stdout)
    rounds = [sum(r.complete for r in d.rounds) for d in trials]
    assert report["runs"] == 3 and report["rounds"]["mean"] == round(statistics.mean(rounds), 3)
    assert report["rounds"]["sd"] == round(statistics.stdev(rounds), 3)
    finals = [next(get_protocol("vote").figures.of_round(r).winner for r in reversed(d.rounds)) for d in trials]
    top = Counter(finals).most_common(1)[0][1]
    assert report["winnerStability"]["final"] == round(top / 3, 3)
    low, high = report["rounds"]["ci95"]
    assert low <= report["rounds"]["mean"] <= high

    before = project.snapshot()
    again = project.cli("trials", "swarm-power", "--runs", "3", "--json")
    assert again.exit_code == 0 and json.loads(again.stdout) == report  # done trials are not run again
    assert project.snapshot() == before


def test_trials_estimate_prices_what_is_left_and_writes_nothing(project):
    assert project.cli("trials", "swarm-power", "--runs", "1", "--panel", "offline").exit_code == 0
    before = project.snapshot()
    priced = project.cli("trials", "swarm-power", "--runs", "3", "--panel", "offline", "--estimate")
    assert priced.exit_code == 0, priced.output
    assert priced.stdout.count("swarm-power") == 2  # trials 2 and 3; trial 1 is done
    assert project.snapshot() == before


def test_trials_of_a_question_never_become_pages_of_their_own(project):
    from sitekit import build

    assert project.cli("trials", "swarm-power", "--runs", "2", "--panel", "offline").exit_code == 0
    (project.root / "mkdocs.yml").write_text(MKDOCS + "strict: true\n")
    site = build(project.root)
    assert not list(site.rglob("trial-1*"))
    data = json.loads((site / "discussions.json").read_text())  # published as data, told apart by path
    assert [(d["path"], d["trial"]) for d in data] == [
        ("questions/swarm-power/trials/trial-1", 1), ("questions/swarm-power/trials/trial-2", 2)]


def test_a_folder_of_dyson_trials_is_read_as_a_trial_set(tmp_path, project):
    folder = tmp_path / "repeated-trials" / "slot-reallocation-governance"
    threads = sorted(p for p in DYSON.iterdir() if p.is_dir())
    for k, thread in enumerate(threads, 1):
        shutil.copytree(thread, folder / f"trial-{k}")
    result = project.cli("trials", str(folder), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    data = [YAML(typ="safe").load((folder / f"trial-{k}" / "discussion.yaml").read_text())
            for k in range(1, len(threads) + 1)]
    assert report["runs"] == len(threads)
    assert report["rounds"]["mean"] == round(statistics.mean(len(d["rounds"]) for d in data), 3)
    shares = []
    for d in data:  # approval by hand: APPROVE among votes cast, the tool's invented ones left out
        cast = [v for r in d["rounds"] for res in r["votes"] for v in res["votes"]
                if not v["reasoning"].lower().startswith(("parse error", "api unavailable"))]
        shares.append(100 * sum(v["vote"] == "APPROVE" for v in cast) / len(cast))
    assert report["approval"]["mean"] == pytest.approx(statistics.mean(shares), abs=1e-3)
    reasons = [d.get("terminationReason") for d in data]
    assert report["terminationConsistency"] == round(Counter(reasons).most_common(1)[0][1] / len(data), 3)
    # Each panelist's leaning over the trials: the spread of its figure in each trial alone.
    from discuss.protocols import get_protocol
    from discuss.store import discussions as store

    each = [get_protocol("vote").figures.bias([store.load(folder / f"trial-{k}")]) for k in range(1, len(threads) + 1)]
    for pid, leaning in report["bias"].items():
        alone = [p.self_generosity for rep in each for p in rep.panelists
                 if p.panelist_id == pid and p.self_generosity is not None]
        assert leaning["selfVoteGenerosity"]["mean"] == (round(statistics.mean(alone), 3) if alone else None)


def test_no_trial_yet_is_a_clear_error(project):
    result = project.cli("trials", "swarm-power")
    assert result.exit_code == 2 and "no trial yet" in result.stderr


def test_export_counts_each_trial_as_a_discussion_of_its_question(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto").exit_code == 0
    ran = project.cli("trials", "swarm-power", "--runs", "2", "--panel", "offline")
    assert ran.exit_code == 0 and "swarm-power trial 1: concluded" in ran.stderr and "swarm-power trial 2: " in ran.stderr
    rows = json.loads(project.cli("export", "--json").stdout)["discussions"]
    assert [(r["question_slug"], r["trial"], r["path"]) for r in rows] == [
        ("swarm-power", "", "questions/swarm-power"),
        ("swarm-power", 1, "questions/swarm-power/trials/trial-1"),
        ("swarm-power", 2, "questions/swarm-power/trials/trial-2")]
    written = project.cli("export", "--csv", str(project.root / "tables"))
    assert "3 discussion(s) (2 of them trials)" in written.stdout


def test_trials_of_a_dyson_question_go_where_dysons_analysis_reads_them(tmp_path):
    from test_dyson import DYSON as DYSON_TREE
    from test_dyson import cli

    root = tmp_path / "dyson"
    shutil.copytree(DYSON_TREE, root / "content" / "research-questions")
    (root / "discussions").mkdir()
    (root / "discussions" / "panels.yaml").write_text(
        "panels:\n    default:\n      members:\n"
        + "".join(f"        - {{id: {i}, model: offline/{p}}}\n" for i, p in (("a", "pragmatist"), ("b", "skeptic")))
        + "      settings: {retryBaseDelay: 0.0}\n")
    created = cli(root, "new", "Which orbit for the first collectors", "--bom-item", "bom-1-2")
    assert created.exit_code == 0, created.output
    into = root / "publications" / "data" / "repeated-trials" / "which-orbit-for-the-first-collectors"
    result = cli(root, "trials", "which-orbit-for-the-first-collectors", "--runs", "2", "--into", str(into))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in into.iterdir()) == ["trial-1", "trial-2"]
    for k in (1, 2):  # each a thread as Dyson's tools read one: the rounds embedded, the question's id
        data = YAML(typ="safe").load((into / f"trial-{k}" / "discussion.yaml").read_text())
        assert data["questionSlug"] == "which-orbit-for-the-first-collectors" and data["questionId"].startswith("rq-1-")
        assert data["rounds"] and all(r["responses"] and r["votes"] for r in data["rounds"])
    assert not list((root / "content").rglob("trials"))  # nothing beside the question
    again = cli(root, "trials", str(into), "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["runs"] == 2


def test_the_analysis_page_gives_the_archives_figures_the_trials_and_the_export_built_with_it(project, tmp_path):
    import re

    from sitekit import build

    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto").exit_code == 0
    assert project.cli("trials", "swarm-power", "--runs", "3", "--panel", "offline").exit_code == 0
    (project.root / "mkdocs.yml").write_text(MKDOCS + "strict: true\n")
    site = build(project.root)
    html = (site / "analysis" / "index.html").read_text()

    d = store.load(project.folder)  # the archive is the question's own discussion; its trials are apart
    cast = [j for r in d.rounds for j in get_protocol("vote").figures.of_round(r).judgements if not j.invented]
    figure = dict(re.findall(r'data-figure="(\w+)">([^<]*)', html))
    assert figure["discussions"].startswith("1 (1 concluded)")
    assert figure["votes"] == f"{len(cast)}, {round(100 * sum(j.approves for j in cast) / len(cast), 1)}% approving"
    assert figure["rounds"].startswith(str(sum(r.complete for r in d.rounds)))

    trials = json.loads(project.cli("trials", "swarm-power", "--json").stdout)
    row = re.search(r'<tr data-trials="questions/swarm-power.md">(.*?)</tr>', html, re.S).group(1)
    runs = trials["runs"]
    assert f'<td data-label="Trials">{runs}</td>' in row and f"{trials['rounds']['mean']} ±" in row

    exported = tmp_path / "export"
    assert project.cli("export", "--csv", str(exported)).exit_code == 0
    for name in ("discussions.csv", "rounds.csv", "votes.csv", "divergent_views.yaml"):
        assert (site / "data" / name).read_bytes() == (exported / name).read_bytes(), name  # the page cannot drift
        assert f'href="../data/{name}"' in html


def test_a_round_folder_a_finished_trial_does_not_list_is_reported_never_counted(tmp_path, project):
    folder = tmp_path / "repeated-trials" / "swarm-power"
    concluded = DYSON / "rq-1-11-swarm-power-architecture-end-use"
    for k in (1, 2):
        shutil.copytree(concluded, folder / f"trial-{k}")
    # Trial 2 holds a round its index never listed: a round the tool began and left (as two of ISRU's do).
    shutil.copytree(DYSON / "rq-1-40-slot-reallocation-governance" / "round-2", folder / "trial-2" / "round-2")
    report = json.loads(project.cli("trials", str(folder), "--json").stdout)
    assert report["orphanRounds"] == {"trial-2": [2]}
    assert report["rounds"]["mean"] == 1.0 and report["approval"]["sd"] == 0.0  # both read as the same thread
    text = project.cli("trials", str(folder)).stdout
    assert "left out:    trial-2: round folder(s) round-2/" in text
    assert "approval:    " in text and "%" in text.split("approval:")[1].splitlines()[0]
    assert "2 of 2 trials (100%)" in text
    from discuss.store import discussions as store

    thread = store.load(folder / "trial-2")
    assert thread.foreign is not None and thread.foreign.orphan_rounds == [2] and [r.number for r in thread.rounds] == [1]
