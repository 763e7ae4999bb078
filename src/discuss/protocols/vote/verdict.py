"""What a vote discussion's ballots say of its outcome, for `discuss verdict`: pure, from the recorded votes."""

from __future__ import annotations

from discuss.plugin import Discussion, Round

from .record import ballot_box


def final(d: Discussion) -> Round | None:
    """The last finished round with a winner: the answer the panel chose last."""
    return next((r for r in reversed(d.rounds) if r.complete and ballot_box(r).winner_id), None)


def confidence(d: Discussion) -> float | None:
    """The share of the other panelists' votes on the final winner that approve it."""
    r = final(d)
    if r is None:
        return None
    box = ballot_box(r)
    others = [v for v in box.votes if v.target_id == box.winner_id and v.voter_id != box.winner_id and not v.invented]
    return sum(v.vote == "APPROVE" for v in others) / len(others) if others else None


def dissent(d: Discussion) -> list[dict[str, str]]:
    """Each reason given, as recorded, for rejecting the final winner."""
    r = final(d)
    if r is None:
        return []
    box = ballot_box(r)
    return [{"panelist": v.voter_id, "text": v.reasoning} for v in box.votes
            if v.target_id == box.winner_id and v.vote == "REJECT" and v.reasoning.strip() and not v.invented]
