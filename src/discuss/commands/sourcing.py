"""`discuss sources add` and `sources search`: pages fetched once and frozen into reviewed files.

`add` fetches each address under the page policy (`providers/pages.py`),
keeps its readable text as `sources/<question>/<name>.md` and lists it in
the question's `sources:` (in place of the address, where the question named
it). `search` asks the search endpoint `panels.yaml` names (`search: {url,
keyEnv, kind}`: SearXNG's JSON API, Brave Search or Tavily, or any that
answers in one of their shapes), lists what it found, and freezes the
results chosen with `add`, the query recorded beside each. The endpoint is
asked under the pages' limits (size, unpacking, one deadline) and what it
says is outside text: its titles and snippets are cleaned of control
characters and terminal escapes before anything shows them.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from ..errors import InputError
from ..providers.fetch import Exchange
from ..providers.pages import MAX_PAGE_BYTES, fetch
from ..providers.policy import PolicyError
from ..store import documents
from ..store.files import write_atomic
from ..store.frozen import freeze, frozen_as, listed, readable, title_of
from ..store.layout import Layout
from ..store.panels import load_search
from ..store.questions import find_question
from ..text.clean import clean
from ..text.secrets import mask_url, scrub
from .results import Result

MAX_RESULTS = 20
SEARCH_DEADLINE = 20.0  # seconds for the endpoint's whole reply


@dataclass
class FrozenPage(Result):
    """A page kept as a source: where it was asked and found, its file, its digest and size, and whether it
    was frozen before (and kept as it was)."""

    url: str
    final_url: str
    path: str
    sha256: str
    characters: int
    redirects: list[str]
    already: bool


@dataclass
class NotFrozen(Result):
    url: str
    error: str


@dataclass
class Frozen(Result):
    frozen: list[FrozenPage]
    failed: list[NotFrozen]


@dataclass
class Found(Result):
    """A search result, as one line each of outside text made safe to print."""

    title: str
    url: str
    snippet: str


@dataclass
class Searched(Result):
    query: str
    results: list[Found]
    added: list[FrozenPage]
    failed: list[NotFrozen]


def add(layout: Layout, question: str, urls: list[str], allow_private: bool = False,
        query: str | None = None, refresh: bool = False) -> Frozen:
    """Freeze each page, each on its own: `{frozen: [{url, finalUrl, path, sha256, characters, redirects,
    already}], failed: [{url, error}]}`. An address frozen before is kept as it is (`already`), listed in the
    question if it was not; with `refresh` it is fetched again as a new edition beside the earlier one, which
    is never written over. InputError where none could be kept (nothing was then written)."""
    if not urls:
        raise InputError("give one or more web addresses to freeze")
    frozen, failed = _freeze_each(layout, find_question(layout.content, question), urls, allow_private, query, refresh)
    if not frozen:
        raise InputError("; ".join(f"{f.url}: {f.error}" for f in failed) + "; nothing was kept")
    return Frozen(frozen, failed)


def _freeze_each(layout: Layout, q: Any, urls: list[str], allow_private: bool, query: str | None,
                 refresh: bool) -> tuple[list[FrozenPage], list[NotFrozen]]:
    """Each page frozen on its own: the rows of those kept, and `{url, error}` for those that could not be."""
    frozen, failed = [], []
    for url in (u.strip() for u in urls):
        try:
            frozen.append(_freeze_one(layout, q, url, allow_private, query, refresh))
        except InputError as exc:  # said of this page alone: the others are kept
            said = str(exc).removesuffix("; nothing was kept")
            failed.append(NotFrozen(url, said.removeprefix(url).lstrip(": ") or said))
    return frozen, failed


def _freeze_one(layout: Layout, q: Any, url: str, allow_private: bool, query: str | None,
                refresh: bool) -> FrozenPage:
    earlier = frozen_as(layout.root, q.slug, url)
    if earlier is not None and not refresh:
        path, already = earlier, True
        meta, text = _meta(path), _body(path)
        finals, redirects = str(meta.get("finalUrl") or url), list(meta.get("redirects") or [])
    else:
        page = fetch(url, allow_private=allow_private)
        text = readable(page.kind, page.data, page.final_url, page.charset)
        path, already = freeze(layout.root, q.slug, page, text, title_of(page.kind, page.data, page.charset)), False
        if query:
            _note_query(path, query)
        finals, redirects = page.final_url, page.redirects
    entry = os.path.relpath(path, q.path.parent).replace(os.sep, "/")
    previous = os.path.relpath(earlier, q.path.parent).replace(os.sep, "/") if earlier is not None else None
    listed(q.path, entry, replaces=previous if previous is not None and not already else url)
    return FrozenPage(url, finals, path.relative_to(layout.root).as_posix(), _meta(path)["sha256"], len(text),
                      redirects, already)


def _body(path: Path) -> str:
    return documents.read(path)[1].strip()


def _meta(path: Path) -> dict[str, Any]:
    return documents.read(path)[0]


def _note_query(path: Path, query: str) -> None:
    meta, body = documents.read(path)
    write_atomic(path, documents.render({**meta, "query": query}, body))


def search(layout: Layout, question: str, query: str, count: int = 10, add_numbers: list[int] | None = None,
           allow_private: bool = False) -> Searched:
    """What the search endpoint found for `query`, numbered from 1, and those numbered in `add_numbers` frozen
    (`added`), each on its own: those that could not be are in `failed` with why."""
    if not query.strip():
        raise InputError("give a query")
    if not 1 <= count <= MAX_RESULTS:
        raise InputError(f"--count: 1 to {MAX_RESULTS}")
    q = find_question(layout.content, question)  # refused before any request, as add would
    results = _ask_engine(layout, query, count)
    if bad := [n for n in add_numbers or [] if not 1 <= n <= len(results)]:
        raise InputError(f"--add {bad[0]}: there are {len(results)} result(s)")
    added, failed = _freeze_each(layout, q, [results[n - 1].url for n in add_numbers or []], allow_private, query,
                                 False)
    return Searched(query, results, added, failed)


def _ask_engine(layout: Layout, query: str, count: int) -> list[Found]:
    """The configured endpoint's results, as {title, url, snippet}; the key from the environment only."""
    engine = load_search(layout.panels)
    if engine is None:
        raise InputError(f"{layout.panels}: no search endpoint; add `search: {{url: http://localhost:8888, kind: "
                         "searxng}}` (or kind brave or tavily, with keyEnv: the variable holding its key)")
    key = os.environ.get(engine["keyEnv"], "") if engine.get("keyEnv") else ""
    if engine.get("keyEnv") and not key:
        raise InputError(f"the search endpoint's key: set {engine['keyEnv']} in the environment")
    kind, url = engine["kind"], engine["url"].rstrip("/")
    if kind == "tavily":
        data = _ask(url, "POST", url + "/search", {"Authorization": f"Bearer {key}"} if key else {},
                    {"query": query, "max_results": count})
    elif kind == "brave":
        data = _ask(url, "GET", f"{url}/res/v1/web/search?{urlencode({'q': query, 'count': count})}",
                    {"X-Subscription-Token": key} if key else {})
    else:
        data = _ask(url, "GET", f"{url}/search?{urlencode({'q': query, 'format': 'json'})}", {})
    raw = (data.get("web") or {}).get("results") if kind == "brave" else data.get("results")
    rows = []
    for r in raw if isinstance(raw, list) else []:
        if isinstance(r, dict) and isinstance(r.get("url"), str) and r["url"].startswith(("http://", "https://")):
            rows.append(Found(_line(r.get("title"), 300), _line(r["url"], 2000),
                              _line(r.get("content") or r.get("description"), 500)))
    return rows[:count]


def _line(value: Any, most: int) -> str:
    """A search result's field as one line of text that is safe to print (the endpoint's words are outside
    text: no terminal escapes, control characters or line breaks)."""
    return " ".join(clean(str(value or "")).split())[:most]


def _ask(base: str, method: str, url: str, headers: dict[str, str], payload: Any = None) -> dict[str, Any]:
    """The endpoint's JSON reply, asked under the pages' limits (one deadline, size, unpacking); the endpoint
    is the project's own setting, so an address on this machine (SearXNG's) is allowed."""
    import json


    body = json.dumps(payload).encode() if payload is not None else b""
    sent = {**headers, "Content-Type": "application/json"} if body else headers
    try:
        with Exchange(method, url, ends=time.monotonic() + SEARCH_DEADLINE, seconds=SEARCH_DEADLINE,
                      limit=MAX_PAGE_BYTES, allow_private=True, headers=sent, body=body,
                      what="the search reply") as reply:
            if not 200 <= reply.status < 300:
                raise PolicyError(f"it answered {reply.status}" + (", a redirect, which is never followed"
                                                                   if 300 <= reply.status < 400 else ""))
            data = json.loads(reply.read())
    except (PolicyError, ValueError) as exc:
        raise InputError(scrub(f"the search endpoint {mask_url(base)} failed: {exc}")) from None
    if not isinstance(data, dict):
        raise InputError(f"the search endpoint {mask_url(base)} failed: its reply is not a JSON object")
    return data
