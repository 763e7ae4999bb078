"""Web pages frozen as sources: `sources/<question>/<name>.md`, reviewed and committed like any source.

Each holds the page's readable text under front matter that says where it
came from and what it was: `url`, `finalUrl` (after redirects, which are
listed), `fetchedAt`, `status`, `contentType`, `sha256` (of the bytes served)
and `textSha256` (of the text kept). A run reads the file, never the web; the
panel reads the text only, the front matter stays out of its prompt.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..text.charsets import page_text
from ..text.clean import clean
from ..text.naming import slugify
from . import documents
from .files import write_atomic

FOLDER = "sources"  # of the project: where frozen pages live, a folder sources may always come from
MARK = "fetchedAt"  # a front-matter key only a frozen page has


def readable(kind: str, data: bytes, url: str, charset: str | None = None) -> str:
    """A page's readable text: HTML's main text (navigation, scripts and boilerplate dropped), a PDF's
    pages, plain text as it is, in the charset the page declares (`charset`, its Content-Type's; see
    text/charsets.py); without control characters or terminal escapes (text from outside, which a reader
    may print); InputError where none can be read."""
    if kind == "pdf":
        import io

        from pypdf import PdfReader
        from pypdf.errors import PyPdfError

        try:
            text = "\n\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)
        except (PyPdfError, ValueError, KeyError) as exc:
            raise InputError(f"{url}: not a readable PDF ({exc})") from None
    elif kind == "html":
        import trafilatura

        # Control characters out first: an extractor may give up on a page that holds them (trafilatura 2.0 did).
        text = trafilatura.extract(clean(page_text(data, charset, html=True)), include_tables=True,
                                   include_comments=False, output_format="txt") or ""
        text = "\n\n".join(line.strip() for line in text.splitlines() if line.strip())  # a block a paragraph
    else:
        text = page_text(data, charset)
    text = re.sub(r"\n{3,}", "\n\n", clean(text.replace("\r\n", "\n")).replace("\r", "\n")).strip()
    if not text:
        raise InputError(f"{url}: no readable text in it; nothing was kept")
    return text


def name_for(url: str, taken: set[str]) -> str:
    """A file name for a page: its address's last words, made distinct."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    base = slugify(f"{parts.hostname or ''} {parts.path.rsplit('/', 1)[-1].rsplit('.', 1)[0]}", 60) or "page"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def frozen_as(root: Path, slug: str, url: str) -> Path | None:
    """The latest file a freeze of `url` wrote for the question `slug`, if any. InputError where a file there
    cannot be read (one that links out of the project, `naming.open_in_project`)."""
    folder, found = root / FOLDER / slug, None
    for existing in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        try:
            meta, _ = documents.read(existing)
        except ValueError as exc:  # a link out of the project among them: refused by the readers' one rule
            raise InputError(f"{exc}; remove or mend it and freeze again (nothing was kept)") from None
        if meta.get("url") == url and (found is None or str(meta.get(MARK)) >= found[0]):
            found = (str(meta.get(MARK)), existing)
    return found[1] if found else None


def freeze(root: Path, slug: str, page: Any, text: str, title: str | None = None) -> Path:
    """Write the page as a new file `sources/<slug>/<name>.md`. A file of the same address frozen before is
    never written over: this edition goes beside it and names it (`previous`), so what an earlier discussion
    read stays as it was."""
    folder = root / FOLDER / slug
    earlier = frozen_as(root, slug, page.url)
    path = folder / f"{name_for(page.final_url, {p.stem for p in folder.glob('*.md')} if folder.is_dir() else set())}.md"
    meta = {"url": page.url, "finalUrl": page.final_url, "fetchedAt": page.fetched_at, "status": page.status,
            "contentType": page.content_type, "sha256": hashlib.sha256(page.data).hexdigest(),
            "textSha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            **({"title": title} if title else {}), **({"redirects": page.redirects} if page.redirects else {}),
            **({"previous": earlier.name} if earlier is not None else {})}
    write_atomic(path, documents.render(meta, text + "\n"))
    return path


def title_of(kind: str, data: bytes, charset: str | None = None) -> str | None:
    """An HTML page's title as one line of plain, printable text (outside text: cleaned); None where it has none."""
    import html

    if kind != "html":
        return None
    found = re.search(r"<title[^>]*>(.*?)</title\s*>", page_text(data[:200_000], charset, html=True), re.I | re.S)
    title = " ".join(clean(html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))).split())[:300] if found else ""
    return title or None


def listed(question: Path, entry: str, replaces: str | None = None) -> bool:
    """Add `entry` to the question's `sources:` (in place of `replaces`, the URL it freezes); True if changed."""
    try:
        text = documents.read_text(question)
    except ValueError as exc:
        raise ValueError(f"{question}: cannot be read: {exc}") from None
    meta, _ = documents.parse(text, question)
    sources = [str(s) for s in meta.get("sources") or []]
    if entry in sources:
        return False
    sources = [entry if s == replaces else s for s in sources] if replaces in sources else [*sources, entry]
    meta["sources"] = sources
    write_atomic(question, documents.rewritten(text, meta, question))  # the person's other lines as they wrote them
    return True


def body_of(text: str) -> str:
    """A frozen page's text without its front matter: what a panel reads."""
    if text.startswith("---") and MARK in text.split("\n---", 1)[0]:
        return documents.parse(text, Path("page.md"))[1].strip()
    return text
