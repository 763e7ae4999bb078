"""The recorded ballots of a vote discussion tallied again under other weights and tie rules: pure.

A study asks how much an outcome owes to a setting. For each self-vote
weight, or each tie rule, this re-tallies every complete round from the
votes as recorded (the same labels, the same seed for drawn ties), then
replays the stopping rules, and says which round winners and which stop
would have been different. The tie rules are ours (`fair`: approvals from
others, fewer rejections, then a seeded draw) and Project Dyson's
reference tool's (`list-order`: the first of the tied in the panel's list).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from discuss.plugin import Discussion, Round

from .audit import LIST_ORDER
from .record import VoteResult, ballot_box
from .scoring import pick_winner, tally
from .settings import VoteSettings
from .termination import decide

TIE_RULES = ("fair", "list-order")


def _list_order(results: list[VoteResult]) -> tuple[str, str | None]:
    best = max(x.weighted_score for x in results)
    tied = [x for x in results if x.weighted_score == best]
    return tied[0].target_id, (LIST_ORDER if len(tied) > 1 else None)


def _retallied(d: Discussion, r: Round, weight: float, tie_rule: str = "fair") -> Round:
    box = ballot_box(r)
    if not box.ballots and not box.votes:
        return replace(r, record=replace(box))
    results = tally(box.votes, [pid for pid in d.panel.ids if pid in r.replies] or sorted(r.replies), weight)
    pick = _list_order if tie_rule == "list-order" else lambda found: pick_winner(found, r.seed)
    winner, rule = pick(results) if results else (None, None)
    score = next((x.weighted_score for x in results if x.target_id == winner), None)
    return replace(r, record=replace(box, results=results, winner_id=winner, tie_break=rule, winner_score=score))


def _stop(d: Discussion, rounds: list[Round], weight: float) -> dict[str, Any] | None:
    settings = replace(d.settings, own={**d.settings.own, "selfVoteWeight": weight})
    for k in range(1, len(rounds) + 1):
        decision = decide(rounds[:k], settings, len(d.panel.members))
        if decision.terminate:
            return {"round": rounds[k - 1].number, "reason": decision.reason}
    return None


def rescore(d: Discussion, weights: list[float], tie_rules: list[str] | None = None) -> list[dict[str, Any]]:
    """For each weight (or, given `tie_rules`, each rule at the recorded weight): the winner of each
    complete round, which differ from the record, and the stop."""
    done = [r for r in d.rounds if r.complete]
    recorded = [ballot_box(r).winner_id for r in done]
    variants = [(VoteSettings.of(d.settings).self_vote_weight, rule) for rule in tie_rules] if tie_rules else \
        [(weight, "fair") for weight in weights]
    out = []
    for weight, rule in variants:
        rounds = [_retallied(d, r, weight, rule) for r in done]
        winners = [ballot_box(r).winner_id for r in rounds]
        label = f"tieRule {rule}" if tie_rules else f"selfVoteWeight {weight:g}"
        out.append({"label": label, "selfVoteWeight": weight, "tieRule": rule, "winners": winners,
                    "changed": [r.number for r, was, now in zip(done, recorded, winners, strict=True) if was != now],
                    "stop": _stop(d, rounds, weight)})
    return out


def lines(d: Discussion, found: list[dict[str, Any]]) -> list[str]:
    names = {m.id: m.name for m in d.panel.everyone}
    recorded = {r.number: ballot_box(r).winner_id for r in d.rounds if r.complete}
    by_rule = len({f["tieRule"] for f in found}) > 1 or any(f["tieRule"] != "fair" for f in found)
    out = [f"Re-scored from the recorded ballots (selfVoteWeight as recorded: {VoteSettings.of(d.settings).self_vote_weight:g}"
           + ("; tie rules: fair is ours, list-order Project Dyson's reference tool's):" if by_rule else "):")]
    for f in found:
        winners = ", ".join(f"{n}: {names.get(w, w) if w else '-'}" + (" (changed)" if n in f["changed"] else "")
                            for n, w in zip(recorded, f["winners"], strict=True))
        stop = f"stops after round {f['stop']['round']} ({f['stop']['reason']})" if f["stop"] else "no stop"
        which = f"tie rule {f['tieRule']}" if by_rule else f"selfVoteWeight {f['selfVoteWeight']:g}"
        out.append(f"- {which}: winners {winners or '-'}; {stop}")
    return out
