"""Discussions as plain JSON values: `discuss show --json`, `status --json` and the site's discussions.json.

The shape is documented in the README and versioned by `schema`; fields are
added, never renamed or removed, within a version. Pure: values in, values out.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from .bias import report as bias_report
from .domain import Discussion, Round
from .listing import usage_json
from .protocols import get_protocol

SCHEMA = 1


def round_json(r: Round) -> dict[str, Any]:
    return {
        "number": r.number, "stage": r.stage, "complete": r.complete, "winner": r.winner_id,
        "tieBreak": r.tie_break, "agreement": r.agreement,
        "answers": [{"panelist": pid, "role": reply.role, "words": reply.word_count, "text": reply.text}
                    for pid, reply in r.replies.items()],
        "votes": [{"voter": v.voter_id, "target": v.target_id, "vote": v.vote, "reasoning": v.reasoning,
                   "invented": v.invented} for v in r.votes],
        "scores": [{"panelist": x.target_id, "weighted": x.weighted_score, "approvals": x.approve_count,
                    "rejections": x.reject_count} for x in r.results],
        "terminationVotes": [{"panelist": t.model_id, "vote": t.vote, "reasoning": t.reasoning,
                              "invented": t.invented} for t in r.termination_votes],
        "abstentions": [{"panelist": a.voter_id, "reason": a.reason} for a in r.abstentions],
        "failures": [{"panelist": f.model_id, "phase": f.phase, "error": f.error, "timedOut": f.timed_out}
                     for f in r.failures],
        "notes": r.notes,
        "usage": usage_json(r.usage),
    }


def discussion_json(d: Discussion) -> dict[str, Any]:
    protocol = get_protocol(d.protocol)
    c = d.conclusion
    bias = bias_report([d]) if protocol.has_winners else None
    return {
        "schema": SCHEMA,
        "question": {"id": d.question_id, "slug": d.question_slug, "title": d.question_title},
        "protocol": d.protocol, "status": d.status, "dyson": d.legacy, "simulated": d.panel.simulated,
        "panel": [{"id": m.id, "name": m.name, "model": m.model} for m in d.panel.members],
        "startedAt": d.started_at, "concludedAt": d.concluded_at, "terminationReason": d.termination_reason,
        "result": protocol.result_of(d),
        "sources": d.sources,
        "usage": usage_json(d.usage),
        "rounds": [round_json(r) for r in d.rounds],
        "conclusion": None if c is None else {
            "by": c.generated_by, "generated": c.generated, "summary": c.summary, "keyPoints": c.key_points,
            "unresolvedQuestions": c.unresolved_questions, "recommendedActions": c.recommended_actions,
            "minorityPositions": [asdict(m) for m in c.minority_positions]},
        "audit": protocol.audit(d),
        "bias": None if bias is None else {
            "panelists": [{"panelist": p.panelist_id, "selfVoteGenerosity": p.self_generosity,
                           "tieBreakWins": dict(p.tie_break_wins), "inventedBallots": p.invented_ballots,
                           "abstentions": p.abstentions} for p in bias.panelists],
            "winningPositions": dict(sorted(bias.winning_positions.items()))},
    }


