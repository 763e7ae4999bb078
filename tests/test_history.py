"""Damaged history is refused, naming what is wrong, before anything is asked or written."""

from __future__ import annotations

import shutil

import pytest

from conftest import fake_panel
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store


@pytest.fixture
def three_rounds(project):
    result = project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "3", "-q")
    assert result.exit_code == 0, result.output
    return project


def refused(project, *expected: str) -> None:
    before = project.snapshot()
    for command in (["run", "swarm-power", "--panel", "offline", "--rounds", "1"], ["show", "swarm-power"]):
        result = project.cli(*command)
        assert result.exit_code == 2, result.output
        assert all(e in result.stderr for e in expected), result.stderr
    assert project.snapshot() == before


def test_an_index_cut_to_a_valid_prefix(three_rounds):
    index = three_rounds.folder / "discussion.yaml"
    index.write_text(index.read_text().split("\npanel:\n")[0] + "\n")
    refused(three_rounds, "discussion.yaml", "cut short", "panel", "rounds")


def test_an_index_that_lost_its_last_rounds(three_rounds):
    index = three_rounds.folder / "discussion.yaml"
    text = index.read_text()
    index.write_text(text[: text.index("- roundNumber: 3")].replace("currentRound: 3", "currentRound: 2"))
    refused(three_rounds, "round-3/ is on disk", "records 2 round(s)")


def test_a_deleted_votes_file(three_rounds):
    (three_rounds.folder / "round-1" / "votes.yaml").unlink()
    refused(three_rounds, "round-1/votes.yaml: missing")


def test_a_deleted_round_folder(three_rounds):
    shutil.rmtree(three_rounds.folder / "round-2")
    refused(three_rounds, "round-2", "replies are missing")


def test_a_deleted_winner(three_rounds):
    winner = ballot_box(store.load(three_rounds.folder).rounds[0]).winner_id
    (three_rounds.folder / "round-1" / f"{winner}.md").unlink()
    refused(three_rounds, "round-1", f"the reply of {winner} is missing")


def test_a_merge_conflict_in_votes_is_named_as_such(three_rounds):
    votes = three_rounds.folder / "round-2" / "votes.yaml"
    votes.write_text("<<<<<<< HEAD\n" + votes.read_text() + "=======\nvotes: []\n>>>>>>> theirs\n")
    refused(three_rounds, "round-2/votes.yaml", "merge conflict")


def test_a_typo_in_the_conclusion_author_is_caught_before_any_call(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{conclusionAuthor: alhpa}"))
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "fake", "--auto")
    assert result.exit_code == 2 and "conclusionAuthor" in result.stderr and "'alhpa'" in result.stderr
    assert fake.requests == [] and project.snapshot() == before
