"""Who does what in the critique protocol: each round's judge, the synthesizer; which replies are positions."""

from __future__ import annotations

from discuss.plugin import Discussion, Panelist, Reply, Round, question_turn, referee

JUDGE = "judge"  # role of the judge's record in a round


def judge_of(d: Discussion, number: int) -> Panelist:
    """Round `number`'s judge: the panel's, a referee who did not debate, else members in turn round by round."""
    return referee(d, d.panel.judge, question_turn(d) + number)


def synthesizer_of(d: Discussion) -> Panelist:
    """The synthesizer (else the chairman) named; a referee who did not debate; else a member fixed by the question."""
    return referee(d, d.panel.synthesizer or d.panel.chairman, question_turn(d))


def positions(rnd: Round) -> dict[str, Reply]:
    return {pid: r for pid, r in rnd.replies.items() if r.role != JUDGE}
