"""Where a vote discussion's outcome may lean on something other than merit: pure figures.

Per panelist: how much more it scores its own answer than the others score
that same answer (self-vote generosity, with a 95% bootstrap interval of
its mean once there are two answers), its round wins that a tie-break
decided (by rule, `list-order` included), its ballots a tool invented,
its abstentions, and its answers that name a panelist (which undo the
letters voters see them under). Across the panel: in which label position (A, B, ...)
voters saw the answer that went on to win, since position can sway a
voter. For one discussion or many; panelists are known by id. Where the
rounds were run by more than one method (a Project Dyson thread continued
by discuss), each method also has a report of its own rounds alone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from discuss.plugin import Discussion, Round, names_in, spread, words_of

from .record import VOTE_SCORES, ballot_box


@dataclass
class Leaning:
    panelist_id: str
    name: str
    # Per answer of its own: points it gave it minus the mean the others gave it (0..2 scale).
    margins: list[float] = field(default_factory=list)
    tie_break_wins: Counter[str] = field(default_factory=Counter)
    invented_ballots: int = 0
    abstained: int = 0  # rounds it cast no valid ballot in
    signed: int = 0  # its answers that name it or another panelist, so voters could tell whose they were

    @property
    def self_generosity(self) -> float | None:
        return round(sum(self.margins) / len(self.margins), 2) if self.margins else None

    @property
    def self_generosity_ci(self) -> list[float] | None:
        """A 95% bootstrap interval of the mean margin, from two answers up (seeded: the same every time)."""
        return spread(self.margins)["ci95"] if len(self.margins) > 1 else None


@dataclass
class BiasReport:
    panelists: list[Leaning]
    # How often the round's winner was shown under each label, over every ballot with known labels.
    winning_positions: Counter[str]
    # The same over each method's rounds alone, where the rounds were run by more than one.
    by_method: dict[str, BiasReport] = field(default_factory=dict)

    def lines(self) -> list[str]:
        return lines(self)

    def as_json(self) -> dict[str, Any]:
        """As `show --json` and discussions.json give it."""
        return {"panelists": [{"panelist": p.panelist_id, "selfVoteGenerosity": p.self_generosity,
                               "selfVoteGenerosityCi95": p.self_generosity_ci, "ownAnswers": len(p.margins),
                               "tieBreakWins": dict(p.tie_break_wins), "inventedBallots": p.invented_ballots,
                               "abstentions": p.abstained, "answersNamingAPanelist": p.signed} for p in self.panelists],
                "winningPositions": dict(sorted(self.winning_positions.items())),
                **({"byMethod": {m: rep.as_json() for m, rep in self.by_method.items()}} if self.by_method else {})}

    @property
    def empty(self) -> bool:
        return not self.panelists or all(
            p.self_generosity is None and not p.tie_break_wins and not p.invented_ballots and not p.abstained
            and not p.signed for p in self.panelists) and not self.winning_positions


def _own_margin(r: Round, author: str) -> float | None:
    """The author's own points on its answer minus the mean of the others' points on it (cast votes only)."""
    on_it = [v for v in ballot_box(r).votes if v.target_id == author and not v.invented]
    own = [VOTE_SCORES.get(v.vote, 0) for v in on_it if v.voter_id == author]
    others = [VOTE_SCORES.get(v.vote, 0) for v in on_it if v.voter_id != author]
    return own[0] - sum(others) / len(others) if own and others else None


def method_of(r: Round) -> str:
    return ballot_box(r).method or "anonymised"


def report(discussions: list[Discussion]) -> BiasReport:
    whole = tally(discussions)
    methods = sorted({method_of(r) for d in discussions for r in d.rounds if r.complete})
    if len(methods) > 1:
        whole.by_method = {m: tally(discussions, m) for m in methods}
    return whole


def tally(discussions: list[Discussion], method: str | None = None) -> BiasReport:
    """The report over the complete rounds, or over those run by `method` alone."""
    rows: dict[str, Leaning] = {}
    positions: Counter[str] = Counter()

    for d in discussions:
        names = {m.id: m.name for m in d.panel.members}
        words = words_of(d)

        def row(pid: str, names: dict[str, str] = names) -> Leaning:
            return rows.setdefault(pid, Leaning(pid, names.get(pid, pid)))

        for pid in d.panel.ids:
            row(pid)
        for r in (r for r in d.rounds if r.complete and method in (None, method_of(r))):
            for author, reply in r.replies.items():
                if (margin := _own_margin(r, author)) is not None:
                    row(author).margins.append(margin)
                if names_in(reply.text, words):
                    row(author).signed += 1
            box = ballot_box(r)
            if box.winner_id and box.tie_break:
                row(box.winner_id).tie_break_wins[box.tie_break] += 1
            for voter in sorted({v.voter_id for v in box.votes if v.invented}):
                row(voter).invented_ballots += 1
            for a in box.abstentions:
                row(a.voter_id).abstained += 1
            for b in box.ballots:
                # Under named ballots the position is the answer's place in the list, lettered like the others.
                shown = {chr(ord("A") + i) if box.method == "named" else label: target
                         for i, (label, target) in enumerate(b.labels.items())}
                positions.update(label for label, target in shown.items() if target == box.winner_id)
    return BiasReport(sorted(rows.values(), key=lambda x: x.panelist_id), positions)


def lines(rep: BiasReport) -> list[str]:
    """The report as `discuss show` prints it; each method's own after the whole, indented."""
    out = figures(rep)
    for method, part in rep.by_method.items():
        out.append(f"- rounds run as {method} alone:")
        out += [f"  {line}" for line in figures(part)]
    return out


def figures(rep: BiasReport) -> list[str]:
    out = []
    for p in rep.panelists:
        ties = ", ".join(f"{n} by {rule}" for rule, n in sorted(p.tie_break_wins.items())) or "none"
        generosity = "-" if p.self_generosity is None else f"{p.self_generosity:+.2f}"
        if (ci := p.self_generosity_ci) is not None:
            generosity += f" (95% CI {ci[0]:+.2f} to {ci[1]:+.2f}, {len(p.margins)} answers)"
        out.append(f"- {p.name}: self-vote generosity {generosity}, wins by tie-break {ties}, "
                   f"invented ballots {p.invented_ballots}, abstentions {p.abstained}"
                   + (f", answers naming a panelist {p.signed}" if p.signed else ""))
    if rep.winning_positions:
        shown = ", ".join(f"{label} {n}" for label, n in sorted(rep.winning_positions.items()))
        out.append(f"- the winner's label on the ballots: {shown}")
    return out
