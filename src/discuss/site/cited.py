"""Citations marked where they are made: each `[Sn]` of an answer on a page, after its Markdown was made safe.

A label of a source there is links to that source's row on the page (which
names its address and title); a label that names no source, or that closes
a quote the source does not hold, is marked in place with a class, a title
and a sign a reader sees, as well as in the sources' table. Only the text
between tags is touched, and what is added is written here, never taken
from the answer.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

from ..text.citations import LABEL, marks

TAG = re.compile(r"(<[^>]*>)")
WORDS = {
    "unknown": "{label} is not a source of this discussion",
    "unfound": "the quote before {label} is not found in it",
}


def cited(html: Markup, text: str, sources: dict[str, str], titles: dict[str, str], prefix: str = "") -> Markup:
    """`html` (an answer's safe HTML, made from `text`) with its citations linked or marked. `sources`: each
    label's text as recorded now; `titles`: what a link's title says of each label's source."""
    if not sources and "[S" not in text and "[P" not in text:
        return html
    kinds = marks(text, sources)
    if len(kinds) != len(LABEL.findall(TAG.sub("", str(html)))):
        kinds = ["ok" if label in sources else "unknown" for label in LABEL.findall(TAG.sub("", str(html)))]
    found = iter(kinds)

    def mark(m: re.Match[str]) -> str:
        label, kind = m.group(1), next(found, "ok")
        if kind == "unknown":
            return (f'<span class="discuss-cite discuss-cite-unknown" data-cite="{label}" '
                    f'title="{escape(WORDS[kind].format(label=label))}">[{label}]\u26a0</span>')
        said = WORDS[kind].format(label=label) if kind == "unfound" else titles.get(label, label)
        extra = " discuss-cite-unfound" if kind == "unfound" else ""
        sign = "\u26a0" if kind == "unfound" else ""
        return (f'<a class="discuss-cite{extra}" data-cite="{label}" href="#{prefix}source-{label}" '
                f'title="{escape(said)}">[{label}]{sign}</a>')

    parts = TAG.split(str(html))
    inside_link = False
    for i, part in enumerate(parts):
        if i % 2:
            inside_link = part.startswith(("<a ", "<a>")) or (inside_link and part != "</a>")
        elif not inside_link:
            parts[i] = LABEL.sub(mark, part)
        else:
            LABEL.sub(lambda m: next(found, "ok"), part)  # keep the order: a label inside a link stays as it is
    return Markup("".join(parts))
