"""Scores, winners and tie-breaks of a vote round."""

import pytest

from discuss.protocols.vote.record import Vote
from discuss.protocols.vote.scoring import max_possible, pick_winner, tally, vote_agreement


def votes(*triples):
    return [Vote(voter, target, vote) for voter, target, vote in triples]


def test_tally_scores_with_self_votes_at_half_weight():
    cast = votes(("a", "a", "APPROVE"), ("b", "a", "NEUTRAL"), ("c", "a", "REJECT"),
                 ("a", "b", "APPROVE"), ("b", "b", "NEUTRAL"), ("c", "b", "APPROVE"))
    a, b = tally(cast, ["a", "b"], 0.5)
    assert (a.raw_score, a.weighted_score, a.approve_count, a.reject_count) == (3, 2.0, 1, 1)
    assert (b.raw_score, b.weighted_score, b.approve_count, b.reject_count) == (5, 4.5, 2, 0)
    assert a.approve_from_others == 0 and b.approve_from_others == 2


def test_self_weight_is_configurable():
    (only,) = tally(votes(("a", "a", "APPROVE"), ("b", "a", "APPROVE")), ["a"], 0.0)
    assert only.weighted_score == 2.0


@pytest.mark.parametrize("cast, expected, rule", [
    # clear winner: no tie-break
    ([("a", "b", "APPROVE"), ("b", "a", "NEUTRAL")], "b", None),
    # same weighted score; b has more approvals from others
    ([("a", "a", "APPROVE"), ("b", "a", "NEUTRAL"), ("c", "a", "NEUTRAL"),
      ("a", "b", "APPROVE"), ("b", "b", "REJECT"), ("c", "b", "NEUTRAL")], "b", "approvals-from-others"),
    # same score and approvals from others; a has fewer rejects
    ([("b", "a", "APPROVE"), ("c", "a", "NEUTRAL"), ("d", "a", "NEUTRAL"),
      ("a", "b", "APPROVE"), ("b", "b", "APPROVE"), ("c", "b", "NEUTRAL"), ("d", "b", "REJECT")],
     "a", "fewest-rejects"),
])
def test_tie_break_chain(cast, expected, rule):
    results = tally(votes(*cast), ["a", "b"], 0.5)
    assert pick_winner(results, seed=1) == (expected, rule)


def test_seeded_draw_ignores_list_order_and_varies_with_seed():
    cast = votes(("a", "b", "APPROVE"), ("b", "a", "APPROVE"))
    winners = set()
    for seed in range(40):
        forward = pick_winner(tally(cast, ["a", "b"], 0.5), seed)
        backward = pick_winner(tally(cast, ["b", "a"], 0.5), seed)
        assert forward == backward  # the panel's order never decides
        assert forward[1] == "seeded-draw"
        winners.add(forward[0])
    assert winners == {"a", "b"}  # either can win a draw


def test_no_replies_has_no_winner():
    with pytest.raises(ValueError):
        pick_winner([], 0)


def test_max_possible_counts_only_votes_cast():
    cast = votes(("a", "a", "NEUTRAL"), ("b", "a", "REJECT"))
    assert max_possible(cast, "a", 0.5) == 3.0


def test_vote_agreement():
    assert vote_agreement(votes(("a", "x", "APPROVE"), ("b", "x", "APPROVE"))) == 1.0
    assert vote_agreement(votes(("a", "x", "APPROVE"), ("b", "x", "REJECT"))) == 0.0
    three = votes(("a", "x", "APPROVE"), ("b", "x", "APPROVE"), ("c", "x", "REJECT"))
    assert vote_agreement(three) == pytest.approx(1 / 3, abs=1e-3)
    assert vote_agreement([]) is None
