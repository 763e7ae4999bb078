"""Names that become file names: slugs, and the checks that keep them in their folder."""

from __future__ import annotations

import difflib
import errno
import os
import re
import unicodedata

SETTINGS_DIR = "discussions"  # a project is the folder holding <SETTINGS_DIR>/<PANELS_FILE>
PANELS_FILE = "panels.yaml"
SAFE_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}")  # fullmatch: `$` would let a trailing newline through
# Names Windows keeps for devices, with any extension: `con.md` cannot be created or checked out there.
RESERVED = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?")


def slugify(text: str, max_len: int = 80) -> str:
    """A lowercase, dash-separated name safe for any file system."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:max_len].rstrip("-")


def same_text(a: str, b: str) -> bool:
    """Whether two titles are the same question: equal once Unicode forms and runs of spaces are made one."""
    return _plain_text(a) == _plain_text(b)


def _plain_text(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def text_digest(text: str, length: int = 8) -> str:
    """A short, stable digest of a title: what tells apart two questions whose slugs would be one."""
    import hashlib

    return hashlib.sha256(_plain_text(text).encode("utf-8")).hexdigest()[:length]


def lossy(text: str, slug: str) -> bool:
    """Whether `slug` lost what told `text` apart: letters or digits of a script ASCII cannot spell (a
    Russian or Chinese title), or words past the length a slug keeps."""
    decomposed = unicodedata.normalize("NFKD", text)
    return not slug or any(ch.isalnum() and not ch.isascii() for ch in decomposed) \
        or len(slugify(text, max_len=10_000)) > len(slug)


def distinct_slug(text: str, max_len: int = 80) -> str:
    """A slug that carries a digest of the whole title: `<words>-<digest>`, or `q-<digest>` where no ASCII
    word is left."""
    digest = text_digest(text)
    words = slugify(text, max_len - len(digest) - 1)
    return f"{words}-{digest}" if words else f"q-{digest}"


def unprintable(text: str) -> str | None:
    """The first character of `text` no reader can see as it is (a direction override such as U+202E, a
    zero-width space, a control character), named; None where there is none. A title or a name holding one
    can show a reader something else than it says."""
    for ch in text:
        if not ch.isprintable():
            return f"U+{ord(ch):04X} ({unicodedata.name(ch, 'a control character').lower()})"
    return None


def portable_key(name: str) -> str:
    """What a file name is to a file system that folds case and Unicode forms (macOS, Windows): two names
    with one key are one file there."""
    return unicodedata.normalize("NFC", name).casefold()


def did_you_mean(name: str, known: list[str]) -> str:
    """'; did you mean x or y?' for the known names closest to a mistyped one, else ''."""
    close = difflib.get_close_matches(name, sorted(set(known)), n=3)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def is_safe_id(value: str) -> bool:
    """True for names that cannot leave their folder, hide as dot-files or name a device."""
    return bool(SAFE_ID.fullmatch(value)) and ".." not in value and not RESERVED.fullmatch(value)


def derived_id(model: str) -> str:
    """A safe id made from a model string: `openai/qwen2.5:7b` -> `qwen2.5-7b`; never empty."""
    name = unicodedata.normalize("NFKD", model.rsplit("/", 1)[-1]).encode("ascii", "ignore").decode().lower()
    name = re.sub(r"\.{2,}", ".", re.sub(r"[^a-z0-9._-]+", "-", name))
    name = re.sub(r"^[^a-z0-9]+", "", name)[:80].rstrip("-._")
    if not name:
        return "member"
    return name if is_safe_id(name) else f"{name}-model"[:80]


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)


def inside_project(folder: str) -> bool:
    """A relative folder of a project: no '..', nothing hidden, not its settings folder (`discussions`)."""
    parts = folder.strip("/").split("/")
    return not folder.startswith("/") and not any(p in ("", ".", "..") or p.startswith(".") for p in parts) \
        and parts[0] != "discussions"


def leads_out(path: str | os.PathLike[str]) -> str | None:
    """Where a file found in a project is, or lies below, a link leading out of that project (the nearest
    folder above it holding a panel file): the link's target; None where it stays inside, or belongs to no
    project (a path a command was given is confined by `store.layout.confined`).

    The rule for every file a pull request can carry: one may be a link (git keeps links), and discuss
    reads nothing of the machine through one (a key in /proc/self/environ, say) into a prompt, a page or
    an error. A link inside the project is followed, as the site follows one.
    """
    absolute = os.path.abspath(path)
    real = _resolved(absolute)
    if real == absolute:
        return None  # no link on the way: the common case
    root = _project_above(os.path.dirname(absolute))
    if root is None or real == (top := _resolved(root)) or real.startswith(top.rstrip(os.sep) + os.sep):
        return None
    return real


O_PATH = getattr(os, "O_PATH", 0)


def _resolved(absolute: str) -> str:
    """os.path.realpath of an absolute path, as the kernel names the file it opens (Linux: in /proc), a quarter
    of the time of walking each part of the path in Python (a site's build asks it of thousands of files)."""
    if O_PATH:
        try:
            fd = os.open(absolute, O_PATH | os.O_CLOEXEC)  # opens nothing for reading: a device or a pipe too
        except OSError:
            return os.path.realpath(absolute)  # a file not there yet: where its folder is
        try:
            real = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            real = ""
        finally:
            os.close(fd)
        if real.startswith(os.sep) and not real.endswith(" (deleted)"):
            return real
    return os.path.realpath(absolute)


def _project_above(folder: str) -> str | None:
    while True:
        if os.path.isfile(os.path.join(folder, SETTINGS_DIR, PANELS_FILE)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


class LeadsOut(PermissionError):
    """A file or folder of a project that is, or lies below, a link leading out of it: never read or written."""

    def __init__(self, path: str, target: str):
        super().__init__(errno.EPERM, f"a link out of the project (to {target}); discuss reads and writes nothing "
                                      "through one", path)
        self.target = target


def open_in_project(path: str | os.PathLike[str], flags: int = os.O_RDONLY) -> int:
    """`path` opened, then judged by where the file it opened is (the rule of `leads_out`): its descriptor, or
    LeadsOut where that lies out of the project. Checking the name and then opening it would read a file
    swapped for a link between the two; the descriptor names what was really opened. A folder is opened
    with `flags | O_DIRECTORY`, to write in by its descriptor (`dir_fd`)."""
    absolute = os.path.abspath(path)
    fd = os.open(absolute, flags | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))  # a pipe never holds it up
    try:
        real = _opened(fd, absolute)
        root = _project_above(os.path.dirname(absolute)) if real != absolute else None
        if root is not None and real != (top := _resolved(root)) and not real.startswith(top.rstrip(os.sep) + os.sep):
            raise LeadsOut(absolute, real)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _opened(fd: int, absolute: str) -> str:
    """Where the file open as `fd` is: as the kernel names it (Linux), else its real path where that is the
    same file as the one opened (a swap between the two is refused as a link out)."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
        if real.startswith(os.sep) and not real.endswith(" (deleted)"):
            return real
    except OSError:
        pass
    real = os.path.realpath(absolute)
    opened, named = os.fstat(fd), os.stat(real)
    if (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino):
        raise LeadsOut(absolute, real)
    return real


def read_in_project(path: str | os.PathLike[str], limit: int) -> bytes:
    """The first `limit` + 1 bytes at most of a project's file, opened by the rule of `open_in_project`."""
    fd = open_in_project(path)
    try:
        chunks, size = [], 0
        while size <= limit and (chunk := os.read(fd, min(1 << 20, limit + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except BlockingIOError:
        return b""  # a pipe with nothing in it: no file of a project
    finally:
        os.close(fd)
