"""Names that become file names: slugs, and the checks that keep them in their folder."""

from __future__ import annotations

import difflib
import re
import unicodedata

SAFE_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")


def slugify(text: str, max_len: int = 80) -> str:
    """A lowercase, dash-separated name safe for any file system."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:max_len].rstrip("-")


def did_you_mean(name: str, known: list[str]) -> str:
    """'; did you mean x or y?' for the known names closest to a mistyped one, else ''."""
    close = difflib.get_close_matches(name, sorted(set(known)), n=3)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def is_safe_id(value: str) -> bool:
    """True for names that cannot leave their folder or hide as dot-files."""
    return bool(SAFE_ID.match(value)) and ".." not in value


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)
