"""The site's trust boundary: what may pass from files a pull request can change to MkDocs and its theme.

Two rules, both pure functions here (no MkDocs import):

- A question page hands the theme only the front-matter keys the theme
  shows, each checked: a status from a fixed set, text escaped, tags that
  are plain words. Keys that steer the theme (`template`, `icon`,
  `redirect`, ...) never pass: Material writes page metadata into every
  page's navigation and head unescaped, and picks templates and icon files
  by these names.
- Files that belong to a discussion are never built as pages, whatever
  state their question file is in (unreadable, missing, renamed): a
  discussion folder is recognised by what it holds, not by its question.
- Only files that resolve inside the docs folder are published, and only
  pages that are UTF-8: a link to `../.git/config` would publish a token,
  and one unreadable page would stop the whole build.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from html import escape
from typing import Any

from ..store.audits import AUDIT
from ..text.clean import visible

STATUSES = ("open", "active", "concluded", "closed", "unverified")  # the last: its record does not hold
# Material's `hide:` values; anything else would only be noise in the page.
HIDE = frozenset({"navigation", "toc", "footer", "feedback", "tags", "path"})
PLAIN_TAG = re.compile(r"[\w][\w .+#/-]{0,63}")  # fullmatch: no newline slips past
ROUND_DIR = re.compile(r"^round-\d+$")
PART_DIR = re.compile(r"^part-\d+$")
PART_FILE = re.compile(r"^part-\d+\.md$")
TRIAL_DIR = re.compile(r"^trial-\d+$")  # `discuss trials`: <question folder>/trials/trial-N/
OUR_FILES = ("discussion.yaml", "votes.yaml", "round.yaml")
# The first lines of a file `discuss` wrote: a reply, a conclusion or a person's form.
WRITTEN_MARK = re.compile(rb"^type: (discussion-response|discussion-conclusion|person-form)\s*$", re.MULTILINE)


def page_meta(meta: dict[str, Any], status: str) -> tuple[dict[str, Any], list[str]]:
    """The metadata a question page hands the theme, and what was refused, in words."""
    refused = sorted(k for k in meta if k in THEME_KEYS)
    safe: dict[str, Any] = {"status": status if status in STATUSES else "open"}
    if isinstance(meta.get("title"), str):
        safe["title"] = escape(visible(meta["title"].strip()))
    if isinstance(meta.get("description"), str):
        safe["description"] = escape(visible(" ".join(meta["description"].split())))
    tags = meta.get("tags")
    if isinstance(tags, list):
        plain = [str(t) for t in tags if isinstance(t, (str, int)) and not isinstance(t, bool)
                 and PLAIN_TAG.fullmatch(str(t))]
        if len(plain) != len(tags):
            refused.append("tags (only plain words pass)")
        safe["tags"] = plain
    hide = meta.get("hide")
    if isinstance(hide, list):
        safe["hide"] = [h for h in hide if isinstance(h, str) and h in HIDE]
    return safe, refused


def any_page_meta(meta: dict[str, Any], statuses: Iterable[str]) -> dict[str, Any]:
    """Any other page's metadata with the theme's unescaped fields made text and its status one it knows.

    The theme writes these into every page's navigation and head as HTML;
    escaping shows the same characters a person typed.
    """
    out = dict(meta)
    for key in ("title", "description", "author", "subtitle"):
        if key in out:
            value = out.pop(key)
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                out[key] = escape(visible(str(value)))
    if "status" in out and out["status"] not in set(statuses):
        del out["status"]
    return out


# Keys the theme or MkDocs act on; a question file naming one is told it was not passed on.
THEME_KEYS = frozenset({"template", "redirect", "redirect_url", "location", "icon", "subtitle", "author",
                        "search", "extra", "social", "comments", "robots", "canonical_url", "url"})


def discussion_folders(uris: Iterable[str], head: Callable[[str], bytes]) -> tuple[set[str], set[str]]:
    """The discussion folders among the site's files (each ending in '/'), and stray written files.

    `uris` are the site's source paths ('/'-separated, relative to the
    docs folder); `head(uri)` gives the first bytes of a Markdown file. A
    folder holding a `round-N/` or `for-people/` folder, or one of our
    index files, is a discussion's (a follow-up's `part-N/` belongs to the
    folder above it, a trial's `trials/trial-N/` to the question's); a Markdown file that says it was written by
    `discuss` (a reply, a conclusion, a person's form) is never a page,
    wherever it lies.
    """
    folders: set[str] = set()
    stray: set[str] = set()
    for uri in uris:
        parts = uri.split("/")
        for i, name in enumerate(parts[:-1]):
            if ROUND_DIR.match(name) or name == "for-people":
                folders.add(_owner(parts[:i]))
                break
        else:
            if parts[-1] in OUR_FILES or PART_FILE.match(parts[-1]):
                folders.add(_owner(parts[:-1]))
            elif uri.endswith(".md") and WRITTEN_MARK.search(head(uri)):
                stray.add(uri)
    folders.discard("/")
    return folders, stray


def _owner(parts: list[str]) -> str:
    """The discussion folder of a path's folders: a follow-up's `part-N` and a bias audit's `audit` belong
    to the one above, and a trial's `trials/trial-N` to the question's folder."""
    if parts and (PART_DIR.match(parts[-1]) or parts[-1] == AUDIT):
        parts = parts[:-1]
    elif len(parts) > 1 and TRIAL_DIR.match(parts[-1]) and parts[-2] == "trials":
        parts = parts[:-2]
    return posixpath.join(*parts, "") if parts else "/"


def inside(uri: str, folders: Iterable[str]) -> bool:
    return uri.startswith(tuple(folders))


class RealPaths:
    """os.path.realpath for one build, each folder resolved once: a site's thousands of files share a few
    hundred folders, and resolving walks every part of a path. Made afresh for every build, so a link made
    while `mkdocs serve` runs is followed on the next."""

    def __init__(self) -> None:
        self.folders: dict[str, str] = {}

    def __call__(self, path: Any) -> str:
        import os

        folder, name = os.path.split(os.path.abspath(path))
        if (real := self.folders.get(folder)) is None:
            real = self.folders[folder] = os.path.realpath(folder)
        joined = os.path.join(real, name)
        return os.path.realpath(joined) if os.path.islink(joined) else joined


def refused_file(path: Any, docs_dir: Any, realpath: Callable[[Any], str] | None = None, *,
                 read: bool = True) -> str | None:
    """Why the file at `path` may not be published from `docs_dir` (a link out, text that is not UTF-8), or None.
    `realpath`: one build's RealPaths, else os.path.realpath; `read`: False to leave the text unread."""
    import os

    realpath = realpath or os.path.realpath
    real, root = realpath(path), realpath(docs_dir)
    # Found in the docs folder and resolving out of it (a theme's own files live elsewhere).
    if _within(os.path.abspath(path), os.path.abspath(docs_dir)) and not _within(real, root):
        return "links outside the docs folder"
    if read and str(path).endswith(".md"):
        try:
            with open(real, "rb") as f:
                f.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"is not UTF-8 text (byte {exc.start})"
        except OSError as exc:
            return f"cannot be read ({exc.strerror})"
    return None


def _within(path: str, folder: str) -> bool:
    """Whether normalised absolute `path` is `folder` or lies under it (os.path.commonpath's answer, a tenth
    of its time: a site checks every file)."""
    import os

    return path == folder or path.startswith(folder if folder.endswith(os.sep) else folder + os.sep)
