"""What the search index reads of a page: its HTML without the blocks marked `data-search-exclude`.

The theme's search plugin walks every tag of a page's content, at a cost that
grows with how deeply the tags nest, and only then skips what is marked to be
left out of the index; a discussion's vote matrices, charts and word diffs
are a third of its text and sit deep in tabs. The plugin hands the search
plugin this copy, whose index is the same, and the theme the whole page.
It promises to cut only whole elements: from a marked start tag to the end
tag that closes it, counting that tag name's openings and closings (our
templates escape every text, so no text can spell a tag).
"""

from __future__ import annotations

import re

EXCLUDED = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)\b[^>]*\bdata-search-exclude\b[^>]*>")


def _closing(html: str, tag: str, start: int) -> int:
    """The end of the element of `tag` opened just before `start`; the end of the text if it never closes."""
    opening, closing = re.compile(rf"<{tag}\b", re.I), f"</{tag}>"
    depth, at = 1, start
    while depth:
        end = html.find(closing, at)
        if end < 0:
            return len(html)
        depth += len(opening.findall(html, at, end)) - 1
        at = end + len(closing)
    return at


def searchable(html: str) -> str:
    """`html` without every element marked `data-search-exclude` (what the index would skip anyway)."""
    kept: list[str] = []
    at = 0
    while (found := EXCLUDED.search(html, at)) is not None:
        kept.append(html[at:found.start()])
        at = _closing(html, found.group(1), found.end())
    kept.append(html[at:])
    return "".join(kept)
