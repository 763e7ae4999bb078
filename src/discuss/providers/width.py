"""How many requests at once a model server on this machine says it takes, asked once before a run's first
request to it: llama.cpp's server its `total_slots` at /props, vLLM (its model listing says `owned_by: vllm`)
as many as are sent. A plain `http` server is asked over plain_http.py's connections, so a run on a local
model never loads httpx for it. Any failure to ask is an answer of None: the server said nothing.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from . import plain_http
from .plain_http import ConnectionFailed
from .policy import PolicyError

VLLM_WIDTH = 64  # vLLM batches what it is sent and says no limit: as many at once as a panel asks


async def server_width(api_base: str, seconds: float = 2.0) -> int | None:
    """The server's width; None where it says nothing (ollama, llama-cpp-python...) or cannot be asked."""
    base = api_base.rstrip("/")
    root = base[:-3] if base.endswith("/v1") else base
    try:
        props = await _get_json(root + "/props", seconds)
        slots = props.get("total_slots") if isinstance(props, dict) else None
        if isinstance(slots, int) and not isinstance(slots, bool) and slots >= 1:
            return min(slots, 256)
        listing = await _get_json(base + "/models", seconds)
        data = listing.get("data") if isinstance(listing, dict) else None
        if isinstance(data, list) and any(isinstance(m, dict) and m.get("owned_by") == "vllm" for m in data):
            return VLLM_WIDTH
    except _failures():
        return None
    return None


async def _get_json(url: str, seconds: float) -> Any:
    """A GET under the HTTP policy, within `seconds`: the reply's JSON, None where the status is not 200."""
    if plain_http.takes(url):
        client = plain_http.PlainClient(url, keepalive=0.0)
        try:
            async with client.stream("GET", url, json=None, headers={}, timeout=seconds) as reply:
                body = b"".join([chunk async for chunk in reply.aiter_bytes()])
        finally:
            await client.aclose()
        return json.loads(body) if reply.status_code == 200 else None

    from .http import async_client  # httpx: only for a server plain_http does not take

    async with async_client() as session:
        answer = await session.get(url, timeout=seconds)
        return answer.json() if answer.status_code == 200 else None


def _failures() -> tuple[type[BaseException], ...]:
    httpx = sys.modules.get("httpx")  # its errors can only come from an httpx already imported
    return (ConnectionFailed, PolicyError, OSError, ValueError, *((httpx.HTTPError,) if httpx is not None else ()))
