"""The theme's search entries of each page, reused while what they are made of is unchanged.

Material's search plugin parses every page's HTML on every build; `mkdocs
serve` rebuilds every page after one edit, and that parse was half of such a
rebuild. `remember` wraps the plugin's index so that a page whose entries
this process made before, from the same text, address, title, table of
contents, metadata and search settings, gets those entries again instead of
a second parse of the same text.

It promises the index a build without it makes, entry for entry and in the
same order: the entries are a function of what the key holds (the search
plugin reads nothing else of a page), and any other search plugin, or a
version of the theme whose index is not shaped as expected, is left alone.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

# Entries by page source: the digest of what they were made from, and the entries (plain dicts).
_MADE: dict[str, tuple[str, list[dict]]] = {}


def remember(plugins: Any) -> bool:
    """Wrap the index of the theme's search plugin among `plugins` (MkDocs' plugin collection, after every
    plugin's `on_config`, which makes a new index each build); False when there is none to wrap."""
    for plugin in plugins.values():
        index = getattr(plugin, "search_index", None)
        if (type(plugin).__module__ == "material.plugins.search.plugin" and index is not None
                and isinstance(getattr(index, "entries", None), list)
                and callable(getattr(type(index), "add_entry_from_context", None))):
            settings = json.dumps(dict(plugin.config), sort_keys=True, default=str)
            index.add_entry_from_context = _reusing(index, settings)
            return True
    return False


def _reusing(index: Any, settings: str):
    parse = type(index).add_entry_from_context

    def add_entry_from_context(page) -> None:
        key = _digest(page, settings)
        made = _MADE.get(page.file.src_uri)
        if made is not None and made[0] == key:
            index.entries.extend(dict(x) for x in made[1])
            return
        start = len(index.entries)
        parse(index, page)
        _MADE[page.file.src_uri] = (key, [dict(x) for x in index.entries[start:]])

    return add_entry_from_context


def _digest(page, settings: str) -> str:
    """Everything the search plugin reads of `page` to make its entries, and its settings."""
    meta = {k: page.meta.get(k) for k in ("title", "tags", "search")}
    held = json.dumps([page.url, str(page.title), meta, _toc(page.toc), settings], default=str)
    return hashlib.sha256(held.encode() + b"\0" + page.content.encode("utf-8", "surrogatepass")).hexdigest()


def _toc(items) -> list:
    return [[x.id, x.title, x.url, _toc(x.children)] for x in items or ()]


def forget() -> None:
    """Drop the entries this process made: the next build parses every page, as a new process does."""
    _MADE.clear()
