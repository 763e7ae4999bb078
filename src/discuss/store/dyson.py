"""Reading folders written by Project Dyson's original discussion tool.

Its `discussion.yaml` embeds each response's text under `rounds[].responses`
and nests votes under `rounds[].votes[].votes`; its panel is implicit in the
model ids. We map that onto our dataclasses, read-only.
"""

from __future__ import annotations

from pathlib import Path

from ..conclusions import split_sections
from ..domain import (
    Conclusion,
    Discussion,
    Panel,
    Panelist,
    Reply,
    Round,
    Settings,
    TerminationVote,
    Vote,
    VoteResult,
)
from ..naming import is_safe_id
from ..protocols import DEFAULT
from . import documents


def is_legacy(data: dict) -> bool:
    rounds = data.get("rounds") or []
    return any(isinstance(r, dict) and "responses" in r for r in rounds)


def _names(folder: Path) -> dict[str, str]:
    names = {}
    for path in sorted(folder.glob("round-*/*.md")):
        try:
            meta, _ = documents.read(path)
        except ValueError:
            continue
        if meta.get("modelId") and meta.get("modelName"):
            names[str(meta["modelId"])] = str(meta["modelName"])
    return names


def _round(raw: dict, names: dict[str, str]) -> Round:
    number = int(raw.get("roundNumber") or 0)
    r = Round(number=number, seed=0)
    for resp in raw.get("responses") or []:
        mid = str(resp.get("modelId"))
        if not is_safe_id(mid):
            continue
        r.replies[mid] = Reply(
            model_id=mid, model_name=names.get(mid, mid), round_number=number,
            text=str(resp.get("content") or ""), generated=str(resp.get("generatedAt") or ""),
        )
    for result in raw.get("votes") or []:
        for v in result.get("votes") or []:
            r.votes.append(Vote(str(v.get("voterId")), str(v.get("targetId")),
                                str(v.get("vote")), str(v.get("reasoning") or "")))
        r.results.append(VoteResult(
            target_id=str(result.get("targetId")), raw_score=result.get("rawScore", 0),
            weighted_score=result.get("weightedScore", 0),
            approve_count=int(result.get("approveCount") or 0),
            reject_count=int(result.get("rejectCount") or 0),
        ))
    for x in r.results:
        x.approve_from_others = sum(v.vote == "APPROVE" and v.target_id == x.target_id
                                    and v.voter_id != x.target_id for v in r.votes)
    r.termination_votes = [
        TerminationVote(str(t.get("modelId")), str(t.get("vote")), str(t.get("reasoning") or ""))
        for t in raw.get("terminationVotes") or []
    ]
    r.winner_id = raw.get("winnerId")
    r.winner_score = raw.get("winnerScore")
    r.should_terminate = bool(raw.get("shouldTerminate"))
    r.termination_reason = raw.get("terminationReason")
    r.completed_at = str(raw.get("completedAt") or "") or "unknown"
    return r


def _conclusion(data: dict, folder: Path) -> Conclusion | None:
    raw = data.get("conclusion")
    path = folder / "conclusion.md"
    if not isinstance(raw, dict) and not path.is_file():
        return None
    raw = raw if isinstance(raw, dict) else {}
    body = documents.read(path)[1] if path.is_file() else str(raw.get("summary") or "")
    summary = split_sections(body).get("summary") or body.strip()
    as_list = lambda key: [str(x) for x in raw.get(key) or []]  # noqa: E731
    return Conclusion(
        summary=summary,
        key_points=as_list("keyPoints"),
        unresolved_questions=as_list("unresolvedQuestions"),
        recommended_actions=as_list("recommendedActions"),
        generated_by=str(raw.get("generatedBy") or ""),
        generated=str(raw.get("generatedAt") or ""),
        body=body,
    )


def load_legacy(data: dict, folder: Path) -> Discussion:
    names = _names(folder)
    rounds = [_round(r, names) for r in data.get("rounds") or [] if isinstance(r, dict)]
    ids: list[str] = []
    for r in rounds:
        ids += [i for i in r.replies if i not in ids]
    for mid in (data.get("stats") or {}).get("roundWinners") or {}:
        if mid not in ids and is_safe_id(str(mid)):
            ids.append(str(mid))
    config = data.get("config") or {}
    settings = Settings(max_rounds=int(config.get("maxRounds") or 5),
                        self_vote_weight=float(config.get("selfVoteWeight") or 0.5))
    return Discussion(
        question_id=str(data.get("questionId") or ""),
        question_slug=str(data.get("questionSlug") or ""),
        question_title=str(data.get("questionTitle") or ""),
        panel=Panel(name="dyson", members=tuple(Panelist(i, i, names.get(i, i)) for i in ids)),
        settings=settings,
        protocol=DEFAULT,  # Dyson's tool knows only the vote protocol
        status=str(data.get("status") or "active"),
        started_at=str(data.get("startedAt") or ""),
        rounds=rounds,
        termination_reason=data.get("terminationReason"),
        concluded_at=data.get("concludedAt"),
        conclusion=_conclusion(data, folder),
        legacy=True,
    )
