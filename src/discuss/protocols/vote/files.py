"""The vote protocol's own files: `round-N/votes.yaml`, and its fields in discussion.yaml's rounds.

Plain data in, plain data out: the store reads and writes the files; this
module says what is in them. Its names are Project Dyson's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from discuss.plugin import Round, paid_usage, usage_dict, usage_from

from .record import Abstention, Ballot, TerminationVote, Vote, VoteResult, ballot_box

VOTES_FILE = "votes.yaml"


def votes_dict(r: Round, panel_order: list[str]) -> dict[str, Any] | None:
    box = ballot_box(r)
    if not (box.ballots or box.abstentions or box.results):
        return None
    rank = {pid: i for i, pid in enumerate(panel_order)}

    def pos(pid: str) -> tuple[int, str]:
        return rank.get(pid, len(rank)), pid

    return {
        "votes": [
            {"voterId": v.voter_id, "targetId": v.target_id, "vote": v.vote, "reasoning": v.reasoning}
            for v in sorted(box.votes, key=lambda v: (pos(v.voter_id), pos(v.target_id)))
        ],
        "terminationVotes": [
            {"modelId": t.model_id, "vote": t.vote, "reasoning": t.reasoning}
            for t in sorted(box.termination_votes, key=lambda t: pos(t.model_id))
        ],
        "voteResults": [
            {"targetId": x.target_id, "rawScore": x.raw_score, "weightedScore": x.weighted_score,
             "approveCount": x.approve_count, "rejectCount": x.reject_count}
            for x in box.results
        ],
        "winnerId": box.winner_id,
        "winnerScore": box.winner_score,
        "tieBreak": box.tie_break,
        "abstentions": [
            {"voterId": a.voter_id, "reason": a.reason, **paid_usage(a.usage)}
            for a in sorted(box.abstentions, key=lambda a: pos(a.voter_id))
        ],
        "ballots": [
            {"voterId": b.voter_id, "labels": dict(b.labels), "attempts": b.attempts, "usage": usage_dict(b.usage)}
            for b in sorted(box.ballots, key=lambda b: pos(b.voter_id))
        ],
        **({"forecasts": [{"modelId": pid, "probability": p}
                          for pid, p in sorted(box.forecasts.items(), key=lambda x: pos(x[0]))]}
           if box.forecasts else {}),
    }


def approvals_from_others(box: Any) -> None:
    """Each result's approvals by voters other than its author (a tie-break counts them)."""
    for x in box.results:
        x.approve_from_others = sum(v.vote == "APPROVE" and v.target_id == x.target_id
                                    and v.voter_id != x.target_id for v in box.votes)


def read_votes(r: Round, data: dict[str, Any]) -> None:
    box = ballot_box(r)
    box.votes = [Vote(str(v["voterId"]), str(v["targetId"]), str(v["vote"]), str(v.get("reasoning") or ""))
                 for v in data.get("votes") or []]
    box.termination_votes = [TerminationVote(str(t["modelId"]), str(t["vote"]), str(t.get("reasoning") or ""))
                             for t in data.get("terminationVotes") or []]
    box.results = [VoteResult(str(x["targetId"]), x["rawScore"], x["weightedScore"],
                              int(x["approveCount"]), int(x["rejectCount"]))
                   for x in data.get("voteResults") or []]
    approvals_from_others(box)
    box.abstentions = [Abstention(str(a["voterId"]), str(a.get("reason") or ""), usage_from(a.get("usage")))
                       for a in data.get("abstentions") or []]
    box.ballots = [Ballot(str(b["voterId"]), {str(k): str(v) for k, v in (b.get("labels") or {}).items()},
                          int(b.get("attempts") or 1), usage_from(b.get("usage")))
                   for b in data.get("ballots") or []]
    box.forecasts = {str(f["modelId"]): float(f["probability"]) for f in data.get("forecasts") or []
                     if isinstance(f, dict) and isinstance(f.get("probability"), int | float)
                     and not isinstance(f.get("probability"), bool) and 0 <= f["probability"] <= 1}
    if box.ballots and all(b.labels and all(k == v for k, v in b.labels.items()) for b in box.ballots):
        box.method = "named"  # answers were shown under their authors' ids


def read_index(r: Round, raw: dict[str, Any]) -> None:
    box = ballot_box(r)
    box.winner_id, box.winner_score, box.tie_break = raw.get("winnerId"), raw.get("winnerScore"), raw.get("tieBreak")
    box.should_terminate, box.termination_reason = bool(raw.get("shouldTerminate")), raw.get("terminationReason")
    if isinstance(raw.get("method"), str):
        box.method = raw["method"]


def missing(r: Round, where: Path) -> str | None:
    """A complete round keeps its votes.yaml, and every reply its votes are on."""
    box = ballot_box(r)
    if r.complete and not (where / VOTES_FILE).is_file():
        return f"{where / VOTES_FILE}: missing, though round {r.number} is complete"
    voted_on = {x.target_id for x in box.results} | ({box.winner_id} if box.winner_id else set())
    if absent := sorted(voted_on - set(r.replies)):
        return f"{where}: the reply of {', '.join(absent)} is missing, though the round's votes are on it"
    return None
