"""Which models take the light HTTP client, and where they are served: names and a price table only.

Kept apart from the client so that listing panels (`discuss panels`) or routing a call decides without
importing httpx.
"""

from __future__ import annotations

import os
import re
from functools import cache

from ..domain import Panelist
from .prices import entry

PREFIX = "openai/"
# Names litellm treats as OpenAI's reasoning models by their shape, listed or not: their parameters differ.
REASONING_NAMES = re.compile(r"^(o\d|gpt-5)")
OPENAI_BASE = "https://api.openai.com/v1"
OPENAI_KEY = "OPENAI_API_KEY"


def serves(p: Panelist) -> bool:
    """Whether `p`'s calls take the light path: an `openai/` model litellm does not know, at its own server,
    or one of OpenAI's chat models."""
    if os.environ.get("DISCUSS_CLIENT") == "litellm" or REASONING_NAMES.match(model_name(p)):
        return False
    if hosted(p):
        return True
    return bool(p.api_base and p.model.startswith(PREFIX)) and not known_to_litellm(p.model)


def model_name(p: Panelist) -> str:
    """The name the server knows the model by: without `openai/`."""
    return p.model.removeprefix(PREFIX)


@cache
def _openai_chat(model: str) -> bool:
    found = entry(model.removeprefix(PREFIX)) or {}
    return found.get("litellm_provider") == "openai" and found.get("mode") == "chat"


def hosted(p: Panelist) -> bool:
    """Whether `p` names one of OpenAI's chat models as litellm's table lists them (`gpt-4o`, `openai/gpt-4o`)."""
    return ("/" not in p.model or p.model.startswith(PREFIX)) and _openai_chat(p.model)


def base_of(p: Panelist) -> str:
    return p.api_base or (OPENAI_BASE if hosted(p) else "")


def key_variable(p: Panelist) -> str | None:
    """Where `p`'s key is: its own `api_key_env`, else OpenAI's usual variable for OpenAI's models at OpenAI."""
    return p.api_key_env or (OPENAI_KEY if hosted(p) and not p.api_base else None)


def known_to_litellm(model: str) -> bool:
    """Whether litellm's price table lists `model`, with or without its `openai/`."""
    return entry(model) is not None
