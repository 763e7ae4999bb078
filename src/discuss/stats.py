"""Figures about a discussion as a whole: pure functions over its rounds."""

from __future__ import annotations

import re

from .domain import Discussion
from .rules.agreement import label


def approval_rate(votes) -> float:
    """Percent of votes on others' replies that approve; own votes are left out."""
    others = [v for v in votes if v.voter_id != v.target_id and not v.invented]
    return round(100 * sum(v.vote == "APPROVE" for v in others) / len(others), 1) if others else 0.0


def discussion_stats(d: Discussion) -> dict:
    winners = {pid: 0 for pid in d.panel.ids}
    for r in d.rounds:
        if r.winner_id:
            winners[r.winner_id] = winners.get(r.winner_id, 0) + 1
    votes = [v for r in d.rounds for v in r.votes]
    words = [reply.word_count for r in d.rounds for reply in r.replies.values()]
    return {
        "totalRounds": sum(1 for r in d.rounds if r.complete),
        "roundWinners": winners,
        "totalVotes": len(votes),
        "approvalRate": approval_rate(votes),
        "averageResponseWords": int(sum(words) / len(words) + 0.5) if words else 0,  # half up, as Dyson rounds
    }


def agreement_label(d: Discussion) -> str | None:
    """consensus, contested or mixed, from the agreement of the last staged round."""
    done = [r for r in d.rounds if r.agreement is not None and r.stage is not None]
    return label(done[-1].agreement, d.settings.consensus_at, d.settings.contested_at) if done else None


def leader(d: Discussion) -> str | None:
    return leader_of([r.winner_id for r in d.rounds])


def leader_of(winners: list[str | None]) -> str | None:
    """The panelist with most round wins, from the rounds' winners in order; the latest among equals."""
    wins: dict[str, int] = {}
    for w in winners:
        if w:
            wins[w] = wins.get(w, 0) + 1
    if not wins:
        return None
    top = max(wins.values())
    return next(w for w in reversed(winners) if w and wins[w] == top)


CITATION = re.compile(r"\[(S\d+)\]")


def citations(d: Discussion) -> dict[str, list[tuple[int, str]]]:
    """For each source label, the (round, author) of every reply that cites it as [S1]."""
    found: dict[str, list[tuple[int, str]]] = {}
    for r in d.rounds:
        for reply in r.replies.values():
            for cited in dict.fromkeys(CITATION.findall(reply.text)):
                found.setdefault(cited, []).append((r.number, reply.model_id))
    return found
