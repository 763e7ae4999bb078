"""No outcome decided by nobody, and no template echo kept as an answer: through the fake server."""

from __future__ import annotations

import json

from conftest import fake_panel
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
    assert [r.winner_id for r in d.rounds] == [None] and d.rounds[0].results == []
    assert d.status == "closed" and d.termination_reason == "no-valid-ballots" and d.conclusion is None
    assert not (project.folder / "conclusion.md").exists()
    assert not any(r["task"] == "conclude" for r in fake.requests)  # nobody writes in the panel's name
    votes = (project.folder / "round-1" / "votes.yaml").read_text()
    assert "winnerId: null" in votes and len(d.rounds[0].abstentions) == 3
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
    assert d.rounds[0].winner_id is not None and d.rounds[1].winner_id is None
    assert d.termination_reason == "max-rounds" and d.conclusion is not None
    assert d.conclusion.generated_by == d.rounds[0].winner_id
