"""litellm's price table, read from the JSON file litellm ships, without importing litellm (seconds, 170 MB).

`doctor` and `--estimate` only need to know whether a model is priced and
at what rate per token; reading the table they would make litellm read
costs tens of milliseconds. A call still goes through litellm where it
goes there, and is priced by litellm after it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from functools import cache
from importlib.util import find_spec
from typing import Any

from ..store.files import write_atomic
from ..userdirs import user_cache


def _table_file() -> str | None:
    """Where litellm's copy of the table is; None without litellm."""
    found = find_spec("litellm")
    if found is None or not found.submodule_search_locations:
        return None
    return os.path.join(list(found.submodule_search_locations)[0], "model_prices_and_context_window_backup.json")


@cache
def price_table() -> dict[str, Any]:
    """litellm's table of models and their prices (the copy it ships and reads offline); {} without litellm."""
    path = _table_file()
    try:
        with open(path or "", "rb") as f:
            table = json.loads(f.read())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in table.items() if isinstance(v, dict)} if isinstance(table, dict) else {}


@cache
def listed() -> frozenset[str]:
    """The names the table lists, kept in the user's cache under the table file's size and time: a run tells
    a model on a server of one's own apart without reading the table's 3.5 MB (parsing it takes 25 ms,
    searching its text for each name 3 ms)."""
    path = _table_file()
    try:
        found = os.stat(path or "")
    except OSError:
        return frozenset()
    digest = hashlib.sha256(f"{path}\0{found.st_size}\0{found.st_mtime_ns}".encode("utf-8", "surrogatepass"))
    folder = user_cache("prices")
    kept = folder / f"{digest.hexdigest()[:32]}.json" if folder else None
    try:
        names = json.loads(kept.read_bytes()) if kept else None
    except (OSError, ValueError):
        names = None
    if isinstance(names, list) and all(isinstance(x, str) for x in names):
        return frozenset(names)
    names = sorted(price_table())
    if kept:
        with contextlib.suppress(OSError):
            write_atomic(kept, json.dumps(names))
    return frozenset(names)


def entry(model: str) -> dict[str, Any] | None:
    """The table's entry for `model`, as litellm finds it: the whole name, else the name after the provider."""
    name = model.partition("/")[2]
    if model not in listed() and not (name and name in listed()):
        return None
    table = price_table()
    return table.get(model) or (table.get(name) if name else None)


def table_price(model: str, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float | None:
    """What the tokens cost at the table's rates, prompt tokens read from the provider's cache at their own
    rate where it gives one; None where the table gives the model no price."""
    found = entry(model) or {}
    rate_in, rate_out = found.get("input_cost_per_token"), found.get("output_cost_per_token")
    if not isinstance(rate_in, int | float) or not isinstance(rate_out, int | float):
        return None
    rate_cached = found.get("cache_read_input_token_cost")
    cached = min(max(cached_tokens, 0), prompt_tokens) if isinstance(rate_cached, int | float) else 0
    return ((prompt_tokens - cached) * float(rate_in) + cached * float(rate_cached or 0.0)
            + completion_tokens * float(rate_out))


def same_provider(provider: str) -> list[str]:
    """The names of the table's models of `provider`, for a did-you-mean."""
    return [k.split("/", 1)[-1] for k, v in price_table().items() if v.get("litellm_provider") == provider]
