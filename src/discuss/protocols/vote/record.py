"""What a vote round records besides its answers: ballots, votes, the tally and the winner.

The core `Round` keeps what every protocol has; the vote protocol keeps its
own in the round's `record`, a `BallotBox`, reached through `ballot_box(r)`.
Only this package reads or writes these fields.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from discuss.plugin import Round, Usage

VOTE_SCORES = {"APPROVE": 2, "NEUTRAL": 1, "REJECT": 0}
METHODS = {
    "dyson-reference": "Project Dyson's reference tool: ballots named answers by model, ties went by list order",
    "anonymised": "discuss: answers under letters shuffled per voter, ties by approvals from others, "
                  "fewer rejections, then a seeded draw",
    "named": "discuss, with Project Dyson's presentation: answers under their authors' names in the panel's "
             "order, ties by approvals from others, fewer rejections, then a seeded draw",
}
TERMINATION_CHOICES = ("CONCLUDE", "CONTINUE")


@dataclass
class Vote:
    voter_id: str
    target_id: str
    vote: str
    reasoning: str = ""
    # Filled in by another tool after a parse error or an outage: shown, never counted as cast.
    invented: bool = False


@dataclass
class TerminationVote:
    model_id: str
    vote: str
    reasoning: str = ""
    invented: bool = False  # as Vote.invented


@dataclass
class Ballot:
    """How one voter's vote call went: which label hid which reply."""

    voter_id: str
    labels: dict[str, str]
    attempts: int = 1
    usage: Usage = field(default_factory=Usage)


@dataclass
class Abstention:
    voter_id: str
    reason: str
    usage: Usage = field(default_factory=Usage)  # an invalid ballot was still paid for


@dataclass
class VoteResult:
    target_id: str
    raw_score: float
    weighted_score: float
    approve_count: int
    reject_count: int
    approve_from_others: int = 0


@dataclass
class BallotBox:
    votes: list[Vote] = field(default_factory=list)
    termination_votes: list[TerminationVote] = field(default_factory=list)
    ballots: list[Ballot] = field(default_factory=list)
    abstentions: list[Abstention] = field(default_factory=list)
    results: list[VoteResult] = field(default_factory=list)
    winner_id: str | None = None
    winner_score: float | None = None
    tie_break: str | None = None
    should_terminate: bool = False
    termination_reason: str | None = None
    # How the round was run, where a thread mixes tools (see METHODS); None: ours, in our own layout.
    method: str | None = None
    # Each voter's probability of yes, where the question asks for a forecast and its ballot gave one.
    forecasts: dict[str, float] = field(default_factory=dict)

    def usages(self) -> list[Usage]:
        return [b.usage for b in self.ballots] + [a.usage for a in self.abstentions]

    def voted(self) -> set[str]:
        return {b.voter_id for b in self.ballots} | {a.voter_id for a in self.abstentions}

    def settle(self, pos: Callable[[str], tuple[int, str]]) -> None:
        """Ballots and votes in the panel's order, as votes.yaml lists them."""
        self.votes.sort(key=lambda v: (pos(v.voter_id), pos(v.target_id)))
        self.termination_votes.sort(key=lambda t: pos(t.model_id))
        self.ballots.sort(key=lambda b: pos(b.voter_id))
        self.abstentions.sort(key=lambda a: pos(a.voter_id))
        self.forecasts = dict(sorted(self.forecasts.items(), key=lambda x: pos(x[0])))


def ballot_box(r: Round) -> BallotBox:
    """The round's vote record, begun empty on first use."""
    if r.record is None:
        r.record = BallotBox()
    if not isinstance(r.record, BallotBox):
        raise TypeError(f"round {r.number} keeps another protocol's record")
    return r.record


def round_seed(slug: str, number: int) -> int:
    """A round's seed, fixed by the question and the round: its label shuffles and any drawn tie."""
    return int(hashlib.sha256(f"{slug}:round-{number}".encode()).hexdigest()[:8], 16)


def whole(x: float | None) -> float | int | None:
    """A score as Dyson writes it: an integer where it is whole."""
    return int(x) if isinstance(x, float) and x.is_integer() else x
