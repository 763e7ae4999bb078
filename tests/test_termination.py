"""Stopping rules of the vote protocol, one table row per case."""

import pytest

from discuss.domain import Round, Settings, TerminationVote, Vote
from discuss.protocols.vote.termination import decide


def rnd(number, conclude=0, cont=0, winner="a", score=5.0, approvals=3):
    r = Round(number=number, seed=0)
    r.termination_votes = ([TerminationVote(f"c{i}", "CONCLUDE") for i in range(conclude)]
                           + [TerminationVote(f"n{i}", "CONTINUE") for i in range(cont)])
    r.winner_id, r.winner_score = winner, score
    # three voters on the winner, none of them the winner itself: top score 6
    r.votes = [Vote(f"v{i}", winner, "APPROVE" if i < approvals else "NEUTRAL") for i in range(3)]
    return r


S = Settings()


@pytest.mark.parametrize("rounds, reason", [
    ([rnd(1, conclude=3)], "unanimous-conclude"),
    # unanimity of votes cast: one abstained, the two who voted said conclude
    ([rnd(1, conclude=2)], "unanimous-conclude"),
    ([rnd(1, conclude=2, cont=1)], None),
    ([rnd(1, conclude=2, cont=1), rnd(2, conclude=2, cont=1)], "consecutive-conclude"),
    ([rnd(1, conclude=1, cont=2), rnd(2, conclude=2, cont=1)], None),
    # a tie is not a majority
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
    decision = decide(rounds, S)
    assert decision.reason == reason
    assert decision.terminate is (reason is not None)


def test_settings_change_the_rules():
    strict = Settings(max_rounds=2, consecutive_conclude_rounds=3, convergence_rounds=2,
                      convergence_score=1.0)
    two = [rnd(1, conclude=2, cont=1), rnd(2, conclude=2, cont=1)]
    assert decide(two, strict).reason == "max-rounds"
    assert decide([rnd(1, cont=3, score=6.0), rnd(2, cont=3, score=6.0)], strict).reason == "convergence"
    assert decide([rnd(1, cont=3, score=5.0), rnd(2, cont=3, score=5.0)], strict).reason == "max-rounds"


def test_decision_explains_itself():
    assert "2 of 2" in decide([rnd(1, conclude=2)], S).detail
