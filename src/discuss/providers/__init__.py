"""Who answers a call: one seam, several providers.

A provider turns a `CallSpec` into a `Completion` (text and usage).
`litellm` reaches real models (and is the only module that imports
litellm); `openai_http` reaches OpenAI-compatible servers of models litellm
does not know, without it; `offline` plays the simulated panel; `scripted`
follows a script per panelist; `estimator` answers with worst-case stand-ins
to price a run. Each is a plugin of the `discuss.providers` group
(`registry.py`), as another package's would be; the gateway asks
`route(panelist)` for the provider of each call and knows none of them by
name.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from ..domain import Panelist
from ..errors import InputError
from .base import Completion, Diagnosis, Local, OnTokens, Provider, TransientError, Waiting, Where
from .registry import plugin_for

T = TypeVar("T")

__all__ = ["Completion", "Diagnosis", "Local", "OnTokens", "Provider", "TransientError", "Waiting", "route"]

def route(p: Panelist, scripts: Path | None = None, people: Provider | None = None,
          mark_cache: bool = True) -> Provider:
    """The provider that answers for `p`; `scripts` is the folder of the scripted panel's scripts,
    `people` the one that turns a person's calls into forms in their discussion's folder, `mark_cache`
    whether prompts are marked for providers that cache only marked prefixes."""
    return plugin_for(p).provider(Where(scripts, people, mark_cache))


def run(work: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(work)`, closing on the way out the connections its calls kept open."""
    # The light client (about 35 ms) loads only for a run, not for `panels` or `doctor`.
    from .openai_http import close_pool

    async def whole() -> T:
        try:
            return await work
        finally:
            await close_pool()

    return asyncio.run(whole())


def price(p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
    return route(p).price(p, prompt_tokens, completion_tokens)


def key_names(panelists: list[Panelist]) -> list[str]:
    """Every variable these panelists read a key from, set here or not: the secrets a CI needs."""
    import os

    saved = dict(os.environ)
    try:
        for name in [k for k in os.environ if k.endswith(("_KEY", "_TOKEN", "_SECRET"))]:
            del os.environ[name]  # so that every key a panelist reads shows as missing
        return sorted({m.split(" ")[0] for m in missing_keys(panelists)})
    finally:
        os.environ.clear()
        os.environ.update(saved)


def missing_keys(panelists: list[Panelist]) -> list[str]:
    by_provider: dict[int, tuple[Provider, list[Panelist]]] = {}
    for p in panelists:
        provider = route(p)
        by_provider.setdefault(id(provider), (provider, []))[1].append(p)
    return [m for provider, members in by_provider.values() for m in provider.missing_keys(members)]


def unroutable(panelists: list[Panelist]) -> list[Panelist]:
    """The panelists whose model no provider can reach (an unknown provider's prefix, no address given)."""
    lost: list[Panelist] = []
    for p in panelists:
        if (check := getattr(route(p), "unroutable", None)) is not None:  # optional: a plugin may not say
            lost += check([p])
    return lost


def check_keys(panelists: list[Panelist]) -> None:
    missing = missing_keys(panelists)
    if missing:
        raise InputError("missing API key: set " + ", ".join(missing) + " in the environment")
