"""How a question fares over repeated, independent runs: pure figures over its trials.

For N discussions of one question: rounds and approval (mean and sample
standard deviation, with a 95% bootstrap interval of the mean), winner
stability (the share of trials whose final winner, and whose first
round's winner, is the most common one) and termination consistency (the
share ending for the most common reason). Approval is the APPROVE share of
the judgements cast, own ones included, invented ones left out. The
bootstrap is seeded: the same trials give the same figures. Only the rounds
a trial's index lists are read: a round folder it does not list (a round
another tool began and left) is named under `orphanRounds`, never counted.
Where the protocol keeps a bias report, each panelist's leanings trial by
trial are given as a spread over the trials (`bias`).
"""

from __future__ import annotations

from typing import Any

from ..domain import Discussion
from ..protocols import get_protocol
from ..rules.spread import modal_share, spread


def _winners(d: Discussion) -> tuple[str | None, str | None]:
    """(the final winner, the first round's winner); a protocol without round winners gives its result."""
    protocol = get_protocol(d.protocol)
    won = [protocol.figures.of_round(r).winner for r in d.rounds if r.complete]
    final = next((w for w in reversed(won) if w), None) or protocol.result_of(d)
    return final, (won[0] if won else None)


def _approval(d: Discussion) -> float | None:
    cast = [j for r in d.rounds for j in get_protocol(d.protocol).figures.of_round(r).judgements if not j.invented]
    return 100 * sum(j.approves for j in cast) / len(cast) if cast else None


def _bias_over(trials: list[Discussion]) -> dict[str, dict[str, Any]]:
    """Each panelist's self-vote generosity and tie-break wins trial by trial, as a spread over the trials:
    whether a leaning holds from run to run or is one run's accident."""
    generosity: dict[str, list[float]] = {}
    ties: dict[str, list[float]] = {}
    for d in trials:
        rep = get_protocol(d.protocol).figures.bias([d])
        for p in rep.panelists if rep is not None else []:
            if p.self_generosity is not None:
                generosity.setdefault(p.panelist_id, []).append(p.self_generosity)
            ties.setdefault(p.panelist_id, []).append(float(sum(p.tie_break_wins.values())))
    return {pid: {"selfVoteGenerosity": spread(generosity.get(pid, [])), "tieBreakWins": spread(values)}
            for pid, values in sorted(ties.items())}


def report(trials: list[Discussion], labels: list[str] | None = None) -> dict[str, Any]:
    """The figures of `trials`; `labels` names each (its folder) where orphans are reported."""
    named = labels or [f"trial-{d.trial}" if d.trial else d.question_slug for d in trials]
    rounds = [float(sum(r.complete for r in d.rounds)) for d in trials]
    approvals = [a for a in (_approval(d) for d in trials) if a is not None]
    finals, firsts = zip(*(_winners(d) for d in trials)) if trials else ((), ())
    winner, final_share = modal_share(list(finals))
    _, first_share = modal_share(list(firsts))
    reason, consistency = modal_share([d.termination_reason for d in trials])
    return {
        "runs": len(trials),
        "finished": sum(d.concluded for d in trials),
        "rounds": spread(rounds),
        "approval": spread(approvals),
        "winnerStability": {"final": final_share, "firstRound": first_share, "winner": winner},
        "terminationConsistency": consistency, "terminationReason": reason,
        "bias": _bias_over(trials),
        # Round folders a finished trial's index does not list: reported, never counted.
        "orphanRounds": {label: d.foreign.orphan_rounds for label, d in zip(named, trials)
                         if d.foreign is not None and d.foreign.orphan_rounds},
    }
