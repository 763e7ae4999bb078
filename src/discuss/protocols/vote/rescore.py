"""The recorded ballots of a vote discussion tallied again under other self-vote weights: pure.

A study asks how much an outcome owes to a setting. For each weight this
re-tallies every complete round from the votes as recorded (the same
labels, the same seed for drawn ties), then replays the stopping rules,
and says which round winners and which stop would have been different.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...domain import Discussion, Round
from .record import ballot_box
from .scoring import pick_winner, tally
from .termination import decide


def _retallied(d: Discussion, r: Round, weight: float) -> Round:
    box = ballot_box(r)
    if not box.ballots and not box.votes:
        return replace(r, record=replace(box))
    results = tally(box.votes, [pid for pid in d.panel.ids if pid in r.replies] or sorted(r.replies), weight)
    winner, rule = pick_winner(results, r.seed) if results else (None, None)
    score = next((x.weighted_score for x in results if x.target_id == winner), None)
    return replace(r, record=replace(box, results=results, winner_id=winner, tie_break=rule, winner_score=score))


def _stop(d: Discussion, rounds: list[Round], weight: float) -> dict[str, Any] | None:
    settings = replace(d.settings, self_vote_weight=weight)
    for k in range(1, len(rounds) + 1):
        decision = decide(rounds[:k], settings, len(d.panel.members))
        if decision.terminate:
            return {"round": rounds[k - 1].number, "reason": decision.reason}
    return None


def rescore(d: Discussion, weights: list[float]) -> list[dict[str, Any]]:
    """For each weight: the winner of each complete round, which differ from the record, and the stop."""
    done = [r for r in d.rounds if r.complete]
    recorded = [ballot_box(r).winner_id for r in done]
    out = []
    for weight in weights:
        rounds = [_retallied(d, r, weight) for r in done]
        winners = [ballot_box(r).winner_id for r in rounds]
        out.append({"selfVoteWeight": weight, "winners": winners,
                    "changed": [r.number for r, was, now in zip(done, recorded, winners, strict=True) if was != now],
                    "stop": _stop(d, rounds, weight)})
    return out


def lines(d: Discussion, found: list[dict[str, Any]]) -> list[str]:
    names = {m.id: m.name for m in d.panel.everyone}
    recorded = {r.number: ballot_box(r).winner_id for r in d.rounds if r.complete}
    out = [f"Re-scored from the recorded ballots (selfVoteWeight as recorded: {d.settings.self_vote_weight:g}):"]
    for f in found:
        winners = ", ".join(f"{n}: {names.get(w, w) if w else '-'}" + (" (changed)" if n in f["changed"] else "")
                            for n, w in zip(recorded, f["winners"], strict=True))
        stop = f"stops after round {f['stop']['round']} ({f['stop']['reason']})" if f["stop"] else "no stop"
        out.append(f"- selfVoteWeight {f['selfVoteWeight']:g}: winners {winners or '-'}; {stop}")
    return out
