"""Standings of panelists across many discussions: pure functions.

A panelist is known by its id, so the same model keeps one line however
many discussions it sat in. Rates are percentages, None where there is
nothing to measure. Figures that mean different things stay in separate
tables: rounds won by vote (`standings`), matches won in tournaments
(`match_standings`), and what every panelist did in any protocol
(`participation`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..domain import Discussion
from ..protocols import DEFAULT, get_protocol


@dataclass
class Standing:
    panelist_id: str
    name: str
    discussions: int = 0
    rounds: int = 0
    wins: int = 0
    tie_break_wins: int = 0
    approvals_received: int = 0
    votes_received: int = 0
    approvals_given: int = 0
    votes_given: int = 0
    own_points: int = 0
    own_votes: int = 0
    others_points: int = 0

    @property
    def win_rate(self) -> float | None:
        return _pct(self.wins, self.rounds)

    @property
    def approval_received(self) -> float | None:
        return _pct(self.approvals_received, self.votes_received)

    @property
    def approval_given(self) -> float | None:
        return _pct(self.approvals_given, self.votes_given)

    @property
    def self_generosity(self) -> float | None:
        """Mean points it gave its own replies minus mean points it gave others' (0..2 scale)."""
        if not self.own_votes or not self.votes_given:
            return None
        return round(self.own_points / self.own_votes - self.others_points / self.votes_given, 2)


def _pct(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def _fold(d: Discussion, table: dict[str, Standing]) -> None:
    names = {m.id: m.name for m in d.panel.everyone}
    seen = set()

    def get(pid: str) -> Standing:
        seen.add(pid)
        return table.setdefault(pid, Standing(pid, names.get(pid, pid)))

    # Only panelists have lines (never a reply's file name such as match-1), and only rounds
    # that have a winner count towards win rates.
    protocol = get_protocol(d.protocol)
    for r in d.rounds:
        fig = protocol.figures.of_round(r)
        if not r.complete or fig.winner is None:
            continue
        for reply in r.replies.values():
            if reply.model_id in names:
                get(reply.model_id).rounds += 1
        if fig.winner in names:
            s = get(fig.winner)
            s.wins += 1
            s.tie_break_wins += fig.tie_break is not None
        for j in fig.judgements:
            if j.invented:
                continue  # never cast
            judge = get(j.judge)
            if j.judge == j.target:
                judge.own_points += j.points
                judge.own_votes += 1
                continue
            judge.votes_given += 1
            judge.approvals_given += j.approves
            judge.others_points += j.points
            target = get(j.target)
            target.votes_received += 1
            target.approvals_received += j.approves
    for pid in seen:
        table[pid].discussions += 1
        table[pid].name = names.get(pid, table[pid].name)


def standings(discussions: list[Discussion]) -> list[Standing]:
    table: dict[str, Standing] = {}
    for d in discussions:
        _fold(d, table)
    return sorted(table.values(), key=lambda s: (-s.wins, -(s.win_rate or 0), s.panelist_id))


@dataclass
class MatchStanding:
    """A panelist's record in tournaments: its answer's matches, won and lost, and titles."""

    panelist_id: str
    name: str
    tournaments: int = 0
    matches: int = 0
    match_wins: int = 0
    championships: int = 0

    @property
    def win_rate(self) -> float | None:
        return _pct(self.match_wins, self.matches)


def match_standings(discussions: list[Discussion]) -> list[MatchStanding]:
    """Decided matches only: a match whose judging failed has no winner yet, and a bye is no match."""
    table: dict[str, MatchStanding] = {}
    for d in discussions:
        protocol = get_protocol(d.protocol)
        if (played := protocol.figures.matches(d)) is None:
            continue
        names = {m.id: m.name for m in d.panel.members}
        for pid, name in names.items():
            table.setdefault(pid, MatchStanding(pid, name)).tournaments += 1
        for a, b, winner in played:
            for side in (a, b) if winner is not None else ():
                if side in names:
                    table[side].matches += 1
                    table[side].match_wins += side == winner
        if (champion := protocol.result_of(d)) in names:
            table[champion].championships += 1
    return sorted(table.values(), key=lambda s: (-s.championships, -s.match_wins, s.panelist_id))


@dataclass
class Participation:
    """What a panelist did in any protocol: answers, referee work, failures."""

    panelist_id: str
    name: str
    protocols: set[str]
    discussions: int = 0
    answers: int = 0
    refereed: int = 0  # replies in another role: judge, chairman, synthesizer, reviewer...
    conclusions: int = 0
    failed_calls: int = 0


def _take_part(d: Discussion, table: dict[str, Participation]) -> None:
    names = {m.id: m.name for m in d.panel.everyone}
    took_part = {m.id for m in d.panel.members}

    def get(pid: str) -> Participation:
        took_part.add(pid)
        return table.setdefault(pid, Participation(pid, names[pid], set()))

    for r in d.rounds:
        for reply in (x for x in r.replies.values() if x.model_id in names):
            if reply.role == "respondent":
                get(reply.model_id).answers += 1
            else:
                get(reply.model_id).refereed += 1
        for f in (f for f in r.failures if f.model_id in names):
            get(f.model_id).failed_calls += 1
    if d.conclusion and d.conclusion.generated_by in names:
        get(d.conclusion.generated_by).conclusions += 1
    for pid in took_part:
        entry = get(pid)
        entry.discussions += 1
        entry.protocols.add(d.protocol or DEFAULT)
        entry.name = names[pid]


def participation(discussions: list[Discussion]) -> list[Participation]:
    table: dict[str, Participation] = {}
    for d in discussions:
        _take_part(d, table)
    return sorted(table.values(), key=lambda s: (-s.answers, s.panelist_id))
