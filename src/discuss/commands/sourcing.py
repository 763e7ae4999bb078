"""`discuss sources add` and `sources search`: pages fetched once and frozen into reviewed files.

`add` fetches each address under the page policy (`providers/pages.py`),
keeps its readable text as `sources/<question>/<name>.md` and lists it in
the question's `sources:` (in place of the address, where the question named
it). `search` asks the search endpoint `panels.yaml` names (`search: {url,
keyEnv, kind}`: SearXNG's JSON API, Brave Search or Tavily, or any that
answers in one of their shapes), lists what it found, and freezes the
results chosen with `add`, the query recorded beside each.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..store.layout import Layout

MAX_RESULTS = 20


def add(layout: Layout, question: str, urls: list[str], allow_private: bool = False,
        query: str | None = None) -> list[dict[str, Any]]:
    """Freeze each page; a row per page: {url, finalUrl, path, sha256, characters, redirects}."""
    from ..providers.pages import fetch
    from ..store.frozen import freeze, listed, readable
    from ..store.questions import find_question

    if not urls:
        raise InputError("give one or more web addresses to freeze")
    q = find_question(layout.content, question)
    rows = []
    for url in urls:
        page = fetch(url.strip(), allow_private=allow_private)
        text = readable(page.kind, page.data, page.final_url)
        path = freeze(layout.root, q.slug, page, text)
        if query:
            _note_query(path, query)
        entry = os.path.relpath(path, q.path.parent).replace(os.sep, "/")
        listed(q.path, entry, replaces=url.strip())
        rows.append({"url": page.url, "finalUrl": page.final_url, "path": path.relative_to(layout.root).as_posix(),
                     "sha256": _meta(path)["sha256"], "characters": len(text), "redirects": page.redirects})
    return rows


def _meta(path: Path) -> dict[str, Any]:
    from ..store import documents

    return documents.read(path)[0]


def _note_query(path: Path, query: str) -> None:
    from ..store import documents
    from ..store.files import write_atomic

    meta, body = documents.read(path)
    write_atomic(path, documents.render({**meta, "query": query}, body))


def search(layout: Layout, question: str, query: str, count: int = 10, add_numbers: list[int] | None = None,
           allow_private: bool = False) -> dict[str, Any]:
    """What the search endpoint found for `query`, numbered from 1; those numbered in `add_numbers` frozen."""
    from ..store.questions import find_question

    if not query.strip():
        raise InputError("give a query")
    if not 1 <= count <= MAX_RESULTS:
        raise InputError(f"--count: 1 to {MAX_RESULTS}")
    find_question(layout.content, question)  # refused before any request, as add would
    results = _ask_engine(layout, query, count)
    added = []
    if add_numbers:
        if bad := [n for n in add_numbers if not 1 <= n <= len(results)]:
            raise InputError(f"--add {bad[0]}: there are {len(results)} result(s)")
        added = add(layout, question, [results[n - 1]["url"] for n in add_numbers], allow_private, query=query)
    return {"query": query, "results": results, "added": added}


def _ask_engine(layout: Layout, query: str, count: int) -> list[dict[str, str]]:
    """The configured endpoint's results, as {title, url, snippet}; the key from the environment only."""
    import httpx

    from ..store.panels import load_search
    from ..text.secrets import mask_url, scrub

    engine = load_search(layout.panels)
    if engine is None:
        raise InputError(f"{layout.panels}: no search endpoint; add `search: {{url: http://localhost:8888, kind: "
                         "searxng}}` (or kind brave or tavily, with keyEnv: the variable holding its key)")
    key = os.environ.get(engine["keyEnv"], "") if engine.get("keyEnv") else ""
    if engine.get("keyEnv") and not key:
        raise InputError(f"the search endpoint's key: set {engine['keyEnv']} in the environment")
    kind, url = engine["kind"], engine["url"].rstrip("/")
    try:
        with httpx.Client(follow_redirects=False, trust_env=False, timeout=20.0) as client:
            if kind == "tavily":
                response = client.post(url + "/search", json={"query": query, "max_results": count},
                                       headers={"Authorization": f"Bearer {key}"} if key else {})
            elif kind == "brave":
                response = client.get(url + "/res/v1/web/search", params={"q": query, "count": count},
                                      headers={"X-Subscription-Token": key} if key else {})
            else:
                response = client.get(url + "/search", params={"q": query, "format": "json"})
            response.raise_for_status()
            data = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise InputError(scrub(f"the search endpoint {mask_url(url)} failed: {exc}")) from None
    raw = (data.get("web") or {}).get("results") if kind == "brave" else data.get("results")
    rows = []
    for r in raw if isinstance(raw, list) else []:
        if isinstance(r, dict) and isinstance(r.get("url"), str) and r["url"].startswith(("http://", "https://")):
            rows.append({"title": str(r.get("title") or "")[:300], "url": r["url"][:2000],
                         "snippet": str(r.get("content") or r.get("description") or "")[:500]})
    return rows[:count]
