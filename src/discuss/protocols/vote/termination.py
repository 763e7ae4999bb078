"""When a vote discussion stops: pure rules over the rounds so far.

Only termination votes actually cast count (not one a tool filled in after
a parse error or an outage); an abstention is neither a
CONCLUDE nor a CONTINUE, and a round's votes count at all only with a
quorum: more than `quorum` of the panel cast one. So one panelist cannot
end a discussion while the others are down. Unanimity is of the votes cast
(with the quorum); the consecutive rule asks `consecutiveConcludeVotes`
CONCLUDE votes (Project Dyson's "2+ models") for `consecutiveConcludeRounds`
rounds running. The first rule that fires is returned by name, with the
figures and the rule in force, so the decision can be audited.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from discuss.plugin import Round, Settings

from .record import TerminationVote, ballot_box
from .scoring import max_possible

if TYPE_CHECKING:
    from .settings import VoteSettings


@dataclass(frozen=True)
class Decision:
    terminate: bool
    reason: str | None = None
    detail: str = ""


def cast_votes(rnd: Round) -> list[TerminationVote]:
    """The termination votes panelists cast; one a tool filled in is an abstention."""
    return [t for t in ballot_box(rnd).termination_votes if not t.invented]


def conclude_counts(rnd: Round) -> tuple[int, int]:
    cast = cast_votes(rnd)
    return sum(t.vote == "CONCLUDE" for t in cast), len(cast)


def has_quorum(rnd: Round, panel_size: int, quorum: float) -> bool:
    return len(cast_votes(rnd)) > quorum * panel_size


def enough_to_conclude(rnd: Round, panel_size: int, settings: VoteSettings) -> bool:
    conclude, _ = conclude_counts(rnd)
    return has_quorum(rnd, panel_size, settings.quorum) and conclude >= settings.consecutive_conclude_votes


def winner_ratio(rnd: Round, self_weight: float) -> float:
    box = ballot_box(rnd)
    if box.winner_id is None or box.winner_score is None:
        return 0.0
    top = max_possible(box.votes, box.winner_id, self_weight)
    return box.winner_score / top if top else 0.0


def decide(rounds: list[Round], shared: Settings, panel_size: int) -> Decision:
    """Whether the discussion stops after the last of `rounds`, on a panel of `panel_size`."""
    from .settings import VoteSettings  # pydantic: not imported by `status`, which reads Dyson's threads

    settings, current = VoteSettings.of(shared), rounds[-1]
    conclude, cast = conclude_counts(current)
    quorum = f"quorum: more than {settings.quorum:g} of {panel_size} panelists voting"
    if has_quorum(current, panel_size, settings.quorum) and conclude == cast:
        return Decision(True, "unanimous-conclude",
                        f"{conclude} of {cast} votes cast, {panel_size} on the panel; {quorum}")

    streak, least = settings.consecutive_conclude_rounds, settings.consecutive_conclude_votes
    recent = rounds[-streak:]
    if len(recent) == streak and all(enough_to_conclude(r, panel_size, settings) for r in recent):
        return Decision(True, "consecutive-conclude",
                        f"{least}+ CONCLUDE votes in each of the last {streak} rounds; {quorum}")

    runs = settings.convergence_rounds
    recent = rounds[-runs:]
    if (
        len(recent) == runs
        and ballot_box(current).winner_id is not None
        and all(ballot_box(r).winner_id == ballot_box(current).winner_id for r in recent)
        and all(
            winner_ratio(r, settings.self_vote_weight) >= settings.convergence_score
            for r in recent
        )
    ):
        return Decision(
            True, "convergence",
            f"{ballot_box(current).winner_id} won {runs} rounds at >= {settings.convergence_score:.0%} of the top score",
        )

    if current.number >= shared.max_rounds:
        return Decision(True, "max-rounds", f"round {current.number} of {shared.max_rounds}")
    return Decision(False)
