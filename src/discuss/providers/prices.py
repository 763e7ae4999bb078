"""litellm's price table, read from the JSON file litellm ships, without importing litellm (seconds, 170 MB).

`doctor` and `--estimate` only need to know whether a model is priced and
at what rate per token; reading the table they would make litellm read
costs tens of milliseconds. A call still goes through litellm where it
goes there, and is priced by litellm after it.
"""

from __future__ import annotations

import json
import os
from functools import cache
from importlib.util import find_spec
from typing import Any


@cache
def _text() -> bytes:
    """The table's file as it is (3.5 MB); b"" without litellm."""
    found = find_spec("litellm")
    if found is None or not found.submodule_search_locations:
        return b""
    path = os.path.join(list(found.submodule_search_locations)[0], "model_prices_and_context_window_backup.json")
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


@cache
def price_table() -> dict[str, Any]:
    """litellm's table of models and their prices (the copy it ships and reads offline); {} without litellm."""
    try:
        table = json.loads(_text() or b"{}")
    except ValueError:
        return {}
    return {k: v for k, v in table.items() if isinstance(v, dict)} if isinstance(table, dict) else {}


@cache
def may_list(name: str) -> bool:
    """False where the table's text never spells `name` as a JSON string, so it lists no model of that name:
    a model on a server of one's own is told apart without parsing the table (a twentieth of a second before
    a run's first request). True where it may, or where the name could be spelt with escapes."""
    if not name.isascii():
        return True
    quoted = json.dumps(name).encode()
    text = _text()
    return quoted in text or (b"/" in quoted and quoted.replace(b"/", b"\\/") in text)


def entry(model: str) -> dict[str, Any] | None:
    """The table's entry for `model`, as litellm finds it: the whole name, else the name after the provider."""
    name = model.partition("/")[2]
    if not may_list(model) and not (name and may_list(name)):
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
