"""What a panelist changed between two of its answers, as a readable word diff in HTML.

Pure: two texts in, escaped HTML out (removed words in <del>, added in
<ins>), so untrusted model text can never become markup here. One matcher
serves both the diff and the share of words changed; difflib's automatic
junk heuristic keeps long answers cheap (very common words anchor less).
"""

from __future__ import annotations

import difflib
from html import escape

from markupsafe import Markup


def word_diff(before: str, after: str) -> tuple[float, Markup]:
    """The share of words changed (0 to 1) and the diff; (0.0, empty) when nothing changed."""
    old, new = before.split(), after.split()
    if old == new:
        return 0.0, Markup("")
    matcher = difflib.SequenceMatcher(None, old, new)
    out = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("delete", "replace"):
            out.append(f"<del>{escape(' '.join(old[i1:i2]))}</del>")
        if op in ("insert", "replace"):
            out.append(f"<ins>{escape(' '.join(new[j1:j2]))}</ins>")
        if op == "equal":
            out.append(escape(" ".join(old[i1:i2])))
    return round(1 - matcher.ratio(), 2), Markup(" ".join(out))
