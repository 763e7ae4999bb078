"""Project Dyson's threads: read as Dyson wrote them, continued in Dyson's shape.

A format of the store's, like its own: the vote protocol ran these threads,
so this module reads the vote's record (the one module outside the vote's
package that does), and the store calls it directly, with no callbacks.


Dyson's `discussion.yaml` embeds each response's text under
`rounds[].responses` and nests votes under `rounds[].votes[].votes`; its panel
is implicit in the model ids. Rounds Dyson wrote are read into our
dataclasses and marked `imported`: they are never rewritten. Rounds discuss
adds to a Dyson thread are written twice over: in their round folder as
ours are (the record we read back), and embedded in `discussion.yaml` as
Dyson's site reads them, marked `writtenBy: discuss` and carrying our own
fields (seed, tie-break, abstentions, failures, usage) beside Dyson's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...domain import (
    FINISHED,
    Conclusion,
    Discussion,
    Foreign,
    Panel,
    Panelist,
    Reply,
    Round,
    Settings,
    usage_dict,
    usage_from,
)
from ...protocols.stats import discussion_stats
from ...protocols.vote.audit import LIST_ORDER
from ...protocols.vote.files import approvals_from_others
from ...protocols.vote.record import TerminationVote, Vote, VoteResult, ballot_box, round_seed, whole
from ...text.conclusions import bullets, split_sections
from ...text.naming import is_safe_id
from ..documents import read
from ..rounds import failures, read_round
from .base import ThreadFormat

# The store's readers are imported where a thread is read or written: `status` reads an index's winners alone.

NAME = "dyson"  # the format's name on a discussion kept in it (`Discussion.foreign`)


def adopt(d: Discussion, phase: str) -> None:
    """Keep a new vote discussion in Dyson's shape, with the fields Dyson's site reads from the start."""
    from ...protocols.vote.settings import VoteSettings  # not at import: `status` reads threads without pydantic

    s, own = d.settings, VoteSettings.of(d.settings)
    d.foreign = Foreign(NAME, {
        "questionId": d.question_id, "questionSlug": d.question_slug, "questionTitle": d.question_title,
        "phaseId": phase,
        "config": {"maxRounds": s.max_rounds, "maxResponseWords": s.max_response_words,
                   "allowSelfVoting": own.self_vote_weight > 0, "selfVoteWeight": own.self_vote_weight,
                   "unanimousTermination": True, "consecutiveConcludeRounds": own.consecutive_conclude_rounds},
        "status": d.status, "startedAt": d.started_at, "rounds": [],
    })


def _names(folder: Path) -> dict[str, str]:
    names = {}
    for path in sorted(folder.glob("round-*/*.md")):
        try:
            meta, _ = read(path)
        except ValueError:
            continue
        if meta.get("modelId") and meta.get("modelName"):
            names[str(meta["modelId"])] = str(meta["modelName"])
    return names


OURS = "discuss"  # the `writtenBy` of a round discuss added to a Dyson thread


# What Dyson's reference tool writes in a ballot it filled in itself: after a reply it could not
# parse, or when the model's API did not answer. Such a ballot was never cast.
INVENTED = ("parse error - defaulting to", "api unavailable")


def invented(reasoning: str) -> bool:
    return reasoning.strip().lower().startswith(INVENTED)


def recorded_tie_break(r: Round) -> str | None:
    """How a Dyson round's recorded winner won: None for a clear win, else the rule that could explain it."""
    box = ballot_box(r)
    top = max((x.weighted_score for x in box.results), default=None)
    tied = [x for x in box.results if x.weighted_score == top]
    if len(tied) < 2 or box.winner_id not in {x.target_id for x in tied}:
        return None
    winner = next(x for x in tied if x.target_id == box.winner_id)
    if all(winner.approve_from_others > x.approve_from_others for x in tied if x is not winner):
        return "approvals-from-others"  # Dyson's own stated tie-breaker decided
    return LIST_ORDER


def _round(raw: dict[str, Any], names: dict[str, str], slug: str) -> Round:
    number = int(raw.get("roundNumber") or 0)
    # Ties re-drawn, if ever, with the seed discuss gives its own rounds: never one seed for all.
    r = Round(number=number, seed=round_seed(slug, number), imported=True)
    box = ballot_box(r)
    box.method = "dyson-reference"
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
            why = str(v.get("reasoning") or "")
            box.votes.append(Vote(str(v.get("voterId")), str(v.get("targetId")), str(v.get("vote")), why,
                                  invented=invented(why)))
        box.results.append(VoteResult(
            target_id=str(result.get("targetId")), raw_score=result.get("rawScore", 0),
            weighted_score=result.get("weightedScore", 0),
            approve_count=int(result.get("approveCount") or 0),
            reject_count=int(result.get("rejectCount") or 0),
        ))
    approvals_from_others(box)
    box.termination_votes = [
        TerminationVote(str(t.get("modelId")), str(t.get("vote")), str(t.get("reasoning") or ""),
                        invented=invented(str(t.get("reasoning") or "")))
        for t in raw.get("terminationVotes") or []
    ]
    box.winner_id = raw.get("winnerId")
    box.winner_score = raw.get("winnerScore")
    box.should_terminate = bool(raw.get("shouldTerminate"))
    box.termination_reason = raw.get("terminationReason")
    r.completed_at = str(raw.get("completedAt") or "") or "unknown"
    box.tie_break = recorded_tie_break(r)
    return r


def _conclusion(data: dict[str, Any], folder: Path) -> Conclusion | None:
    raw = data.get("conclusion")
    path = folder / "conclusion.md"
    if not isinstance(raw, dict) and not path.is_file():
        return None
    raw = raw if isinstance(raw, dict) else {}
    meta, body = read(path) if path.is_file() else ({}, str(raw.get("summary") or ""))
    sections = split_sections(body)
    summary = sections.get("summary") or body.strip()

    def as_list(key: str, heading: str) -> list[str]:
        # conclusion.md holds the clean text; Dyson's discussion.yaml copies may keep Markdown marks.
        found = bullets(sections.get(heading, ""))
        return found or [str(x).replace("**", "").strip() for x in raw.get(key) or []]

    return Conclusion(
        summary=summary,
        key_points=as_list("keyPoints", "key points"),
        unresolved_questions=as_list("unresolvedQuestions", "unresolved questions"),
        recommended_actions=as_list("recommendedActions", "recommended actions"),
        generated_by=str(raw.get("generatedBy") or ""),
        generated=str(raw.get("generatedAt") or ""),
        body=body,
        usage=usage_from(meta.get("usage") or raw.get("usage")),  # what writing it cost, where discuss wrote it
    )


def load_legacy(data: dict[str, Any], folder: Path) -> Discussion:
    """A Dyson thread, with the rounds discuss wrote into it read as the store reads its own."""
    def read_own(raw: dict[str, Any]) -> Round:
        return read_round(raw, folder, "vote")

    names = _names(folder)
    slug = str(data.get("questionSlug") or folder.name)
    entries = [r for r in data.get("rounds") or [] if isinstance(r, dict)]
    rounds = [read_own(r) if r.get("writtenBy") == OURS else _round(r, names, slug) for r in entries]
    # A round begun and not finished lives in its folder only, until it is complete; once the thread is
    # finished, a folder its index does not list is no round of it (Dyson's analysis reads listed rounds).
    number, orphans = len(rounds) + 1, []
    finished = str(data.get("status") or "active") in FINISHED
    while (folder / f"round-{number}").is_dir():
        if finished:
            orphans.append(number)
        else:
            rounds.append(read_own({"roundNumber": number}))
        number += 1
    ids: list[str] = []
    for r in rounds:
        ids += [i for i in r.replies if i not in ids]
    for mid in (data.get("stats") or {}).get("roundWinners") or {}:
        if mid not in ids and is_safe_id(str(mid)):
            ids.append(str(mid))
    return Discussion(
        question_id=str(data.get("questionId") or ""),
        question_slug=slug,
        question_title=str(data.get("questionTitle") or ""),
        panel=Panel(name="", members=tuple(Panelist(i, i, names.get(i, i)) for i in ids)),
        settings=settings_from(data.get("config") or {}, Settings()),
        protocol="vote",  # Dyson's tool knows only this protocol
        status=str(data.get("status") or "active"),
        started_at=str(data.get("startedAt") or ""),
        rounds=rounds,
        termination_reason=data.get("terminationReason"),
        concluded_at=data.get("concludedAt"),
        conclusion=_conclusion(data, folder),
        foreign=Foreign(NAME, data, orphans),
    )


# Dyson's config keys that are shared settings of ours, and those that are the vote's own (by the same
# names), and how to read them.
CONFIG = {"maxRounds": ("max_rounds", int), "maxResponseWords": ("max_response_words", int)}
OWN_CONFIG = {"selfVoteWeight": float, "consecutiveConcludeRounds": int}


def settings_from(config: dict[str, Any], base: Settings) -> Settings:
    """`base` with what a Dyson thread's config says; `allowSelfVoting: false` makes own votes count for nothing."""
    import dataclasses

    changes: dict[str, Any] = {name: kind(config[key]) for key, (name, kind) in CONFIG.items()
                               if config.get(key) is not None}
    own = {key: kind(config[key]) for key, kind in OWN_CONFIG.items() if config.get(key) is not None}
    if config.get("allowSelfVoting") is False:
        own["selfVoteWeight"] = 0.0
    return dataclasses.replace(base, **changes, own={**base.own, **own})


# Project Dyson's reference tool asked every model at this temperature.
TEMPERATURE = 0.7


def continuing_panel(d: Discussion, panel: Panel) -> Panel:
    """The panel as it goes on with `d`: at Dyson's temperature, where a member sets none, if Dyson's tool ran it."""
    import dataclasses

    if not (d.legacy and any(ballot_box(r).method == "dyson-reference" for r in d.rounds)):
        return panel

    def member(p: Panelist) -> Panelist:
        return dataclasses.replace(p, defaults={**p.defaults, "temperature": TEMPERATURE})

    return dataclasses.replace(panel, members=tuple(member(m) for m in panel.members))


def round_winners(rounds: list[dict[str, Any]]) -> list[str | None] | None:
    """The winner each round entry of an index records (Dyson's or our oldest); None where one is no word."""
    winners = [r.get("winnerId") for r in rounds]
    return winners if all(isinstance(w, (str, type(None))) for w in winners) else None


def round_entry(r: Round, failures: list[dict[str, Any]], usage: dict[str, Any]) -> dict[str, Any]:
    """A finished round of ours as Dyson's site reads it, with our own fields beside Dyson's."""
    box = ballot_box(r)
    by_target: dict[str, list[Any]] = {}
    for v in box.votes:
        by_target.setdefault(v.target_id, []).append(v)
    entry: dict[str, Any] = {
        "roundNumber": r.number,
        "writtenBy": OURS,
        "method": box.method or "anonymised",
        # The date, as the answer's own file keeps it: what is read back is what was written.
        "responses": [{"modelId": pid, "content": reply.text, "wordCount": reply.word_count,
                       "generatedAt": reply.generated[:10]} for pid, reply in r.replies.items()],
        "votes": [{"targetId": x.target_id,
                   "votes": [{"voterId": v.voter_id, "targetId": v.target_id, "vote": v.vote, "reasoning": v.reasoning}
                             for v in by_target.get(x.target_id, [])],
                   "rawScore": whole(x.raw_score), "weightedScore": whole(x.weighted_score),
                   "approveCount": x.approve_count, "rejectCount": x.reject_count} for x in box.results],
        "winnerId": box.winner_id,
        "winnerScore": whole(box.winner_score),
        "terminationVotes": [{"modelId": t.model_id, "vote": t.vote, "reasoning": t.reasoning}
                             for t in box.termination_votes],
        "shouldTerminate": box.should_terminate,
        "completedAt": r.completed_at,
        "seed": r.seed,
        "tieBreak": box.tie_break,
        "abstentions": [{"voterId": a.voter_id, "reason": a.reason} for a in box.abstentions],
        "failures": failures,
        "usage": usage,
    }
    if box.termination_reason:
        entry["terminationReason"] = box.termination_reason
    return entry


def stats(d: Discussion) -> dict[str, Any]:
    """Dyson's stats: approval over every vote cast (own ones too, invented ones not), words rounded half up."""
    # A ballot the tool filled in approves nothing.
    cast = [v for r in d.rounds for v in ballot_box(r).votes if not v.invented]
    return {**discussion_stats(d),
            "approvalRate": round(100 * sum(v.vote == "APPROVE" for v in cast) / len(cast), 1) if cast else 0}


def index_dict(d: Discussion, entry: Callable[[Round], dict[str, Any]], usage: dict[str, Any]) -> dict[str, Any]:
    """The thread's discussion.yaml: Dyson's as it was read, with our finished rounds and the outcome."""
    data = dict(d.foreign.index if d.foreign is not None else {})
    kept = {int(r.get("roundNumber") or 0): r for r in data.get("rounds") or [] if isinstance(r, dict)}
    data["rounds"] = [kept[r.number] if r.imported else entry(r) for r in d.rounds if r.complete]
    data.update({"currentRound": d.current_round, "status": d.status, "stats": stats(d),
                 "terminationReason": d.termination_reason, "concludedAt": d.concluded_at,
                 "usage": usage})  # ours, beside Dyson's: every call discuss made on the thread, the conclusion's too
    c = d.conclusion
    if c is not None and c.generated_by and not (isinstance(data.get("conclusion"), dict)
                                                  and data["conclusion"].get("generatedAt") == c.generated):
        data["conclusion"] = {"summary": c.summary, "keyPoints": c.key_points,
                              "unresolvedQuestions": c.unresolved_questions,
                              "recommendedActions": c.recommended_actions,
                              "generatedBy": c.generated_by, "generatedAt": c.generated}
    return data


class DysonFormat(ThreadFormat):
    """Project Dyson's threads, as the store and the run ask for them."""

    protocol = "vote"  # Dyson's tool knew only this protocol

    def load(self, data: dict[str, Any], folder: Path) -> Discussion:
        return load_legacy(data, folder)

    def index(self, d: Discussion) -> dict[str, Any]:
        return index_dict(d, lambda r: round_entry(r, failures(r), usage_dict(r.usage)), usage_dict(d.usage))

    def round_winners(self, rounds: list[dict[str, Any]]) -> list[str | None] | None:
        return round_winners(rounds)

    def adopt(self, d: Discussion, phase: str) -> None:
        adopt(d, phase)

    def continued(self, d: Discussion, settings: Settings, panel: Panel) -> tuple[Settings, Panel]:
        config = d.foreign.index.get("config") if d.foreign is not None else None
        return settings_from(config or {}, settings), continuing_panel(d, panel)


FORMAT = DysonFormat()
