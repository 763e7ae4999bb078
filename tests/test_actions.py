"""The commands' logic called as functions, without the CLI: values and notes back, InputError for bad input."""

from __future__ import annotations

import pytest

from discuss.commands import running as actions
from discuss.engine.prepare import Options
from discuss.errors import InputError


def test_ready_gives_the_discussion_and_the_notes_to_show_first(project):
    r = actions.ready(project.root, project.content, "swarm-power", Options(panel="offline",
                                                                             overrides={"max_rounds": 9}))
    assert r.q.slug == "swarm-power" and r.d.settings.max_rounds == 9 and not r.d.rounds
    assert any("more than 7 rounds" in note for note in r.notes)
    assert not project.folder.exists()  # getting ready writes nothing


def test_follow_up_of_an_unfinished_discussion_is_refused_before_anything_is_written(project):
    before = project.snapshot()
    with pytest.raises(InputError, match="not started"):
        actions.follow_up_file(project.content, "swarm-power", "And then?", None, None)
    assert project.snapshot() == before


def test_ask_file_is_written_once_and_found_again(project):
    first, how = actions.ask_file(project.content, "questions", "Which orbit first?", "Some background.")
    again, how_again = actions.ask_file(project.content, "questions", "Which orbit first?", None)
    assert (how, how_again) == ("new", "same") and first == again and "Some background." in first.read_text()
    spaced, how_spaced = actions.ask_file(project.content, "questions", "Which orbit first?", " Some\nbackground. ")
    assert (spaced, how_spaced) == (first, "same")  # the same words, however they are spaced


def test_new_facts_go_to_a_question_of_their_own_and_are_found_again(project):
    first, _ = actions.ask_file(project.content, "questions", "May we drop this table?", "Nothing reads it.")
    newer, how = actions.ask_file(project.content, "questions", "May we drop this table?", "The billing job reads it.")
    assert how == "new facts" and newer != first and newer.parent == first.parent
    assert "billing job" in newer.read_text() and "billing job" not in first.read_text()
    again, how_again = actions.ask_file(project.content, "questions", "May we drop this table?",
                                        "The billing job reads it.")
    assert (again, how_again) == (newer, "new facts")
    decided, how_decided = actions.ask_file(project.content, "questions", "May we drop this table?",
                                            "Nothing reads it.", "yes-no")
    assert how_decided == "new facts" and decided not in (first, newer)
    assert "decision: yes-no" in decided.read_text()


def test_an_unknown_model_is_refused_before_anything_is_written_by_ask(project):
    before = project.snapshot()
    for args in (["-m", "nosuch/model-x"], ["-m", "nosuch/model-x", "--estimate"]):
        refused = project.cli("ask", "Which orbit first?", *args)
        assert refused.exit_code == 2 and "nosuch/model-x" in refused.output and "no provider knows" in refused.output
        assert project.snapshot() == before
