"""What a decompose round records in its round.yaml: the parts, and who answers each."""

from __future__ import annotations

from typing import NotRequired, cast

from typing_extensions import TypedDict

from discuss.plugin import Round


class Part(TypedDict):
    title: str
    question: str
    assignee: NotRequired[str]


class DecomposeNotes(TypedDict, total=False):
    parts: list[Part]


def notes(rnd: Round) -> DecomposeNotes:
    return cast(DecomposeNotes, rnd.notes)
