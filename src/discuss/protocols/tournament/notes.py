"""What a tournament round records in its round.yaml: the bracket as it is played."""

from __future__ import annotations

from typing import NotRequired, cast

from typing_extensions import TypedDict

from discuss.plugin import Round


class Match(TypedDict):
    a: str
    b: str
    winner: str | None
    shownFirst: NotRequired[str]
    undecided: NotRequired[str]  # why no winner: the judge never gave a usable verdict


class TournamentNotes(TypedDict, total=False):
    matches: list[Match]
    byes: list[str]
    champion: str


def notes(rnd: Round) -> TournamentNotes:
    return cast(TournamentNotes, rnd.notes)
