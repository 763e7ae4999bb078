"""Who does what in a tournament: the keys of the sides' arguments, and each match's judge."""

from __future__ import annotations

from discuss.plugin import Discussion, Panelist, Round, question_turn, referee

from .notes import notes

JUDGE = "judge"
DEBATER = "debater"


def argument_key(i: int, pid: str) -> str:
    return f"match-{i + 1}-{pid}"


def judge_of(d: Discussion, rnd: Round, i: int) -> Panelist:
    match = notes(rnd)["matches"][i]
    return referee(d, d.panel.judge, question_turn(d) + rnd.number + i, avoid=(match["a"], match["b"]))
