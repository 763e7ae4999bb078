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
    first, created = actions.ask_file(project.content, "questions", "Which orbit first?", "Some background.")
    again, created_again = actions.ask_file(project.content, "questions", "Which orbit first?", None)
    assert created and not created_again and first == again and "Some background." in first.read_text()
