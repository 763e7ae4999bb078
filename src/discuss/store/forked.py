"""Sharing a long piece of reading with forked copies of this process, where that is safe.

A first `status` over ten thousand discussions spends most of its time in the interpreter (parsing each
file's head), which threads cannot share. A copy made with `fork` can: it reads its part of the list and
hands back what it found, marshalled through a pipe. Only a process with one thread forks (a copy of a
process with others could wait forever on a lock one of them held), only where the system has `fork`, and
only for lists long enough to pay for it. Whatever a copy fails to hand back, this process works out
itself: the result is always the one working alone gives, in the same order.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
LEAST = 500  # items each process must have before another is worth starting (a fork costs a few ms)
MOST = 4


def processors() -> int:
    try:
        return len(os.sched_getaffinity(0))  # what this process may use, in a container too
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def alone() -> bool:
    """Whether this process may fork: the system can, and no other thread runs here."""
    threading = sys.modules.get("threading")  # never imported: no thread was started through it
    return hasattr(os, "fork") and (threading is None or threading.active_count() == 1)


def share(items: list[T], work: Callable[[list[T]], list[Any]]) -> list[Any]:
    """`work(items)`, each item's result in order, its parts worked in forked copies where that pays.
    `work` gives one result per item, of what `marshal` carries."""
    count = min(processors(), len(items) // LEAST, MOST) if alone() else 1
    if count < 2:
        return work(items)
    size = -(-len(items) // count)
    parts = [items[i:i + size] for i in range(0, len(items), size)]
    children: list[tuple[list[T], tuple[int, int] | None]] = []
    try:
        for part in parts[1:]:
            children.append((part, _start(part, work)))
        out = work(parts[0])
        while children:
            part, child = children.pop(0)
            found = _collect(*child) if child else None
            out += found if isinstance(found, list) and len(found) == len(part) else work(part)
    finally:
        for _, child in children:  # this process failed: its copies are not left behind
            if child:
                _stop(*child)
    return out


def _start(part: list[T], work: Callable[[list[T]], list[Any]]) -> tuple[int, int] | None:
    """A copy working `part` (its process and the pipe it answers on); None where none could be made."""
    try:
        readable, writable = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:  # too many processes, or too little memory: this process works the part itself
        os.close(readable)
        os.close(writable)
        return None
    if pid == 0:  # the copy: its part, written whole, then gone without running this process's exit hooks
        code = 1
        try:
            os.close(readable)
            data = memoryview(marshal.dumps(work(part)))
            while data:
                data = data[os.write(writable, data):]
            code = 0
        finally:
            os._exit(code)
    os.close(writable)
    return pid, readable


def _collect(pid: int, pipe: int) -> Any:
    chunks = []
    try:
        while chunk := os.read(pipe, 1 << 20):
            chunks.append(chunk)
    except OSError:
        chunks = []
    finally:
        os.close(pipe)
        _, status = os.waitpid(pid, 0)
    try:
        return marshal.loads(b"".join(chunks)) if status == 0 else None
    except (EOFError, ValueError, TypeError):
        return None


def _stop(pid: int, pipe: int) -> None:
    import signal

    os.close(pipe)
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
