"""Figures about a discussion as a whole: pure functions over its rounds and its protocol's figures."""

from __future__ import annotations

import re
from typing import Any

from ..domain import Discussion, Judgement, leader_of
from ..rules.agreement import label
from . import get_protocol


def approval_rate(judgements: list[Judgement]) -> float:
    """Percent of judgements of others' replies that approve; own ones and invented ones are left out."""
    others = [j for j in judgements if j.judge != j.target and not j.invented]
    return round(100 * sum(j.approves for j in others) / len(others), 1) if others else 0.0


def discussion_stats(d: Discussion) -> dict[str, Any]:
    figures = [get_protocol(d.protocol).figures.of_round(r) for r in d.rounds]
    winners = {pid: 0 for pid in d.panel.ids}
    for f in figures:
        if f.winner:
            winners[f.winner] = winners.get(f.winner, 0) + 1
    judgements = [j for f in figures for j in f.judgements]
    words = [reply.word_count for r in d.rounds for reply in r.replies.values()]
    return {
        "totalRounds": sum(1 for r in d.rounds if r.complete),
        "roundWinners": winners,
        "totalVotes": len(judgements),
        "approvalRate": approval_rate(judgements),
        "averageResponseWords": int(sum(words) / len(words) + 0.5) if words else 0,  # half up, as Dyson rounds
    }


def agreement_label(d: Discussion) -> str | None:
    """consensus, contested or mixed, from the agreement of the last staged round."""
    done = [r for r in d.rounds if r.agreement is not None and r.stage is not None]
    return label(done[-1].agreement, d.settings.consensus_at, d.settings.contested_at) if done else None


def leader(d: Discussion) -> str | None:
    return leader_of([get_protocol(d.protocol).figures.of_round(r).winner for r in d.rounds])


CITATION = re.compile(r"\[(S\d+)\]")


def citations(d: Discussion) -> dict[str, list[tuple[int, str]]]:
    """For each source label, the (round, author) of every reply that cites it as [S1]."""
    found: dict[str, list[tuple[int, str]]] = {}
    for r in d.rounds:
        for reply in r.replies.values():
            for cited in dict.fromkeys(CITATION.findall(reply.text)):
                found.setdefault(cited, []).append((r.number, reply.model_id))
    return found
