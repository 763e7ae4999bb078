"""An eval that cannot mislead: its answers bound to the settings they were given under, one run of a name at a
time, a subset run that keeps the rest, a set's repeated id found at once, and a report a paper can cite."""

from __future__ import annotations

import csv
import io
import json

import pytest

from conftest import fake_panel
from discuss.store import yamlio
from test_eval import responder


@pytest.fixture
def evaluated(project, fake):
    fake.responder = responder
    project.write_panels(fake_panel(fake.url), fake_panel(fake.url).replace("fake:", "other:"))
    return project


def run(project, *args, code=0):
    result = project.cli("eval", "arithmetic", "--items", "4", *args, "--json")
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 else result


def test_answers_under_another_seed_or_panel_are_never_graded_and_the_way_on_is_named(evaluated, fake):
    run(evaluated, "--panel", "fake", "--seed", "1", "--arms", "single:alpha,majority")
    asked = len(fake.requests)
    refused = run(evaluated, "--panel", "fake", "--seed", "2", "--arms", "single:alpha", code=2)
    assert "seed: 1 then, 2 now" in refused.stderr and "--name" in refused.stderr and "--fresh" in refused.stderr
    refused = run(evaluated, "--panel", "other", "--seed", "1", "--arms", "single:alpha", code=2)
    assert "panel name: 'fake' then, 'other' now" in refused.stderr
    assert len(fake.requests) == asked  # nothing asked under the refused settings
    elsewhere = run(evaluated, "--panel", "fake", "--seed", "2", "--arms", "single:alpha", "--name", "seed-2")
    assert elsewhere["seed"] == 2 and (evaluated.root / "evals" / "seed-2" / "eval.yaml").is_file()
    again = run(evaluated, "--panel", "fake", "--seed", "2", "--arms", "single:alpha", "--fresh")
    assert again["seed"] == 2 and set(again["arms"]) == {"single:alpha"}  # the seed-1 answers are gone
    assert not (evaluated.root / "evals" / "arithmetic" / "majority").exists()


def test_a_run_of_some_arms_keeps_the_others_in_the_report(evaluated):
    whole = run(evaluated, "--panel", "fake", "--arms", "single:alpha,single:gamma,majority")
    part = run(evaluated, "--panel", "fake", "--arms", "single:gamma", "--items", "2")
    assert set(part["arms"]) == {"single:alpha", "single:gamma", "majority"}
    assert part["arms"] == whole["arms"] and part["items"] == 4


def test_a_second_eval_of_a_name_refuses_while_one_runs(evaluated, fake):
    from discuss.store.files import DiscussionLock

    with DiscussionLock(evaluated.root / "evals" / "arithmetic"):
        busy = run(evaluated, "--panel", "fake", "--arms", "single:alpha", code=2)
    assert "another `discuss eval` of this name is running" in busy.stderr and fake.requests == []


def test_a_repeated_id_among_many_items_is_named(evaluated):
    rows = [{"id": f"q{k}", "question": "2+2?", "answer": 4, "answerType": "number"} for k in range(100_000)]
    rows.append(rows[77_777])
    (evaluated.root / "evals").mkdir()
    (evaluated.root / "evals" / "many.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    refused = evaluated.cli("eval", "many", "--panel", "fake", "--estimate")
    assert refused.exit_code == 2 and "item ids repeat (q77777)" in refused.stderr


def test_the_report_names_its_provenance_and_statistics_and_its_tables_keep_numbers(evaluated):
    found = run(evaluated, "--panel", "fake", "--arms", "single:alpha,majority")
    shown = found["provenance"]
    assert shown["panel"] == "fake" and [m["model"] for m in shown["members"]] == ["openai/alpha", "openai/beta",
                                                                                   "openai/gamma"]
    assert shown["discussVersion"] and shown["date"] and shown["setDigest"] and shown["seed"] == 1
    assert shown["command"].startswith("discuss") and shown["grader"]["rule"] == "answer-line"
    assert "Wilson" in shown["statistics"]["accuracy"] and "2000 draws" in shown["statistics"]["paired"]
    assert "McNemar" in shown["statistics"]["difference"]
    row = found["paired"]["single:alpha vs majority"]
    assert row["differs"] is (row["pValue"] < 0.05)
    folder = evaluated.root / "evals" / "arithmetic"
    items = list(csv.DictReader(io.StringIO((folder / "items.csv").read_text())))
    assert all(int(r["answer"]) == int(r["read"]) for r in items if r["arm"] == "single:alpha")
    assert any(r["answer"].startswith("-") for r in items)  # a negative answer as a number, not the text '-133
    arms = list(csv.DictReader(io.StringIO((folder / "arms.csv").read_text())))
    assert {r["arm"] for r in arms} == {"single:alpha", "majority"}
    assert next(r for r in arms if r["arm"] == "single:alpha")["accuracy"] == "1.0"
    progress = (folder / "progress.yaml").read_text()
    assert "state: finished" in progress and "total: 8" in progress
    kept = (folder / "report.yaml").read_text()  # the report as --json gives it, key for key, in the same order
    assert json.dumps(found) == json.dumps(yamlio.load(kept))


def test_the_report_is_recomputed_from_the_items_files_alone(evaluated):
    from discuss.archive.evaluation import recompute
    from discuss.store import yamlio

    found = run(evaluated, "--panel", "fake", "--arms", "vote,single:alpha,majority")
    folder = evaluated.root / "evals" / "arithmetic"
    again = recompute(evaluated.root, folder)
    assert again == {k: v for k, v in found.items() if k not in ("provenance", "notStarted")}
    kept = yamlio.load((folder / "report.yaml").read_text())
    assert kept["arms"] == again["arms"] and kept["paired"] == again["paired"]
    answer = folder / "single-alpha" / "a0001.yaml"
    answer.write_text(answer.read_text().replace("Answer: ", "Answer: 1"))  # an answer edited: the figures move
    assert recompute(evaluated.root, folder)["arms"]["single:alpha"]["correct"] == found["arms"]["single:alpha"][
        "correct"] - 1
