"""Who does what in the council family: the drafter, the converger, the reviewers; what routes a question."""

from __future__ import annotations

from discuss.plugin import Discussion, Panelist, question_turn, referee

from .settings import AdversarialSettings

HIGH_STAKES = "high"
# Task types that ask the panel to review an artefact (a draft, a design, code) rather than answer.
REVIEW_TASKS = ("review", "artefact-review", "artifact-review")


def drafter(d: Discussion) -> Panelist:
    chosen = AdversarialSettings.of(d.settings).drafter
    return d.panel.member(chosen) if chosen else d.panel.members[0]


def converger(d: Discussion) -> Panelist:
    """Who judges the reviews: the chairman, a referee outside the panel, else a member who did not draft."""
    return referee(d, d.panel.chairman, question_turn(d), avoid=(drafter(d).id,))


def reviewers(d: Discussion) -> tuple[Panelist, ...]:
    """Everyone but the drafter; a converger from the panel sits out while two reviewers remain."""
    lead, judge = drafter(d), converger(d)
    others = tuple(m for m in d.panel.members if m.id != lead.id)
    without_judge = tuple(m for m in others if m.id != judge.id)
    return (without_judge if len(without_judge) >= 2 else others) or (lead,)
