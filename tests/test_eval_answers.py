"""The final answer in the record: every protocol arm's discussion of an item records what it answered, as the
grader reads it (`finalAnswer`, with each round's answers member by member); `show` prints it, the JSON carries
it, and verify names a recorded answer its files do not state."""

from __future__ import annotations

import json

import pytest

from conftest import fake_panel
from test_eval import ITEM, responder, truth


@pytest.fixture
def evaluated(project, fake):
    fake.responder = responder
    project.write_panels(fake_panel(fake.url))
    return project


def test_every_item_discussion_records_its_final_answer_and_verify_reads_it(evaluated):
    from discuss.archive.export import discussion_json
    from discuss.archive.integrity import check
    from discuss.archive.report import show
    from discuss.store import discussions as store
    from discuss.store import yamlio

    ran = evaluated.cli("eval", "arithmetic", "--panel", "fake", "--items", "3", "--arms", "vote,council", "--json")
    assert ran.exit_code == 0, ran.output
    report = json.loads(ran.stdout)
    rows = list((evaluated.root / "evals" / "arithmetic" / "items.csv").read_text().splitlines())
    assert report["arms"]["vote"]["items"] == 3 and len(rows) == 1 + 6
    for arm in ("vote", "council"):
        for question in sorted((evaluated.root / "evals" / "arithmetic" / arm).glob("*.md")):
            folder = question.with_suffix("")
            index = yamlio.load((folder / "discussion.yaml").read_text())
            value, _ = truth(ITEM.search(question.read_text()).group(0))
            # alpha is always right, gamma one over; the vote's winner gave one of the two, the fake chairman
            # states no answer line (nothing gradable: recorded as such, never guessed)
            assert index["finalAnswer"] in ({str(value), str(value + 1)} if arm == "vote" else {None}), arm
            read = index["answerRead"]
            assert read["rule"] == "answer-line" and read["kind"] == "number" and read["from"].endswith(".md")
            assert read["rounds"][0]["answers"]["alpha"] == str(value)
            assert read["rounds"][0]["answers"]["gamma"] == str(value + 1)
            d = store.load(folder)
            shown = "nothing gradable" if index["finalAnswer"] is None else index["finalAnswer"]
            assert f"Final answer: {shown} (read from {read['from']} by the answer-line rule)" in show(d)
            assert discussion_json(d)["finalAnswer"] == index["finalAnswer"]
            assert check(d, folder, index)[0] == []
    # A recorded answer the files do not state is named, as is a round's answer edited.
    folder = sorted((evaluated.root / "evals" / "arithmetic" / "vote").glob("*/discussion.yaml"))[0].parent
    text = (folder / "discussion.yaml").read_text()
    index = yamlio.load(text)
    forged = text.replace(f"finalAnswer: '{index['finalAnswer']}'", "finalAnswer: '-1'")
    assert forged != text
    (folder / "discussion.yaml").write_text(forged)
    found = check(store.load(folder), folder, yamlio.load(forged))[0]
    assert [f["kind"] for f in found] == ["final-answer"] and found[0]["before"] == "-1"
    round_one = index["answerRead"]["rounds"][0]["answers"]["alpha"]
    forged = text.replace(f"alpha: '{round_one}'", "alpha: '7'", 1)
    (folder / "discussion.yaml").write_text(forged)
    found = check(store.load(folder), folder, yamlio.load(forged))[0]
    assert [(f["kind"], f["round"]) for f in found] == [("final-answer", 1)]


def test_a_discussion_outside_an_eval_records_no_final_answer(evaluated):
    from discuss.store import yamlio

    ran = evaluated.cli("run", "swarm-power", "--auto", "--panel", "fake")
    assert ran.exit_code == 0, ran.output
    index = yamlio.load((evaluated.folder / "discussion.yaml").read_text())
    assert "finalAnswer" not in index and "answerRead" not in index
