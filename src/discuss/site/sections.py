"""What the plugin adds to a question page: its verdict and its discussion sections, each with the copy the
search reads. A function of the page's entry alone, so a build, a helper process and the render cache all
make the same parts of the same files."""

from __future__ import annotations

from typing import NamedTuple

from . import render
from .collect import Entry
from .searchable import searchable


class Rendered(NamedTuple):
    """A question's verdict (its conclusion, for the top of the page; the first part's only) and its
    discussion section, each with the copy the search reads (`searchable`)."""

    verdict: str
    section: str
    verdict_searched: str
    section_searched: str


def rendered(entry: Entry) -> list[Rendered]:
    """What a question's page shows of `entry` and of each of its follow-ups, in order."""
    out = []
    for x in (entry, *entry.parts):
        view = render.view_of(x)  # figures and charts made once for both parts of the page
        verdict = render.verdict_section(x, view) if x is entry else ""
        section = render.question_section(x, bool(verdict), view)
        out.append(Rendered(verdict, section, searchable(verdict), searchable(section)))
    return out
