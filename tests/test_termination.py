"""Stopping rules of the vote protocol, one table row per case."""

import pytest

from discuss.domain import Round, Settings
from discuss.protocols.vote.record import TerminationVote, Vote, ballot_box
from discuss.protocols.vote.termination import decide


def rnd(number, conclude=0, cont=0, winner="a", score=5.0, approvals=3):
    r = Round(number=number, seed=0)
    ballot_box(r).termination_votes = ([TerminationVote(f"c{i}", "CONCLUDE") for i in range(conclude)]
                           + [TerminationVote(f"n{i}", "CONTINUE") for i in range(cont)])
    ballot_box(r).winner_id, ballot_box(r).winner_score = winner, score
    # three voters on the winner, none of them the winner itself: top score 6
    ballot_box(r).votes = [Vote(f"v{i}", winner, "APPROVE" if i < approvals else "NEUTRAL") for i in range(3)]
    return r


S = Settings()


@pytest.mark.parametrize("rounds, reason", [
    ([rnd(1, conclude=3)], "unanimous-conclude"),
    # unanimity of votes cast with a quorum: one abstained, the two who voted (of 3) said conclude
    ([rnd(1, conclude=2)], "unanimous-conclude"),
    # no quorum: one CONCLUDE and two abstentions cannot end a discussion
    ([rnd(1, conclude=1)], None),
    ([rnd(1, conclude=2, cont=1)], None),
    ([rnd(1, conclude=2, cont=1), rnd(2, conclude=2, cont=1)], "consecutive-conclude"),
    ([rnd(1, conclude=1, cont=2), rnd(2, conclude=2, cont=1)], None),
    # two CONCLUDE votes ("2+ models") twice running is enough, even when not a majority of the cast
    ([rnd(1, conclude=2, cont=2), rnd(2, conclude=2, cont=2)], "consecutive-conclude"),
    # but not without a quorum in each of those rounds (two of a panel of four is none)
    ([rnd(1, conclude=2, cont=2), rnd(2, conclude=2)], None),
    ([rnd(1, conclude=1, cont=1), rnd(2, conclude=1, cont=1)], None),
    ([rnd(1, cont=3), rnd(2, cont=3), rnd(3, cont=3)], "convergence"),
    # same winner but a low score in one round
    ([rnd(1, cont=3), rnd(2, cont=3, score=3.0), rnd(3, cont=3)], None),
    ([rnd(1, cont=3, winner="a"), rnd(2, cont=3, winner="b"), rnd(3, cont=3, winner="a")], None),
    ([rnd(n, cont=3, winner=w) for n, w in zip(range(1, 6), "ababa")], "max-rounds"),
    # nobody voted: no rule but max rounds can fire
    ([rnd(1)], None),
])
def test_rules(rounds, reason):
    size = max(3, max(len(ballot_box(r).termination_votes) for r in rounds))
    decision = decide(rounds, S, size)
    assert decision.reason == reason
    assert decision.terminate is (reason is not None)


def test_settings_change_the_rules():
    strict = Settings(max_rounds=2, own={"consecutiveConcludeRounds": 3, "convergenceRounds": 2,
                                         "convergenceScore": 1.0})
    two = [rnd(1, conclude=2, cont=1), rnd(2, conclude=2, cont=1)]
    assert decide(two, strict, 3).reason == "max-rounds"
    assert decide([rnd(1, cont=3, score=6.0), rnd(2, cont=3, score=6.0)], strict, 3).reason == "convergence"
    assert decide([rnd(1, cont=3, score=5.0), rnd(2, cont=3, score=5.0)], strict, 3).reason == "max-rounds"


@pytest.mark.parametrize("cast, panel, counts", [(2, 4, False), (3, 4, True), (2, 3, True), (1, 2, False)])
def test_the_quorum_is_more_than_half_of_the_panel(cast, panel, counts):
    decision = decide([rnd(1, conclude=cast)], S, panel)
    assert (decision.reason == "unanimous-conclude") is counts


def test_quorum_and_votes_needed_are_settings():
    loose = Settings(own={"quorum": 0.0, "consecutiveConcludeVotes": 3})
    assert decide([rnd(1, conclude=1)], loose, 5).reason == "unanimous-conclude"
    assert decide([rnd(1, conclude=2, cont=1), rnd(2, conclude=2, cont=1)], loose, 3).reason is None


def test_decision_explains_itself():
    detail = decide([rnd(1, conclude=2)], S, 3).detail
    assert "2 of 2 votes cast, 3 on the panel" in detail and "more than 0.5 of 3" in detail
