"""How mechanics decided a vote discussion: list-order ties, invented ballots, the stop they changed.

Pure functions over the rounds as loaded. Project Dyson's reference tool
broke ties by its model list's order and filled in ballots after a parse
error or an outage; discuss never does either, but shows where a recorded
thread did, and replays its stopping rules with those ballots as the
abstentions they were.
"""

from __future__ import annotations

from discuss.plugin import Discussion

from .record import ballot_box
from .termination import decide

LIST_ORDER = "list-order"  # a tie a recorded winner won by its place in the recording tool's model list


def replayed_stop(d: Discussion) -> tuple[int, str] | None:
    """The first round at which the stopping rules, with invented ballots as abstentions, stop."""
    done = [r for r in d.rounds if r.complete]
    for k in range(1, len(done) + 1):
        decision = decide(done[:k], d.settings, len(d.panel.members))
        if decision.terminate:
            return k, str(decision.reason)
    return None


def recorded_stop(d: Discussion) -> int | None:
    return next((r.number for r in d.rounds if ballot_box(r).should_terminate), None)


def audit(d: Discussion) -> list[str]:
    """Lines on what mechanics, not the panel, decided; none for a discussion discuss ran alone."""
    out = []
    ties = [r.number for r in d.rounds if ballot_box(r).tie_break == LIST_ORDER]
    if ties:
        out.append(f"rounds won by list order in a tie (the recording tool's model order, not the votes): "
                   f"{', '.join(map(str, ties))}")
    ballots = sum(v.invented for r in d.rounds for v in ballot_box(r).votes)
    stops = sum(t.invented for r in d.rounds for t in ballot_box(r).termination_votes)
    if ballots or stops:
        out.append(f"invented by the recording tool, not cast: {ballots} vote(s) on answers, {stops} termination "
                   "vote(s); left out of approval figures and of the stopping rules")
        replay, recorded = replayed_stop(d), recorded_stop(d)
        if replay and replay[0] != recorded and d.legacy:
            out.append(f"with invented ballots as abstentions this would have stopped at round {replay[0]} "
                       f"({replay[1]})" + (f", not round {recorded}" if recorded else ", not gone on"))
    return out
