"""The vote protocol's rules, each driven down its branch by a scripted panel.

Every row scripts the panel's replies, ballots and failures, runs the CLI and
asserts what the files say: the rounds, the stopping rule and its reason,
ties and how they were broken, abstentions, who wrote the conclusion.
"""

from __future__ import annotations

import pytest

from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from scripted import ballot, scripted_panel, write_scripts

THREE, FOUR = ("ann", "bob", "cy"), ("ann", "bob", "cy", "dee")


def votes(termination: str, ids=THREE, **given) -> dict:
    return ballot(termination, **{i: given.get(i, "NEUTRAL") for i in ids})


def every(ids, *entries) -> dict:
    return {i: list(entries) for i in ids}


SCENARIOS = {
    "unanimous in round 2": dict(
        scripts=every(THREE, {"task": "vote", "round": 1, "json": votes("CONTINUE")},
                      {"task": "vote", "json": votes("CONCLUDE")}),
        reason="unanimous-conclude", rounds=2),
    "two CONCLUDE votes two rounds running, of four": dict(
        ids=FOUR,
        scripts={**every(("ann", "bob"), {"task": "vote", "json": votes("CONCLUDE", FOUR)}),
                 **every(("cy", "dee"), {"task": "vote", "json": votes("CONTINUE", FOUR)})},
        reason="consecutive-conclude", rounds=2),
    "one CONCLUDE and three down miss the quorum": dict(
        ids=FOUR, settings="maxRounds: 2, ",
        scripts={"ann": [{"task": "vote", "json": votes("CONCLUDE", FOUR)}],
                 **every(("bob", "cy", "dee"), {"task": "vote", "fail": "error"})},
        reason="max-rounds", rounds=2, abstaining={"bob", "cy", "dee"}),
    "everyone goes on to the round cap": dict(
        settings="maxRounds: 3, ", scripts=every(THREE, {"task": "vote", "json": votes("CONTINUE")}),
        reason="max-rounds", rounds=3),
    "a two-way tie": dict(
        settings="maxRounds: 1, ",
        scripts=every(THREE, {"task": "vote", "json": votes("CONTINUE", ann="APPROVE", bob="APPROVE", cy="REJECT")}),
        reason="max-rounds", rounds=1, tie={"ann", "bob"}),
    "a three-way tie": dict(
        settings="maxRounds: 1, ", scripts=every(THREE, {"task": "vote", "json": votes("CONTINUE")}),
        reason="max-rounds", rounds=1, tie={"ann", "bob", "cy"}),
    "an invalid ballot, then a valid one": dict(
        settings="maxRounds: 1, ",
        scripts={"ann": [{"task": "vote", "ask": 1, "reply": "APPROVE all of them"},
                         {"task": "vote", "json": votes("CONTINUE")}],
                 **every(("bob", "cy"), {"task": "vote", "json": votes("CONTINUE")})},
        reason="max-rounds", rounds=1, asked_twice="ann"),
    "a ballot invalid at every ask abstains": dict(
        settings="maxRounds: 1, ",
        scripts={"ann": [{"task": "vote", "reply": "no JSON from me"}],
                 **every(("bob", "cy"), {"task": "vote", "json": votes("CONTINUE")})},
        reason="max-rounds", rounds=1, abstaining={"ann"}),
    "a panelist down for the whole discussion": dict(
        settings="maxRounds: 2, ",
        scripts={"cy": [{"fail": "timeout"}],
                 **every(("ann", "bob"), {"task": "vote", "json": ballot("CONTINUE", ann="APPROVE", bob="NEUTRAL")})},
        reason="max-rounds", rounds=2, absent="cy", winner="ann"),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_vote_scenario(project, name):
    case = SCENARIOS[name]
    ids = case.get("ids", THREE)
    project.write_panels(scripted_panel(ids, settings=f"{{{case.get('settings', '')}retryBaseDelay: 0.0}}"))
    write_scripts(project.root, **{i: case["scripts"].get(i, []) for i in ids})
    result = project.cli("run", "swarm-power", "--auto")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.termination_reason == case["reason"] and len(d.rounds) == case["rounds"]
    assert ballot_box(d.rounds[-1]).termination_reason == case["reason"] and d.status == "concluded"
    last = d.rounds[-1]
    if "tie" in case:
        best = max(r.weighted_score for r in ballot_box(last).results)
        assert {r.target_id for r in ballot_box(last).results if r.weighted_score == best} == case["tie"]
        assert ballot_box(last).winner_id in case["tie"] and ballot_box(last).tie_break is not None
    if "abstaining" in case:
        for rnd in d.rounds:
            assert {a.voter_id for a in ballot_box(rnd).abstentions} == case["abstaining"]
            assert {t.model_id for t in ballot_box(rnd).termination_votes}.isdisjoint(case["abstaining"])
    if "asked_twice" in case:
        assert {b.voter_id: b.attempts for b in ballot_box(last).ballots}[case["asked_twice"]] == 2
        assert not ballot_box(last).abstentions
    if "absent" in case:
        assert all(case["absent"] not in r.replies for r in d.rounds)
        assert all(f.model_id == case["absent"] and f.timed_out for r in d.rounds for f in r.failures)
    if "winner" in case:
        assert ballot_box(last).winner_id == case["winner"] and ballot_box(last).tie_break is None
    assert d.conclusion.generated_by == ballot_box(last).winner_id  # the default author: the last round's winner


def test_a_forced_conclusion_after_one_round(project):
    project.write_panels(scripted_panel(THREE))
    write_scripts(project.root, **every(THREE, {"task": "vote", "json": votes("CONTINUE")}))
    assert project.cli("run", "swarm-power", "--rounds", "1").exit_code == 0
    assert store.load(project.folder).status == "active"
    assert project.cli("run", "swarm-power", "--conclude").exit_code == 0
    d = store.load(project.folder)
    assert d.termination_reason == "forced" and len(d.rounds) == 1 and d.conclusion is not None


def test_a_two_way_tie_is_shown_as_a_tie(project):
    project.write_panels(scripted_panel(THREE, settings="{maxRounds: 1, retryBaseDelay: 0.0}"))
    write_scripts(project.root, **every(THREE, {"task": "vote", "json": votes("CONTINUE", ann="APPROVE", bob="APPROVE",
                                                                                 cy="REJECT")}))
    assert project.cli("run", "swarm-power", "--auto").exit_code == 0
    shown = project.cli("show", "swarm-power").output
    rule = ballot_box(store.load(project.folder).rounds[0]).tie_break
    assert rule and rule in shown
