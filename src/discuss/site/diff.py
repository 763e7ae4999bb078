"""What a panelist changed between two of its answers, as a readable word diff in HTML.

Pure: two texts in, escaped HTML out (removed words in <del>, added in <ins>),
so untrusted model text can never become markup here.
"""

from __future__ import annotations

import difflib
from html import escape

from markupsafe import Markup


def word_diff(before: str, after: str) -> Markup:
    old, new = before.split(), after.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            out.append(f"<del>{escape(' '.join(old[i1:i2]))}</del>")
        if op in ("insert", "replace"):
            out.append(f"<ins>{escape(' '.join(new[j1:j2]))}</ins>")
        if op == "equal":
            out.append(escape(" ".join(old[i1:i2])))
    return Markup(" ".join(out))


def changed_share(before: str, after: str) -> float:
    """How much of the answer changed, 0 (nothing) to 1 (all of it)."""
    return round(1 - difflib.SequenceMatcher(None, before.split(), after.split(), autojunk=False).ratio(), 2)
