"""Keeping keys out of what we write: every error text passes through `scrub`.

Keys live in the environment only. A provider may echo a key whole or in
part, so any run of `MIN_RUN` or more characters of a known secret is
replaced, not only the whole key.
"""

from __future__ import annotations

import os

from .domain import Panelist

SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")
MIN_SECRET = 6


def known_secrets(p: Panelist | None = None) -> list[str]:
    names = [p.api_key_env] if p is not None and p.api_key_env else []
    names += [n for n in os.environ if n.endswith(SUFFIXES)]
    return [os.environ[n] for n in names if n and len(os.environ.get(n, "")) >= MIN_SECRET]


def scrub(text: str, p: Panelist | None = None) -> str:
    for secret in known_secrets(p):
        text = text.replace(secret, "[redacted]")
    return text
