"""Discussions as plain JSON values: `discuss show --json`, `status --json` and the site's discussions.json.

The shape is documented in docs/commands.md and versioned by `schema`; fields are
added, never renamed or removed, within a version. Pure: values in, values out.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ..domain import Discussion, Round
from ..protocols import get_protocol
from ..protocols.base import Protocol
from ..rules import signatures
from ..rules.agreement import agreement
from .listing import usage_json

SCHEMA = 1
# Lists every round of schema 1 has, empty unless the protocol fills them (`Protocol.export_round`).
ROUND_LISTS = ("votes", "terminationVotes", "abstentions")


def round_json(r: Round, protocol: Protocol) -> dict[str, Any]:
    fig = protocol.figures.of_round(r)
    return {
        "number": r.number, "stage": r.stage, "complete": r.complete, "winner": fig.winner,
        "tieBreak": fig.tie_break, "agreement": r.agreement,
        # How alike the answers are, whatever the protocol (in a vote round `agreement` is the voters').
        "answerSimilarity": agreement([reply.text for reply in r.replies.values()]),
        "answers": [{"panelist": pid, "role": reply.role, "words": reply.word_count, "text": reply.text}
                    for pid, reply in r.replies.items()],
        **{key: [] for key in ROUND_LISTS},
        "scores": [{"panelist": s.target, "weighted": s.weighted, "approvals": s.approvals,
                    "rejections": s.rejections} for s in fig.scores],
        **protocol.presentation.export_round(r),
        "failures": [{"panelist": f.model_id, "phase": f.phase, "error": f.error, "timedOut": f.timed_out}
                     for f in r.failures],
        "notes": r.notes,
        "usage": usage_json(r.usage),
    }


def discussion_json(d: Discussion) -> dict[str, Any]:
    protocol = get_protocol(d.protocol)
    c = d.conclusion
    bias = protocol.figures.bias([d])
    return {
        "schema": SCHEMA,
        "question": {"id": d.question_id, "slug": d.question_slug, "title": d.question_title},
        "protocol": d.protocol, "status": d.status, "dyson": d.legacy, "simulated": d.panel.simulated,
        "panel": [{"id": m.id, "name": m.name, "model": m.model} for m in d.panel.members],
        "startedAt": d.started_at, "concludedAt": d.concluded_at, "terminationReason": d.termination_reason,
        "result": protocol.result_of(d),
        **({"finalAnswer": d.answer.get("value"), "answerRead": {k: v for k, v in d.answer.items() if k != "value"}}
           if d.answer is not None else {}),
        "sources": d.sources,
        "usage": usage_json(d.usage),
        # Everything paid for the discussion, in parts: its rounds and conclusion, and the bias audit's re-asks.
        "spent": {"discussion": usage_json(d.usage), "audits": usage_json(d.side_usage),
                  "total": usage_json(d.spent)},
        "rounds": [round_json(r, protocol) for r in d.rounds],
        "conclusion": None if c is None else {
            "by": c.generated_by, "generated": c.generated, "summary": c.summary, "keyPoints": c.key_points,
            "unresolvedQuestions": c.unresolved_questions, "recommendedActions": c.recommended_actions,
            "minorityPositions": [asdict(m) for m in c.minority_positions]},
        "audit": protocol.presentation.audit(d),
        **({"orphanRounds": d.foreign.orphan_rounds} if d.foreign is not None and d.foreign.orphan_rounds else {}),
        "namedPanelists": [{"round": n.round_number, "author": n.author, "named": list(n.named)}
                           for n in signatures.named_in(d)],
        "bias": None if bias is None else bias.as_json(),
    }


