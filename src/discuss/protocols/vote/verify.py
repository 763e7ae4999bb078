"""The vote's outcome recomputed from its ballots, for `discuss verify`: pure rules over the recorded round.

Every finished round's scores are tallied again from its votes with the
recorded self-vote weight, its winner and tie-break picked again with the
round's seed, and whether it stopped decided again by the recorded stopping
rules and quorum; the conclusion's author is named again by the recorded
rule. What differs is a finding: the recorded value (`before`) and what the
ballots give (`after`). Another tool's rounds (Project Dyson's threads) are
held to what that tool recorded: a tie it broke by list order stands if the
winner was among the tied.
"""

from __future__ import annotations

from typing import Any

from discuss.plugin import Discussion, Round

from . import files
from .author import conclusion_author
from .notes import notes
from .record import ballot_box
from .scoring import pick_winner, tally
from .settings import VoteSettings
from .termination import decide

# Reasons the stopping rules over ballots do not give: the texts' convergence, a panel that cannot vote, a
# budget, a run stopped by hand.
OTHER_STOPS = ("converged", "no-valid-ballots")


def recompute(d: Discussion) -> list[dict[str, Any]]:
    own = VoteSettings.of(d.settings)
    found: list[dict[str, Any]] = []
    for i, r in enumerate(d.rounds):
        if not r.complete:
            continue
        found += _scores(d, r, own.self_vote_weight)
        found += _stop(d, r, i)
    if d.conclusion is not None and not d.legacy:
        expected = conclusion_author(d).id
        if d.conclusion.generated_by != expected:
            found.append(_finding(None, "conclusion.md", "conclusion-author", d.conclusion.generated_by, expected,
                                  f"the conclusion is by {d.conclusion.generated_by}; the rule "
                                  f"(conclusionAuthor: {own.conclusion_author}) names {expected}"))
    return found


def _finding(number: int | None, file: str, kind: str, before: Any, after: Any, message: str) -> dict[str, Any]:
    return {"round": number, "file": file, "kind": kind, "before": before, "after": after, "message": message}


def _scores(d: Discussion, r: Round, self_weight: float) -> list[dict[str, Any]]:
    box, where = ballot_box(r), f"round-{r.number}/{files.VOTES_FILE}"
    order = [pid for pid in d.panel.ids if pid in r.replies] or list(r.replies)
    again = tally(box.votes, order, self_weight) if box.votes else []
    recorded = {x.target_id: x for x in box.results}
    found = []
    for x in again:
        was = recorded.get(x.target_id)
        if was is None or abs(float(was.weighted_score) - x.weighted_score) > 1e-9 \
                or (was.approve_count, was.reject_count) != (x.approve_count, x.reject_count):
            found.append(_finding(r.number, where, "score", None if was is None else was.weighted_score,
                                  x.weighted_score, f"{x.target_id}'s score is recorded as "
                                  f"{'none' if was is None else f'{was.weighted_score:g}'}; its votes give "
                                  f"{x.weighted_score:g} ({x.approve_count} approve, {x.reject_count} reject)"))
    if not again:
        if box.winner_id is not None and not r.imported:
            found.append(_finding(r.number, "discussion.yaml", "winner", box.winner_id, None,
                                  f"round {r.number} records winner {box.winner_id} with no vote cast"))
        return found
    winner, tie = pick_winner(again, r.seed)
    top = max(x.weighted_score for x in again)
    tied = {x.target_id for x in again if x.weighted_score == top}
    if box.tie_break == "list-order" and box.winner_id in tied:
        return found  # another tool broke the tie by its list's order: recorded as such, and among the tied
    if box.winner_id != winner or box.tie_break != tie:
        found.append(_finding(r.number, "discussion.yaml", "winner", box.winner_id, winner,
                              f"round {r.number} records {box.winner_id} as its winner"
                              + (f" (tie broken by {box.tie_break})" if box.tie_break else "")
                              + f"; its votes give {winner}" + (f" (tie broken by {tie})" if tie else "")))
    elif box.winner_score is not None and abs(float(box.winner_score) - top) > 1e-9:
        found.append(_finding(r.number, "discussion.yaml", "winner-score", box.winner_score, top,
                              f"round {r.number}'s winner score is recorded as {box.winner_score:g}; its votes "
                              f"give {top:g}"))
    return found


def _stop(d: Discussion, r: Round, i: int) -> list[dict[str, Any]]:
    box = ballot_box(r)
    if d.legacy or r.imported:
        return []
    if box.termination_reason == "converged":
        if not (notes(r).get("convergence") or {}).get("converged"):
            return [_finding(r.number, "discussion.yaml", "termination", "converged", None,
                             f"round {r.number} records that the answers converged; its convergence test did not")]
        return []
    if box.termination_reason in OTHER_STOPS:
        return []
    decision = decide(d.rounds[:i + 1], d.settings, len(d.panel.members))
    if (box.should_terminate, box.termination_reason) != (decision.terminate, decision.reason):
        said = (box.termination_reason or "stop") if box.should_terminate else "go on"
        given = decision.reason if decision.terminate else "go on"
        return [_finding(r.number, "discussion.yaml", "termination", said, given,
                         f"round {r.number} records '{said}'; its termination votes under the recorded rules "
                         f"give '{given}'")]
    return []
