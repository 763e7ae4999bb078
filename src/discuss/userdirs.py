"""Where discuss keeps this user's files outside every project: its cache.

Nothing a pull request brings is ever read as kept, because nothing kept
lives in the project; a folder another user could write in is not used.
"""

from __future__ import annotations

import os
from pathlib import Path


def user_cache(*parts: str, make: bool = True) -> Path | None:
    """A folder of this user's cache for discuss (under `$XDG_CACHE_HOME`, else ~/.cache): outside every
    project, so nothing a pull request brings is ever read as kept. `make`: created private to this user,
    and None where it cannot be, or where another user could write in it (then nothing is kept)."""
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "discuss", *parts)
    if not make:
        return folder
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        found = folder.stat()
    except OSError:
        return None
    return folder if found.st_uid == os.getuid() and not found.st_mode & 0o022 else None


def folder_key(folder: Path) -> str:
    """A short name for `folder` as this machine resolves it, for the files kept about it outside it."""
    import hashlib

    return hashlib.sha256(str(folder.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:24]
