"""What the search index reads of a page: a copy of its HTML that the theme's search reads faster.

The theme's search plugin walks every tag of a page's content, at a cost that
grows with how deeply the tags nest, and only then skips what is marked to be
left out of the index; a discussion's vote matrices, charts and word diffs
are a third of its text, and its replies sit seven tags deep in tabs. The
plugin hands the search plugin this copy and the theme the whole page. The
copy leaves out every element marked `data-search-exclude`, and takes out
the wrappers the index does not depend on (`flattened`); the sections the
search makes of it are the same to the character (a property test holds the
theme's own parser to that).

It promises to cut only whole elements, and to take tags out only of plain,
balanced HTML (our templates escape every text, so no text can spell a tag):
anything else is left as it is.
"""

from __future__ import annotations

import re
from html import unescape

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
    """`html` without every element marked `data-search-exclude` (what the index would skip anyway), and
    without the wrappers it does not depend on where it is plain, balanced HTML (`flattened`)."""
    return flattened(without_excluded(html))


def without_excluded(html: str) -> str:
    """`html` without every element marked `data-search-exclude`."""
    kept: list[str] = []
    at = 0
    while (found := EXCLUDED.search(html, at)) is not None:
        kept.append(html[at:found.start()])
        at = _closing(html, found.group(1), found.end())
    kept.append(html[at:])
    return "".join(kept)


# How the theme's search reads a page (measured on mkdocs-material 9.5 to 9.8): a section starts at each heading
# with an id; the markup of these tags is kept in the index, the others' text only; these nest text it skips.
HEADINGS = frozenset(f"h{n}" for n in range(1, 7))
KEPT = frozenset({"p", "code", "pre", "li", "ol", "ul", "sub", "sup"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                  "track", "wbr"})
# Elements whose text HTML parsers read raw (any Python's): a fragment holding one is left as it is.
RAW = frozenset({"script", "style", "object", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
                 "noscript", "plaintext"})
TAG = re.compile(r"""<(/?)([a-zA-Z][^\s/>]*)((?:[^>"']+|"[^"]*"|'[^']*')*)>""")
ATTRIBUTE = re.compile(r"""\s([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]*))?""")
MARK = "<br>"  # a void tag: where text must stay two pieces, as the tag it stands for kept it


def _holds_section(attrs: str) -> bool:
    return any(name.lower() == "id" for name, _ in ATTRIBUTE.findall(attrs))


def _guarded(name: str, attrs: str) -> bool:
    """Elements the search treats by their attributes (skips them, or a permalink in a heading's text):
    each is kept with all it holds as it is."""
    if "data-search-exclude" not in attrs and "linenodiv" not in attrs and "headerlink" not in attrs:
        return False
    found = {key.lower(): value.strip("\"'") for key, value in ATTRIBUTE.findall(attrs)}
    return ("data-search-exclude" in found or found.get("class") == "linenodiv"
            or (name == "a" and found.get("class") == "headerlink"))


Tag = tuple[int, int, str, str, str]  # start, end, "/" or "", name, attributes


def _unwrappable(html: str, tags: list[Tag]) -> list[bool] | None:
    """For each tag, whether the search's index depends on its element; None where the fragment is not
    plain, balanced HTML (then nothing is taken out)."""
    open_: list[list] = []  # [name, index of its start tag, keep: 0 out, 1 kept, 2 kept with all it holds]
    worded = not html.startswith("<")  # whether text or an element came before: the first section has begun
    untouched = 0  # how many open elements keep all they hold as it is: headings, what the search skips
    kept = [True] * len(tags)
    end = len(html)
    for i, (_, after, closing, name, attrs) in enumerate(tags):
        name = name.lower()
        if closing:
            if not open_ or open_[-1][0] != name:
                return None
            _, start, keep = open_.pop()
            if keep == 2:
                untouched -= 1
            kept[start] = kept[i] = bool(keep)
        elif name in RAW:
            return None
        else:
            whole = name in HEADINGS or _guarded(name, attrs)
            opens_first = not worded and name not in VOID  # where the search begins the page's first section
            keep = 2 if whole else int(untouched > 0 or name in KEPT or opens_first)
            if name in HEADINGS and _holds_section(attrs):
                for outer in open_:  # where a section ends depends on every element around its heading
                    outer[2] = max(outer[2], 1)
            worded = worded or opens_first
            if name in VOID or attrs.endswith("/"):
                kept[i] = bool(keep)
            else:
                open_.append([name, i, keep])
                untouched += keep == 2
        worded = worded or (after < end and html[after] != "<")
    return None if open_ else kept


def _pieces(text: str) -> bool:
    """Whether `text` and what follows it must reach the search as two pieces (white space alone is read
    differently from white space beside words)."""
    return not text or (unescape(text) if "&" in text else text).isspace()


def flattened(html: str) -> str:
    """`html` with the wrappers the search index does not depend on taken out, so the search reads fewer
    and shallower tags; its sections, their titles and texts stay the same to the character.

    Kept: headings and all that is in them, every element around a heading with an id (where a section
    ends depends on them), the tags whose markup the index keeps, and the first element. Text that a
    taken-out tag split stays split by a void tag, which the search passes over, unless both pieces hold
    words (joined, they read the same).
    """
    tags: list[Tag] = [(m.start(), m.end(), m[1], m[2], m[3]) for m in TAG.finditer(html)]
    if html.count("<") != len(tags):  # a '<' that is no plain tag (a comment, a declaration): left as it is
        return html
    kept = _unwrappable(html, tags)
    if kept is None or all(kept):
        return html
    out: list[str] = []
    at, i, count = 0, 0, len(tags)
    while i < count:
        start, end = tags[i][0], tags[i][1]
        if kept[i]:
            i += 1
            continue
        previous = tags[i - 1][1] if i else -1
        while i + 1 < count and not kept[i + 1] and tags[i + 1][0] == end:
            i += 1  # a run of taken-out tags with nothing between them
            end = tags[i][1]
        following = tags[i + 1][0] if i + 1 < count else len(html)
        before, after = html[max(previous, 0):start], html[end:following]
        if previous == start or following == end < len(html):  # a kept tag beside it already splits the text
            mark = ""
        elif _pieces(before) or _pieces(after):
            mark = MARK
        else:  # joined, two pieces holding words read the same, unless an entity would form across them
            mark = "" if "&" not in before or unescape(before + after) == unescape(before) + unescape(after) \
                else MARK
        out += [html[at:start], mark]
        at, i = end, i + 1
    out.append(html[at:])
    return "".join(out)
