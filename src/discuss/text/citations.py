"""Checking what a reply cites: every `[Sn]` names a source there is (and every `[Pn]` a precedent, an earlier
conclusion the panel was given), every quote given to one is in its text.

Pure: the reply's text and the sources' texts in, findings out. A quote is
text in quotation marks ("..." or “...”) of at least `MIN_QUOTE` characters
followed by a label (`"the bus runs at 48 V" [S1]`); it is looked for in
that source's text with case, quotation marks, dashes and runs of spaces
made one; an ellipsis splits it into parts, to be found in that order.
Nothing is refused: the record says what was found and what was not.
"""

from __future__ import annotations

import re
import unicodedata

LABEL = re.compile(r"\[([SP]\d+)\]")  # S: a source, P: a precedent
MIN_QUOTE = 12
QUOTE = re.compile(r"[\"“”]([^\"“”\n]{" + str(MIN_QUOTE) + r",600})[\"“”]\s*[,;:(]?\s*\[([SP]\d+)\]")
PLAIN_MARKS = str.maketrans("‘’“”–—", "''\"\"--")
ELLIPSIS = re.compile(r"\s*(?:\.\s?\.\s?\.|…)\s*")


def normal(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.translate(PLAIN_MARKS)
    return " ".join(text.split())


def quoted_in(quote: str, source: str) -> bool:
    """Whether every part of the quote (split at an ellipsis) is in the source, in order."""
    at, haystack = 0, normal(source)
    for part in (normal(p) for p in ELLIPSIS.split(quote)):
        if not part:
            continue
        found = haystack.find(part.strip(" .,;:"), at)
        if found < 0:
            return False
        at = found + len(part)
    return True


def check(text: str, sources: dict[str, str]) -> dict[str, list]:
    """{unknown: labels cited with no such source, quotes: [{text, source, found}]} for one reply."""
    unknown = sorted({label for label in LABEL.findall(text) if label not in sources}, key=lambda x: (x[0], int(x[1:])))
    quotes = [{"text": q, "source": label, "found": label in sources and quoted_in(q, sources[label])}
              for q, label in QUOTE.findall(text)]
    return {"unknown": unknown, "quotes": quotes}


def marks(text: str, sources: dict[str, str]) -> list[str]:
    """What each `[Sn]` of `text` is, in the order they come: "ok" (a source there is), "unknown" (no such
    source) or "unfound" (it closes a quote that is not in that source). `sources`: each label's text."""
    unfound = {m.end() for m in QUOTE.finditer(text)
               if not (m.group(2) in sources and quoted_in(m.group(1), sources[m.group(2)]))}
    return ["unknown" if m.group(1) not in sources else "unfound" if m.end() in unfound else "ok"
            for m in LABEL.finditer(text)]
