"""A vote round as rows of the tables a study reads: the columns of Project Dyson's paper data.

Counts are of votes as recorded, ballots a recording tool invented
included, so Dyson's own figures come out again; the `invented` and
`abstained` columns say how many of them were not cast.
"""

from __future__ import annotations

from typing import Any

from discuss.plugin import Discussion, Round

from .record import VOTE_SCORES, ballot_box, whole


def round_row(r: Round) -> dict[str, Any]:
    box = ballot_box(r)
    cast = [v.vote for v in box.votes]
    closing = [t.vote for t in box.termination_votes]
    return {
        "winner_id": box.winner_id or "", "winner_score": whole(box.winner_score),
        "total_votes": len(cast), "approve_count": cast.count("APPROVE"), "neutral_count": cast.count("NEUTRAL"),
        "reject_count": cast.count("REJECT"), "conclude_votes": closing.count("CONCLUDE"),
        # The paper's should_terminate is the round's majority; whether our stopping rule fired has its own name.
        "continue_votes": closing.count("CONTINUE"),
        "should_terminate": closing.count("CONCLUDE") > closing.count("CONTINUE"),
        "stopping_rule_met": box.should_terminate,
        "invented": sum(v.invented for v in box.votes), "abstained": len(box.abstentions),
        "tie_break": box.tie_break or "", "method": box.method or "",
    }


def vote_rows(r: Round) -> list[dict[str, Any]]:
    return [{"voter_id": v.voter_id, "target_id": v.target_id, "vote": v.vote,
             "numeric_value": VOTE_SCORES.get(v.vote, ""), "is_self_vote": v.voter_id == v.target_id,
             "reasoning": v.reasoning, "invented": v.invented} for v in ballot_box(r).votes]


def discussion_row(d: Discussion) -> dict[str, Any]:
    """The discussion's votes counted; `approve_rate` the paper's fraction of recorded votes, to four places, and
    `approve_pct` the same as a percentage to one decimal."""
    cast = [v.vote for r in d.rounds for v in ballot_box(r).votes]
    approve = cast.count("APPROVE")
    return {"total_votes": len(cast), "approve_count": approve, "neutral_count": cast.count("NEUTRAL"),
            "reject_count": cast.count("REJECT"), "approve_rate": round(approve / len(cast), 4) if cast else 0.0,
            "approve_pct": round(100 * approve / len(cast), 1) if cast else 0.0}
