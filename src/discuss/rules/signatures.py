"""Answers that name a panelist: a signature that defeats anonymised ballots, or an appeal to a rival.

Voters see answers under letters so that who wrote one cannot sway them.
An answer that writes "I am the skeptic", or names another panelist, puts
that name back in front of every voter. Nothing here refuses such a
reply (a panelist may have a reason to name one); it is found, so the
record, the page and the bias report can say so. Pure functions over the
rounds as loaded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from ..domain import Discussion

SHORTEST = 3  # a name of one or two letters ("A", "B2") would match labels and ordinary words


@dataclass(frozen=True)
class Named:
    round_number: int
    author: str  # the panelist id of the answer
    named: tuple[str, ...]  # the panelist ids it names, its author's own included

    @property
    def signed(self) -> bool:
        return self.author in self.named


@lru_cache(maxsize=256)
def _pattern(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)


def names_in(text: str, panel: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The ids of `panel` (id -> the words it goes by) that `text` names as a whole word."""
    return tuple(pid for pid, words in panel.items()
                 if any(len(w) >= SHORTEST and _pattern(w).search(text) for w in words))


def named_in(d: Discussion) -> list[Named]:
    """Every recorded answer that names a panelist, in round order."""
    panel = words_of(d)
    found = []
    for r in d.rounds:
        for author, reply in sorted(r.replies.items()):
            if named := names_in(reply.text, panel):
                found.append(Named(r.number, author, named))
    return found


def words_of(d: Discussion) -> dict[str, tuple[str, ...]]:
    """What each panelist goes by: its id and its display name."""
    return {m.id: tuple({m.id, m.name}) for m in d.panel.members}


def line(n: Named, names: dict[str, str]) -> str:
    """One answer, as `show` prints it and the page lists it."""
    others = [names.get(p, p) for p in n.named if p != n.author]
    said = "signs itself" + (f" and names {', '.join(others)}" if others else "") if n.signed else \
        f"names {', '.join(others)}"
    return f"round {n.round_number}: {names.get(n.author, n.author)}'s answer {said}"


def lines(found: list[Named], names: dict[str, str]) -> list[str]:
    return [line(n, names) for n in found]
