"""When a vote discussion stops: pure rules over the rounds so far.

Only termination votes actually cast count; an abstention is neither a
CONCLUDE nor a CONTINUE. The first rule that fires is returned by name,
with the figures that made it fire, so the decision can be audited.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...domain import Round, Settings
from .scoring import max_possible


@dataclass(frozen=True)
class Decision:
    terminate: bool
    reason: str | None = None
    detail: str = ""


def conclude_counts(rnd: Round) -> tuple[int, int]:
    cast = len(rnd.termination_votes)
    return sum(t.vote == "CONCLUDE" for t in rnd.termination_votes), cast


def has_conclude_majority(rnd: Round) -> bool:
    conclude, cast = conclude_counts(rnd)
    return cast > 0 and conclude * 2 > cast


def winner_ratio(rnd: Round, self_weight: float) -> float:
    if rnd.winner_id is None or rnd.winner_score is None:
        return 0.0
    top = max_possible(rnd.votes, rnd.winner_id, self_weight)
    return rnd.winner_score / top if top else 0.0


def decide(rounds: list[Round], settings: Settings) -> Decision:
    """Whether the discussion stops after the last of `rounds`."""
    current = rounds[-1]
    conclude, cast = conclude_counts(current)
    if cast and conclude == cast:
        return Decision(True, "unanimous-conclude", f"{conclude} of {cast} votes cast")

    streak = settings.consecutive_conclude_rounds
    recent = rounds[-streak:]
    if len(recent) == streak and all(has_conclude_majority(r) for r in recent):
        return Decision(True, "consecutive-conclude", f"majority in the last {streak} rounds")

    runs = settings.convergence_rounds
    recent = rounds[-runs:]
    if (
        len(recent) == runs
        and current.winner_id is not None
        and all(r.winner_id == current.winner_id for r in recent)
        and all(
            winner_ratio(r, settings.self_vote_weight) >= settings.convergence_score
            for r in recent
        )
    ):
        return Decision(
            True, "convergence",
            f"{current.winner_id} won {runs} rounds at >= {settings.convergence_score:.0%} of the top score",
        )

    if current.number >= settings.max_rounds:
        return Decision(True, "max-rounds", f"round {current.number} of {settings.max_rounds}")
    return Decision(False)
