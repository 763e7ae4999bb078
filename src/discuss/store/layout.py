"""The project folder's layout: the one place that knows where things live in it.

    <root>/content/                  questions and their discussion folders (the site's docs), or the
                                     folder `content:` in panels.yaml names (a Project Dyson checkout's
                                     src/content/research-questions)
    <root>/discussions/panels.yaml   panels, their settings and providers' limits
    <root>/discussions/personas/     the project's own personas, beside those discuss ships
    <root>/discussions/prompts/      prompt templates that replace the packaged ones
    <root>/discussions/scripts/      the scripts of `scripted/<name>` panelists
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from stat import S_ISREG

from ..errors import InputError
from ..text.naming import PANELS_FILE, SETTINGS_DIR, inside_project, portable_key, read_in_project

DISCUSSION_FILE = "discussion.yaml"  # a discussion's index, in the folder named like its question
AUDIT = "audit"  # a discussion's audits (`discuss audit`), in a folder of its own beside its rounds
SOURCES = "sources"  # of the project: pages frozen by `discuss sources add`, read by questions that cite them
EVALS = "evals"  # of the project: each eval's answers, items and report (`discuss eval`)


def part_paths(folder: Path) -> list[Path]:
    """The follow-up parts' question files in a discussion folder (`part-N.md`), in order, part 2 first."""
    return [Path(p) for p in part_names(str(folder))]


def part_names(folder: str) -> list[str]:
    """`part_paths` as the paths' text."""
    try:
        names = os.listdir(folder)  # a tenth of what a glob costs, over a thousand discussions
    except OSError:
        return []
    found = [(int(n[5:-3]), os.path.join(folder, n)) for n in names if n.startswith("part-") and n.endswith(".md")
             and n[5:-3].isdigit()]
    return [p for _, p in sorted(found)]


def question_files(content: Path) -> list[Path]:
    """Every question file under `content`, sorted, never descending into discussion folders."""
    return [Path(p) for p in question_names(content)]


def question_names(content: Path) -> list[str]:
    """`question_files` as the paths' text (a status over ten thousand questions makes no Path of them)."""
    found = []
    for folder, dirs, files in os.walk(content):
        names = set(files)
        # A folder named like a Markdown file beside it, or holding a discussion, is a discussion.
        dirs[:] = sorted(d for d in dirs if f"{d}.md" not in names
                         and not os.path.isfile(os.path.join(folder, d, DISCUSSION_FILE)))
        found += [os.path.join(folder, f) for f in files if f.endswith(".md") and f != "index.md"]
    return sorted(found, key=lambda p: p.split(os.sep))  # the order Path sorts in, without making Paths


CONTENT_LINE = re.compile(r"""^content:[ \t]*(['"]?)([^'"#\n]*?)\1[ \t]*(?:#.*)?$""", re.MULTILINE)


def content_folder(panels: Path) -> str | None:
    """The folder `content:` in the panel file names, as written (a line of its own, read without a YAML
    parser: `status` asks before anything heavy loads); None where it names none."""
    try:
        stat = panels.stat()
    except OSError:
        return None
    if not S_ISREG(stat.st_mode):
        return None  # the panel file's reader says what is wrong with it
    return _content_folder(panels, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=16)
def _content_folder(panels: Path, mtime: int, size: int) -> str | None:
    try:  # a link out of the project is never read (the panel file's reader says so)
        return content_line(read_in_project(panels, PANEL_BYTES).decode("utf-8", "replace"))
    except OSError:
        return None


PANEL_BYTES = 1 << 20  # of a panel file, what its `content:` line is looked for in


def content_line(text: str) -> str | None:
    """The folder a panel file's text names by its `content:` line; None where it names none."""
    found = CONTENT_LINE.search(text)
    return (found.group(2).strip().rstrip("/") or None) if found else None


@dataclass(frozen=True)
class Layout:
    root: Path

    @classmethod
    def find(cls, start: Path) -> Layout:
        """The nearest folder upwards holding a panel file, else `start`."""
        for folder in [start, *start.parents]:
            if (folder / SETTINGS_DIR / PANELS_FILE).is_file():
                return cls(folder)
        return cls(start)

    @property
    def content(self) -> Path:
        """content/, or the folder the panel file names; one outside the project is refused, never read."""
        folder = content_folder(self.panels)
        if folder is None:
            return self.root / "content"
        if not inside_project(folder):
            raise InputError(f"{self.panels}: content: {folder!r} must be a folder of the project, such as "
                             "src/content/research-questions (no '..', no hidden or settings folder)")
        return self.root / folder

    @property
    def settings(self) -> Path:
        return self.root / SETTINGS_DIR

    @property
    def panels(self) -> Path:
        return self.settings / PANELS_FILE

    @property
    def personas(self) -> Path:
        return self.settings / "personas"

    @property
    def prompts(self) -> Path:
        return self.settings / "prompts"

    @property
    def scripts(self) -> Path:
        return self.settings / "scripts"

    def record_paths(self) -> list[str]:
        """Every path of the project a discussion's record spans, relative to the root, folders ending in '/':
        the content folder (questions, rounds, conclusions), the frozen sources, the evals, and the panel file
        (whose `content:` line says where the record lives). What a pull-request gate watches."""
        content = self.content.relative_to(self.root).as_posix()
        return [f"{content}/", f"{SOURCES}/", f"{EVALS}/", self.panels.relative_to(self.root).as_posix()]


def clashes(paths: list[Path]) -> dict[Path, Path]:
    """Each path whose name another in its folder differs from only by case or Unicode form, with that
    other: on macOS and Windows they are one file, and a checkout there keeps only one of them."""
    seen: dict[tuple[Path, str], Path] = {}
    found: dict[Path, Path] = {}
    for path in sorted(paths):
        key = (path.parent, portable_key(path.name))
        if key in seen:
            found[path] = seen[key]
            found.setdefault(seen[key], path)
        else:
            seen[key] = path
    return found


def portable(path: Path) -> None:
    """InputError where a file beside `path` differs from its name only by case or Unicode form."""
    try:
        stat = path.parent.stat()
    except OSError:
        return
    others = [n for n in _by_key(path.parent, stat.st_mtime_ns).get(portable_key(path.name), []) if n != path.name]
    if others:
        other = path.parent / others[0]

        raise InputError(f"{path.name} and {other.name} differ only by case or Unicode form: on macOS and "
                         "Windows they are one file, so a checkout there loses one of them; rename one")


@lru_cache(maxsize=64)
def _by_key(folder: Path, mtime: int) -> dict[str, list[str]]:
    """A folder's Markdown files by their portable key, read once while the folder is unchanged (a batch of
    ten thousand questions asks it for each)."""
    found: dict[str, list[str]] = {}
    for name in os.listdir(folder):
        if name.endswith(".md"):
            found.setdefault(portable_key(name), []).append(name)
    return found


def confined(path: Path, *tops: Path, what: str = "") -> Path:
    """`path` resolved (links followed, '..' taken away), required to lie inside one of `tops`.

    The one rule for every path that comes from outside (a question named by its file, a folder of trials,
    a script a model's name points to, a source): what the tool reads or writes for a request stays in the
    project, however the path is spelt. InputError in words otherwise, naming the path as it was given.
    """
    try:
        real = path.resolve()
    except (OSError, RuntimeError):  # a loop of links
        real = None
    if real is None or not any(real.is_relative_to(_real(top) if top.is_absolute() else top.resolve()) for top in tops):
        raise InputError(f"{what or path}: outside the project; discuss reads and writes only inside it "
                         f"({', '.join(_shown(top) for top in tops)})")
    return real


@lru_cache(maxsize=64)
def _real(top: Path) -> Path:
    """A project folder resolved once per process: a batch confines thousands of paths to the same few."""
    return top.resolve()


def _shown(folder: Path) -> str:
    """A folder as an error shows it: relative to the working folder where it lies below it."""
    try:
        return folder.resolve().relative_to(Path.cwd().resolve()).as_posix() or "."
    except (OSError, ValueError):
        return folder.name or str(folder)
