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
    finals = [next(get_protocol("vote").figures(r).winner for r in reversed(d.rounds)) for d in trials]
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


def test_no_trial_yet_is_a_clear_error(project):
    result = project.cli("trials", "swarm-power")
    assert result.exit_code == 2 and "no trial yet" in result.stderr


def test_export_counts_each_trial_as_a_discussion_of_its_question(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto").exit_code == 0
    assert project.cli("trials", "swarm-power", "--runs", "2", "--panel", "offline").exit_code == 0
    rows = json.loads(project.cli("export", "--json").stdout)["discussions"]
    assert [(r["question_slug"], r["trial"], r["path"]) for r in rows] == [
        ("swarm-power", "", "questions/swarm-power"),
        ("swarm-power", 1, "questions/swarm-power/trials/trial-1"),
        ("swarm-power", 2, "questions/swarm-power/trials/trial-2")]
