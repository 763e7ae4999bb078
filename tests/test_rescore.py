"""Re-scoring recorded ballots under other self-vote weights: which winners and stops would change."""

from __future__ import annotations

import json

from discuss.domain import Discussion, Panel, Panelist, Reply, Round, Settings
from discuss.protocols.vote.record import TerminationVote, Vote, ballot_box
from discuss.protocols.vote.rescore import rescore
from discuss.protocols.vote.scoring import pick_winner, tally
from discuss.store import discussions as store

PANEL = Panel("p", tuple(Panelist(i, f"openai/{i}", i.upper()) for i in "abc"))
# a approves itself and draws two NEUTRALs (2 + 2w); b rejects itself and has one APPROVE, one NEUTRAL (3).
VOTES = [("a", "a", "APPROVE"), ("b", "a", "NEUTRAL"), ("c", "a", "NEUTRAL"),
         ("a", "b", "APPROVE"), ("b", "b", "REJECT"), ("c", "b", "NEUTRAL"),
         ("a", "c", "REJECT"), ("b", "c", "REJECT"), ("c", "c", "NEUTRAL")]


def recorded(weight: float = 0.5) -> Discussion:
    r = Round(number=1, seed=7, completed_at="2026-01-01T00:00:00Z")
    r.replies = {p: Reply(p, p.upper(), 1, f"answer {p}", "2026-01-01T00:00:00Z") for p in "abc"}
    box = ballot_box(r)
    box.votes = [Vote(*v) for v in VOTES]
    box.termination_votes = [TerminationVote(p, "CONTINUE") for p in "abc"]
    box.results = tally(box.votes, list("abc"), weight)
    box.winner_id, box.tie_break = pick_winner(box.results, r.seed)
    return Discussion("q", "q", "Q?", PANEL, Settings(max_rounds=1, own={"selfVoteWeight": weight}), protocol="vote",
                      rounds=[r])


def test_the_weight_that_gives_a_self_vote_its_full_value_changes_the_winner():
    d = recorded(0.5)
    assert ballot_box(d.rounds[0]).winner_id == "b"  # a 3, b 3: a tie that approvals from others give to b
    found = {f["selfVoteWeight"]: f for f in rescore(d, [0.0, 0.5, 1.0])}
    assert found[0.0]["winners"] == ["b"] and found[0.0]["changed"] == []
    assert found[0.5]["winners"] == ["b"]  # the record itself comes out again
    assert found[1.0]["winners"] == ["a"] and found[1.0]["changed"] == [1]  # a: 4 against b's 3
    assert found[1.0]["stop"] == {"round": 1, "reason": "max-rounds"}
    assert ballot_box(d.rounds[0]).winner_id == "b"  # the discussion itself is left as it was


def test_show_rescore_from_the_command_line(project):
    d = recorded(0.5)
    d.question_slug, d.question_id = "swarm-power", "rq-9-1"
    store.save(d, project.folder)
    shown = project.cli("show", "swarm-power", "--rescore", "selfVoteWeight=0,1")
    assert shown.exit_code == 0, shown.output
    assert "selfVoteWeight 1: winners 1: A (changed)" in shown.stdout
    data = json.loads(project.cli("show", "swarm-power", "--rescore", "0,1", "--json").stdout)
    assert [f["winners"] for f in data] == [["b"], ["a"]]
    for bad in ("selfVoteWeight=2", "selfVoteWeight=x", "quorum=0.5"):
        refused = project.cli("show", "swarm-power", "--rescore", bad)
        assert refused.exit_code == 2, (bad, refused.output)


def test_a_protocol_without_ballots_says_it_cannot_rescore(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--protocol", "council").exit_code == 0
    refused = project.cli("show", "swarm-power", "--rescore", "0,1")
    assert refused.exit_code == 2 and "council protocol cannot re-score" in refused.stderr


def test_the_list_order_tie_rule_gives_the_tie_to_the_first_of_the_panel():
    d = recorded(0.5)  # a 3, b 3: approvals from others give it to b; the list's order to a
    found = {f["tieRule"]: f for f in rescore(d, [], tie_rules=["fair", "list-order"])}
    assert found["fair"]["winners"] == ["b"] and found["fair"]["changed"] == []
    assert found["list-order"]["winners"] == ["a"] and found["list-order"]["changed"] == [1]
    assert {f["selfVoteWeight"] for f in found.values()} == {0.5}  # at the recorded weight


def test_rescore_over_the_archive(project):
    d = recorded(0.5)
    d.question_slug, d.question_id = "swarm-power", "rq-9-1"
    store.save(d, project.folder)
    other = project.question.with_name("other.md")
    other.write_text(project.question.read_text().replace("slug: swarm-power", "slug: other").replace("rq-9-1", "rq-9-2"))
    assert project.cli("run", "other", "--panel", "offline", "--protocol", "council").exit_code == 0
    shown = project.cli("rescore", "tieRule=fair,list-order")
    assert shown.exit_code == 0, shown.output
    assert "tieRule fair: 0 of 1 round winner(s) change, in 0 of 1 discussion(s)" in shown.stdout  # council: none
    assert "tieRule list-order: 1 of 1 round winner(s) change, in 1 of 1 discussion(s)" in shown.stdout
    assert "questions/swarm-power: round(s) 1" in shown.stdout
    data = json.loads(project.cli("rescore", "selfVoteWeight=0,1", "--json").stdout)
    assert [v["winners"] for v in data[0]["variants"]] == [["b"], ["a"]] and data[0]["path"] == "questions/swarm-power"
    for bad in ("tieRule=coin", "selfVoteWeight=2", "quorum=1"):
        refused = project.cli("rescore", bad)
        assert refused.exit_code == 2, (bad, refused.output)
