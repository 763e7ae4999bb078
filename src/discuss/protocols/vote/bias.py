"""Where a vote discussion's outcome may lean on something other than merit: pure figures.

Per panelist: how much more it scores its own answer than the others score
that same answer (self-vote generosity), its round wins that a tie-break
decided (by rule, `list-order` included), its ballots a tool invented and
its abstentions. Across the panel: in which label position (A, B, ...)
voters saw the answer that went on to win, since position can sway a
voter. For one discussion or many; panelists are known by id.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...domain import Discussion, Round
from .record import VOTE_SCORES, ballot_box


@dataclass
class Leaning:
    panelist_id: str
    name: str
    # Points it gave its own answers minus the mean the others gave the same answers (0..2 scale).
    generosity_sum: float = 0.0
    generosity_answers: int = 0
    tie_break_wins: Counter[str] = field(default_factory=Counter)
    invented_ballots: int = 0
    abstained: int = 0  # rounds it cast no valid ballot in

    @property
    def self_generosity(self) -> float | None:
        return round(self.generosity_sum / self.generosity_answers, 2) if self.generosity_answers else None


@dataclass
class BiasReport:
    panelists: list[Leaning]
    # How often the round's winner was shown under each label, over every ballot with known labels.
    winning_positions: Counter[str]

    def lines(self) -> list[str]:
        return lines(self)

    def as_json(self) -> dict[str, Any]:
        """As `show --json` and discussions.json give it."""
        return {"panelists": [{"panelist": p.panelist_id, "selfVoteGenerosity": p.self_generosity,
                               "tieBreakWins": dict(p.tie_break_wins), "inventedBallots": p.invented_ballots,
                               "abstentions": p.abstained} for p in self.panelists],
                "winningPositions": dict(sorted(self.winning_positions.items()))}

    @property
    def empty(self) -> bool:
        return not self.panelists or all(
            p.self_generosity is None and not p.tie_break_wins and not p.invented_ballots and not p.abstained
            for p in self.panelists) and not self.winning_positions


def _own_margin(r: Round, author: str) -> float | None:
    """The author's own points on its answer minus the mean of the others' points on it (cast votes only)."""
    on_it = [v for v in ballot_box(r).votes if v.target_id == author and not v.invented]
    own = [VOTE_SCORES.get(v.vote, 0) for v in on_it if v.voter_id == author]
    others = [VOTE_SCORES.get(v.vote, 0) for v in on_it if v.voter_id != author]
    return own[0] - sum(others) / len(others) if own and others else None


def report(discussions: list[Discussion]) -> BiasReport:
    rows: dict[str, Leaning] = {}
    positions: Counter[str] = Counter()

    for d in discussions:
        names = {m.id: m.name for m in d.panel.members}

        def row(pid: str, names: dict[str, str] = names) -> Leaning:
            return rows.setdefault(pid, Leaning(pid, names.get(pid, pid)))

        for pid in d.panel.ids:
            row(pid)
        for r in (r for r in d.rounds if r.complete):
            for author in r.replies:
                if (margin := _own_margin(r, author)) is not None:
                    row(author).generosity_sum += margin
                    row(author).generosity_answers += 1
            box = ballot_box(r)
            if box.winner_id and box.tie_break:
                row(box.winner_id).tie_break_wins[box.tie_break] += 1
            for voter in sorted({v.voter_id for v in box.votes if v.invented}):
                row(voter).invented_ballots += 1
            for a in box.abstentions:
                row(a.voter_id).abstained += 1
            for b in box.ballots:
                positions.update(label for label, target in b.labels.items() if target == box.winner_id)
    return BiasReport(sorted(rows.values(), key=lambda x: x.panelist_id), positions)


def lines(rep: BiasReport) -> list[str]:
    """The report as `discuss show` prints it."""
    out = []
    for p in rep.panelists:
        ties = ", ".join(f"{n} by {rule}" for rule, n in sorted(p.tie_break_wins.items())) or "none"
        generosity = "-" if p.self_generosity is None else f"{p.self_generosity:+.2f}"
        out.append(f"- {p.name}: self-vote generosity {generosity}, wins by tie-break {ties}, "
                   f"invented ballots {p.invented_ballots}, abstentions {p.abstained}")
    if rep.winning_positions:
        shown = ", ".join(f"{label} {n}" for label, n in sorted(rep.winning_positions.items()))
        out.append(f"- the winner's label on the ballots: {shown}")
    return out
