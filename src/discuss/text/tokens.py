"""Counting tokens before a call: an upper bound that holds for every script.

Budgets, the cuts of answers on ballots and in the thread, and `--estimate`
need the tokens a text will cost before any provider counts them. Four
characters a token holds for English prose only: Japanese takes about one
token a character, emoji two or three, code one per two or three
characters. So a text is counted with OpenAI's cl100k tokenizer (tiktoken,
installed with litellm, read from the copy litellm ships: never fetched)
plus a margin for other vendors' tokenizers (Anthropic's counted up to 18%
more on the scripts measured), and never above its UTF-8 bytes, which bound
every byte-level tokenizer. Without the tokenizer the count is the bytes.
"""

from __future__ import annotations

import math
import os
import threading
from functools import cache, lru_cache
from importlib.util import find_spec
from typing import Any

MARGIN = 1.25  # over cl100k, for tokenizers that split more finely
CL100K_FILE = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"  # tiktoken's cache name for cl100k_base


LOADING = threading.Lock()  # a second caller waits for the first load rather than loading again


def preload() -> None:
    """Load the tokenizer in the background (0.3 s), while a run's first requests are out."""
    threading.Thread(target=encoding, daemon=True).start()


def encoding() -> Any | None:
    with LOADING:
        return loaded()


@cache
def loaded() -> Any | None:
    """cl100k from the copy litellm ships, or None (no tiktoken, no copy): never from the network."""
    try:
        found = find_spec("litellm")
        if found is None or not found.submodule_search_locations:
            return None
        folder = os.path.join(list(found.submodule_search_locations)[0], "litellm_core_utils", "tokenizers")
        if not os.path.isfile(os.path.join(folder, CL100K_FILE)):
            return None
        import tiktoken

        before = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = folder
        try:
            return tiktoken.get_encoding("cl100k_base")
        finally:
            if before is None:
                del os.environ["TIKTOKEN_CACHE_DIR"]
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = before
    except Exception:  # a broken or partial install: count bytes
        return None


def count(text: str) -> int:
    """At least the tokens `text` costs with the usual tokenizers; at most its UTF-8 bytes."""
    return _counted(text, encoding())


# Every panelist's prompt shows the same earlier answers, each counted to fit the thread: once is enough.
@lru_cache(maxsize=4096)
def _counted(text: str, enc: Any | None) -> int:
    return _measure(text, enc)


def _measure(text: str, enc: Any | None) -> int:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size == 0:
        return 0
    if enc is None:
        return size
    return min(size, math.ceil(len(enc.encode(text, disallowed_special=())) * MARGIN))


def fitting(text: str, tokens: int) -> int:
    """How many characters of `text`, from its start, `count` puts within `tokens`."""
    if count(text) <= tokens:
        return len(text)
    enc = encoding()
    low, high = 0, len(text)  # count(text[:low]) <= tokens < count(text[:high])
    while high - low > 1:
        middle = (low + high) // 2
        if _measure(text[:middle], enc) <= tokens:  # starts of one text, never asked for again
            low = middle
        else:
            high = middle
    return low
