"""Text from outside (models, providers, files) made safe to keep and to show.

`clean` is applied once, where text enters: lone UTF-16 surrogates (half an
emoji cut at max_tokens, or a JSON escape) become U+FFFD so every write can
encode them, and terminal control sequences and other control characters
are removed so no reply or error can retitle, clear or recolour a terminal.
Tabs and line breaks stay.
"""

from __future__ import annotations

import re

SURROGATE = re.compile("[\ud800-\udfff]")
# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), and two-character escapes.
ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_]?)")
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


# Characters that change how the text around them reads without being seen: direction overrides, embeddings,
# isolates and marks, zero-width spaces, the word joiner, a byte-order mark.
INVISIBLE = re.compile("[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def visible(text: str) -> str:
    """`text` with every invisible character that could reorder or hide what a reader sees shown by name
    (`[U+202E]`): what a published title, name or reply says is what it shows."""
    return INVISIBLE.sub(lambda m: f"[U+{ord(m.group()):04X}]", text) if INVISIBLE.search(text) else text


def valid_unicode(text: str) -> str:
    return SURROGATE.sub("\ufffd", text)


def clean(text: str) -> str:
    """Valid Unicode without control sequences; tabs, newlines and carriage returns kept."""
    return CONTROL.sub("", ESCAPE.sub("", valid_unicode(text)))


THINKING = re.compile(r"<(think|thinking|reasoning)>.*?(?:</\1>|\Z)", re.DOTALL | re.IGNORECASE)


def without_thinking(text: str) -> str:
    """A reply without the `<think>...</think>` blocks reasoning models put before their answer.

    An unclosed block (the model ran out of tokens while thinking) is all
    thinking: nothing of it is an answer.
    """
    if "<" not in text:
        return text
    return THINKING.sub("", text).lstrip("\n")


def encode(text: str) -> bytes:
    """UTF-8 that never fails on content: a lone surrogate that got this far becomes U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return valid_unicode(text).encode("utf-8")
