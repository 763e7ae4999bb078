"""Rendered question pages kept between builds, so a build renders only the discussions that changed.

What the plugin adds to a question page is kept in a file named by a digest
of everything it is made of: the bytes of the page's files (the question, every
file under its folder, the sources its discussions record), the plugin's
settings, and the code that renders them (discuss's version and files, each
protocol's package, the Markdown, sanitiser and template libraries, Python's
version). A change to any of those asks for another file, so nothing kept is
ever shown for what changed; a file that cannot be read as written is
rendered again. The files live in this user's cache folder, one folder per
docs folder and never inside the project (a pull request cannot plant one),
and a full build removes those it did not ask for.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .. import __version__
from ..protocols import get_protocol
from ..store.files import write_kept
from ..userdirs import folder_key, user_cache

FORMAT = "1"  # what a kept file holds; a new format asks for new files
LIBRARIES = ("markdown", "nh3", "jinja2", "markupsafe")


def default_folder(docs_dir: Path) -> Path | None:
    """This user's cache folder for the site of `docs_dir`, private to them; None where it cannot be."""
    return user_cache("site", folder_key(docs_dir))


def _tree(folder: Path) -> list[str]:
    """Each file under `folder` as (name, size, modification time): an edit or a reinstall changes it."""
    out = []
    for top, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            try:
                s = os.stat(os.path.join(top, name))
            except OSError:
                continue
            out.append(f"{os.path.relpath(os.path.join(top, name), folder)}:{s.st_size}:{s.st_mtime_ns}")
    return out


def code_digest(protocols: Iterable[str]) -> str:
    """The code a page is rendered with: discuss's files and version, the packages of `protocols` (a
    plugin's partials and figures), the libraries that render and clean its text, and Python's version."""
    from importlib.metadata import PackageNotFoundError, version


    own = Path(__file__).resolve().parent.parent
    parts = [FORMAT, __version__, platform.python_version(), *_tree(own)]
    for name in LIBRARIES:
        try:
            parts.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name}=?")
    for name in sorted(set(protocols)):
        try:
            module = sys.modules[type(get_protocol(name)).__module__]
        except Exception:  # noqa: BLE001 - an unknown protocol renders as an error page; its name is its key
            parts.append(f"protocol {name}: unknown")
            continue
        folder = Path(module.__file__ or ".").resolve().parent
        if not folder.is_relative_to(own):
            parts += [f"protocol {name}: {folder.name}", *_tree(folder)]
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def inputs_digest(files: Iterable[Path]) -> str:
    """The bytes of `files`, each with its name; a file that cannot be read counts as gone."""
    digest = hashlib.sha256()
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:
            data = b"\0gone"
        name = str(path).encode("utf-8", "surrogatepass")
        digest.update(b"%d:%s%d:" % (len(name), name, len(data)))
        digest.update(data)
    return digest.hexdigest()


class RenderCache:
    """The kept pages of one site: read by key, written when rendered, pruned to what a build asked for."""

    def __init__(self, folder: Path, common: str) -> None:
        self.folder = folder
        self.common = common  # the code's and settings' digest, a part of every key
        self.asked: set[str] = set()

    def key(self, src_uri: str, files: Iterable[Path]) -> str:
        return hashlib.sha256(f"{self.common}\n{src_uri}\n{inputs_digest(files)}".encode(
            "utf-8", "surrogatepass")).hexdigest()

    def _file(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def has(self, key: str) -> bool:
        """Whether a page is kept under `key` (not read: whether it still holds is for `get` to say)."""
        return self._file(key).exists()

    def get(self, key: str) -> list[Any] | None:
        self.asked.add(key)
        try:
            kept = json.loads(self._file(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(kept, dict) or kept.get("key") != key or not isinstance(kept.get("parts"), list):
            return None
        return kept["parts"]

    def put(self, key: str, parts: list[Any]) -> None:
        """Kept for the next build; a cache that cannot be written only means rendering again then."""
        self.asked.add(key)
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_kept(self._file(key), json.dumps({"key": key, "parts": parts}, ensure_ascii=False))
        except OSError:
            return

    def prune(self) -> None:
        """Remove the kept pages this build did not ask for (older versions of its pages, pages gone)."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in names:
            if name.endswith(".json") and name.removesuffix(".json") not in self.asked or name.endswith(".tmp"):
                try:
                    os.unlink(self.folder / name)
                except OSError:
                    continue
