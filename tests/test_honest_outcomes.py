"""No outcome decided by nobody, and no template echo kept as an answer: through the fake server."""

from __future__ import annotations

import json

import pytest

from conftest import fake_panel
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from fakeserver import DEFAULT, Action

ECHOED_BALLOT = json.dumps({"votes": [{"label": label, "vote": "REJECT|NEUTRAL", "reasoning": "one or two sentences"}
                                      for label in "ABC"],
                            "termination": {"vote": "CONCLUDE|CONTINUE", "reasoning": "one or two sentences"}})


def test_a_round_nobody_validly_voted_in_has_no_winner_and_no_conclusion(project, fake):
    for model in ("alpha", "beta", "gamma"):
        fake.script(model, DEFAULT, *[Action(text=ECHOED_BALLOT)] * 3)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxRounds: 3}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--auto")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert [ballot_box(r).winner_id for r in d.rounds] == [None] and ballot_box(d.rounds[0]).results == []
    assert d.status == "closed" and d.termination_reason == "no-valid-ballots" and d.conclusion is None
    assert not (project.folder / "conclusion.md").exists()
    assert not any(r["task"] == "conclude" for r in fake.requests)  # nobody writes in the panel's name
    votes = (project.folder / "round-1" / "votes.yaml").read_text()
    assert "winnerId: null" in votes and len(ballot_box(d.rounds[0]).abstentions) == 3
    shown = project.cli("show", "swarm-power").stdout
    assert "winner" not in shown.replace("no winner", "") and "cast no valid ballot" in shown
    status = json.loads(project.cli("status", "--json").stdout)[0]
    assert status["leader"] is None and status["status"] == "closed"


def test_a_round_without_ballots_after_good_rounds_credits_nobody(project, fake):
    """Round 1 is voted; round 2's ballots all fail: round 2 has no winner, the conclusion rests on round 1."""
    for model in ("alpha", "beta", "gamma"):
        fake.script(model, DEFAULT, DEFAULT, DEFAULT, *[Action(text=ECHOED_BALLOT)] * 3)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxRounds: 2}"))
    fake.termination = "CONTINUE"
    result = project.cli("run", "swarm-power", "--panel", "fake", "--auto")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert ballot_box(d.rounds[0]).winner_id is not None and ballot_box(d.rounds[1]).winner_id is None
    assert d.termination_reason == "max-rounds" and d.conclusion is not None
    assert d.conclusion.generated_by == ballot_box(d.rounds[0]).winner_id


def test_an_echoed_answer_is_no_answer_and_odd_lengths_are_marked(project, fake):
    fake.script("alpha", Action(text="Your answer"))
    fake.script("beta", Action(text="Yes, 48 V."))
    fake.script("gamma", Action(text=" ".join(["word"] * 900)))
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxResponseWords: 800}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 0, result.output
    r = store.load(project.folder).rounds[0]
    assert "alpha" not in r.replies
    assert "repeats the prompt's example" in next(f.error for f in r.failures if f.model_id == "alpha")
    shown = project.cli("show", "swarm-power").stdout
    assert "short: Beta's answer has 3 word(s)" in shown
    assert "long: Gamma's answer has 900 words, over the 800 asked for" in shown


def test_echoed_conclusions_are_asked_again_then_close_the_discussion(project, fake):
    echo = json.dumps({"summary": "The combined answer, two or three paragraphs", "keyPoints": ["points of agreement"]})
    fake.script("alpha", DEFAULT, DEFAULT, *[Action(text=echo)] * 3)
    for model in ("beta", "gamma"):
        fake.script(model, DEFAULT, Action(text=json.dumps({
            "votes": [{"label": x, "vote": "APPROVE" if model == "beta" else "REJECT", "reasoning": "so"} for x in "ABC"],
            "termination": {"vote": "CONCLUDE", "reasoning": "done"}})))
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxRounds: 1, "
                                                       "conclusionAuthor: alpha}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--auto")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.conclusion is None and d.status == "closed" and not (project.folder / "conclusion.md").exists()
    conclude = fake.requests_for("alpha", "conclude")
    assert len(conclude) == 3 and "copies the prompt's example" in conclude[-1]["messages"][-1]["content"]
    failure = next(f for f in d.rounds[-1].failures if f.phase == "conclude")
    assert failure.usage.calls == 3  # what the refused conclusion cost is counted


@pytest.mark.parametrize("text,echo", [
    ("two or three paragraphs", True), ("The combined answer, two or three paragraphs.", True),
    ("points of agreement", True), ("one or two sentences", True), ("A OR B", True), ("...", True), ("…", True),
    ("... (who held it): why", True), ("string", True), ("your research in Markdown, at most 800 words", True),
    ("Your answer", True), ("another one or two sentences", True),  # an example with a word added
    ("Approve: it reads well.", False), ("why?", False), (":", False), ("A", False), ("APPROVE", False),
    ("Ann (the reviewer): slower is safer", False), ("Why it matters: two or three paragraphs are too few", False),
])
def test_what_counts_as_an_echo_of_the_prompts_examples(text, echo):
    from discuss.text.placeholders import is_echo

    assert is_echo(text) is echo


def test_a_new_prompt_is_covered_the_day_it_is_written(tmp_path):
    from discuss.text.placeholders import is_echo

    (tmp_path / "mine.j2").write_text('Reply with JSON: {"verdict": "your verdict in a few words"}\n')
    assert is_echo("Your verdict in a few words.", tmp_path) and not is_echo("Your verdict in a few words.")


@pytest.mark.parametrize("protocol,task", [("debate", "critique"), ("critique", "stance"), ("decompose", "split")])
def test_a_stage_nobody_can_answer_usably_closes_the_discussion(project, fake, protocol, task):
    """The class of "8 of 9 protocols exit 1, and a rerun repeats it": a model that cannot give the shape."""
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    original = fake.handle

    def unusable(body, auth=""):
        from fakeserver import task_of

        if task_of(body.get("messages", [])) == task:
            fake.script(body.get("model", ""), Action(text='{"something": "else entirely"}'))
        return original(body, auth)

    fake.handle = unusable
    result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", protocol, "--auto")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.status == "closed" and d.termination_reason == "no-valid-replies" and d.conclusion is None
    assert all(f.invalid for r in d.rounds for f in r.failures if f.phase != "conclude")
    again = project.cli("run", "swarm-power", "--panel", "fake", "--auto")
    assert again.exit_code == 0 and "nothing to do" in again.stdout
