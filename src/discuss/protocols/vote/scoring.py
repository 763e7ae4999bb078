"""Scores, winners and agreement of a vote round: pure functions.

A reply earns APPROVE 2, NEUTRAL 1, REJECT 0 from each voter; a voter's
vote on its own reply counts at `self_weight`. Ties are broken by a chain
that never looks at a panelist's place in a list, and the rule that decided
is returned so it can be recorded.
"""

from __future__ import annotations

import random
from itertools import combinations

from .record import VOTE_SCORES, Vote, VoteResult


def vote_weight(vote: Vote, self_weight: float) -> float:
    base = VOTE_SCORES[vote.vote]
    return base * self_weight if vote.voter_id == vote.target_id else float(base)


def tally(votes: list[Vote], targets: list[str], self_weight: float) -> list[VoteResult]:
    """One result per target, in the order of `targets`."""
    results = []
    for target in targets:
        mine = [v for v in votes if v.target_id == target]
        results.append(
            VoteResult(
                target_id=target,
                raw_score=sum(VOTE_SCORES[v.vote] for v in mine),
                weighted_score=sum(vote_weight(v, self_weight) for v in mine),
                approve_count=sum(v.vote == "APPROVE" for v in mine),
                reject_count=sum(v.vote == "REJECT" for v in mine),
                approve_from_others=sum(
                    v.vote == "APPROVE" and v.voter_id != target for v in mine
                ),
            )
        )
    return results


def pick_winner(results: list[VoteResult], seed: int) -> tuple[str, str | None]:
    """The winning target and the tie-break rule that decided (None: no tie)."""
    if not results:
        raise ValueError("no replies to choose a winner from")
    best = max(r.weighted_score for r in results)
    tied = [r for r in results if r.weighted_score == best]
    if len(tied) == 1:
        return tied[0].target_id, None
    keys = {
        "approvals-from-others": lambda r: r.approve_from_others,
        "fewest-rejects": lambda r: -r.reject_count,
    }
    for rule, key in keys.items():
        top = max(key(r) for r in tied)
        tied = [r for r in tied if key(r) == top]
        if len(tied) == 1:
            return tied[0].target_id, rule
    # Sorting by id first makes the draw independent of panel order.
    candidates = sorted(r.target_id for r in tied)
    return random.Random(seed).choice(candidates), "seeded-draw"


TIE_RULES_IN_WORDS = {
    "approvals-from-others": "more approvals from the other panelists",
    "fewest-rejects": "fewer rejections",
    "seeded-draw": "a draw seeded by the round, since approvals and rejections were level too",
    "list-order": "its place in the recording tool's model list",
}


def describe_tie(rule: str) -> str:
    return TIE_RULES_IN_WORDS.get(rule, rule)


def max_possible(votes: list[Vote], target: str, self_weight: float) -> float:
    """The weighted score `target` would have had if every vote cast on it approved."""
    voters = {v.voter_id for v in votes if v.target_id == target}
    return sum(2 * (self_weight if voter == target else 1) for voter in voters)


def vote_agreement(votes: list[Vote]) -> float | None:
    """Share of voter pairs that gave a reply the same vote, over all replies."""
    by_target: dict[str, list[str]] = {}
    for v in votes:
        by_target.setdefault(v.target_id, []).append(v.vote)
    same = total = 0
    for cast in by_target.values():
        for a, b in combinations(cast, 2):
            total += 1
            same += a == b
    return round(same / total, 4) if total else None
