"""Keeping keys out of what we write: every reply and error text passes through `scrub`.

Keys live in the environment only. A provider may echo a key whole or in
part, so any run of `MIN_RUN` or more characters of a known secret is
replaced, not only the whole key.
"""

from __future__ import annotations

import os

from .domain import Panelist

SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")
MIN_SECRET = 6
# A run of this many characters of a secret is taken as a leak of it.
MIN_RUN = 8


def known_secrets(p: Panelist | None = None) -> list[str]:
    names = [p.api_key_env] if p is not None and p.api_key_env else []
    names += [n for n in os.environ if n.endswith(SUFFIXES)]
    return [os.environ[n] for n in names if n and len(os.environ.get(n, "")) >= MIN_SECRET]


def leaked_spans(text: str, secret: str) -> list[tuple[int, int]]:
    """Spans of `text` made of runs of MIN_RUN or more characters of `secret` (the whole of a shorter one)."""
    size = min(MIN_RUN, len(secret))
    windows = {secret[i:i + size] for i in range(len(secret) - size + 1)}
    if not any(w in text for w in windows):  # substring search in C: the common case costs little
        return []
    spans: list[tuple[int, int]] = []
    for i in range(len(text) - size + 1):
        if text[i:i + size] in windows:
            if spans and spans[-1][1] >= i:
                spans[-1] = (spans[-1][0], i + size)
            else:
                spans.append((i, i + size))
    return spans


def scrub(text: str, p: Panelist | None = None) -> str:
    for secret in known_secrets(p):
        for start, end in reversed(leaked_spans(text, secret)):
            text = text[:start] + "[redacted]" + text[end:]
    return text
