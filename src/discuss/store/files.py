"""Atomic writes and the lock that keeps two runs off one discussion.

A file is written to a temporary name in its own folder, flushed to disk
and renamed over the target, so a reader sees the old file or the new one,
never half of either. Unchanged content is not rewritten at all.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..errors import Busy
from ..text.clean import encode
from ..text.naming import LeadsOut, leads_out, open_in_project
from ..userdirs import folder_key


def lock_path(folder: Path) -> Path:
    """Where a discussion's lock lives: outside the project, so no run leaves a file for git to pick up."""
    return kept_beside_locks(folder, "{}.lock")


def kept_beside_locks(folder: Path, name: str) -> Path:
    """A file of this user's about `folder`, among the lock files outside the project: `name` with `{}` for a
    key of the folder's absolute path, so two runs on this machine meet at the same file (runs on other
    machines never share a folder anyway)."""
    return _lock_folder() / name.format(folder_key(folder))


def _lock_folder(again: bool = False) -> Path:
    """The folder of this user's lock files, made once a process (`again` where it was removed since)."""
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()) / f"discuss-locks-{os.getuid()}"
    if again or base not in _MADE:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
        _MADE.add(base)
    return base


_MADE: set[Path] = set()


class _Slots:
    """One key's slot files as this process sees them: which it holds (never tried again while held), and
    each file it opened, kept open so a call tries a lock rather than opening and closing a file."""

    def __init__(self, name: str):
        self.name = name
        self.held: set[int] = set()
        self.fds: dict[int, int] = {}

    def fd(self, i: int) -> int:
        fd = self.fds.get(i)
        # A file unlinked under us (the folder cleaned away) is no longer the one other processes lock.
        if fd is not None and os.fstat(fd).st_nlink:
            return fd
        if fd is not None:
            os.close(fd)
        try:
            fd = os.open(_lock_folder() / f"{self.name}-{i}.slot", os.O_RDWR | os.O_CREAT, 0o600)
        except FileNotFoundError:  # the folder was cleaned away under a long run
            fd = os.open(_lock_folder(again=True) / f"{self.name}-{i}.slot", os.O_RDWR | os.O_CREAT, 0o600)
        self.fds[i] = fd
        return fd


@functools.cache
def _slots(key: str) -> _Slots:
    import hashlib

    return _Slots(hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24])


def take_slot(key: str, limit: int) -> Callable[[], None] | None:
    """One of `limit` request slots for `key` (a server's address, a provider), shared by every process of
    this user: a function that gives the slot back (the system gives it back if the process dies), or None
    while all are taken.

    So `limits:` hold for the project, not per process: two `ask`s started by an agent together send no
    more at once to a one-slot local server than one would. The slots this process holds are skipped, so a
    busy run finds a free one in a try or two rather than one for each call it has in flight.
    """
    slots = _slots(key)
    for i in range(limit):
        if i in slots.held:
            continue
        fd = slots.fd(i)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue
        slots.held.add(i)

        def give_back(fd: int = fd, i: int = i) -> None:
            slots.held.discard(i)
            fcntl.flock(fd, fcntl.LOCK_UN)

        return give_back
    return None


FILE_MODE = 0o666  # narrowed by the umask, as any file a program creates


def write_atomic(path: Path, text: str) -> bool:
    """Write `text` to `path`; returns False when the file already held it. PermissionError where its folder
    is, or lies below, a link out of the project (`naming.open_in_project`): nothing is written through one.
    The file is written and renamed by the folder's descriptor, judged as it was opened, so a folder swapped
    for a link after the check is never written through."""
    data = encode(text)
    try:
        folder = _folder_of(path)
    except OSError as exc:
        raise _named(exc, path) from None
    try:
        if _holds(path.name, data, folder):
            return False
        fd, tmp = _temporary(path.name, folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
            raise
    except OSError as exc:
        raise _named(exc, path) from None
    finally:
        os.close(folder)
    return True


def _folder_of(path: Path) -> int:
    """The descriptor of `path`'s folder, made where it is missing, opened by the rule of links."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        return open_in_project(path.parent, flags)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        return open_in_project(path.parent, flags)


def write_kept(path: Path, text: str) -> None:
    """Replace a file kept only to save time (a status's rows, a site's pages) whole, but without waiting for
    the disk: a reader still sees the old file or the new one, and one a crash loses costs only time."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _holds(name: str, data: bytes, folder: int) -> bool:
    # Its size first: a file that grew or shrank is not read (an index rewritten after every phase).
    try:
        if os.stat(name, dir_fd=folder, follow_symlinks=False).st_size != len(data):
            return False
        fd = os.open(name, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0), dir_fd=folder)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError, OSError):
        return False
    with os.fdopen(fd, "rb") as f:
        return f.read(len(data) + 1) == data


def _temporary(name: str, folder: int) -> tuple[int, str]:
    """A new file in `folder` to write `name` under another name, with the mode the umask gives (mkstemp
    makes 0600 and needs a second call to widen it)."""
    import secrets

    for _ in range(100):
        tmp = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), FILE_MODE,
                           dir_fd=folder), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", name)


def _named(exc: OSError, path: Path) -> OSError:
    """The fault with the file we meant to write as its name (a full disk names none)."""
    if isinstance(exc, LeadsOut):
        return PermissionError(errno.EPERM, f"its folder is a link out of the project (to {exc.target}); discuss "
                                            "writes nothing through one", str(path))
    if isinstance(exc, (IsADirectoryError, NotADirectoryError, FileExistsError)) or path.is_dir():
        return IsADirectoryError(exc.errno, "is not a regular file (a folder or a link is in its place)", str(path))
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))


class DiscussionLock:
    """An exclusive, non-blocking lock on a discussion folder, released on exit.

    flock locks die with their process, so a killed run never leaves a
    stale lock behind.
    """

    def __init__(self, folder: Path):
        self.folder = folder
        self._fd: int | None = None

    def __enter__(self) -> DiscussionLock:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path(self.folder), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise Busy(
                    f"{self.folder}: another `discuss run` is working on this discussion; "
                    "wait for it to finish"
                ) from None
            raise
        self._fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


ROOM = 1 << 20  # bytes free a run wants before it spends: it writes its start once its first requests are out


def check_writable(folder: Path) -> None:
    """Refuse, before anything is paid for, a folder of a discussion that cannot be written (read-only, a link
    out of the project, or on a disk that is all but full): a run's first write comes once its first requests
    are out. A folder not made yet is judged by the nearest one above it."""
    if (target := leads_out(folder)) is not None:
        raise PermissionError(errno.EPERM, f"a link out of the project (to {target}); discuss writes nothing "
                              "through one, and the panel was not asked", str(folder))
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    if not os.access(folder, os.W_OK):
        raise PermissionError(errno.EACCES, "cannot be written (read-only, or another user's); the panel was not "
                              "asked", str(folder))
    try:
        found = os.statvfs(folder)
    except OSError:
        return  # a disk that will not say is left to the writes, which name their own fault
    if (free := found.f_bavail * found.f_frsize) < ROOM:
        raise OSError(errno.ENOSPC, f"No space left on device ({free} bytes free; a run wants {ROOM} before it "
                      "asks the panel)", str(folder))


def is_running(folder: Path) -> bool:
    """Whether a run holds the discussion's lock now (asked without waiting, and without taking it)."""
    try:
        fd = os.open(lock_path(folder), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EAGAIN, errno.EACCES)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
