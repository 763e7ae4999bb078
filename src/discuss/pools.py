"""Work shared with other processes, through the standard library's process pool: the one place one is made.

A first `status` over ten thousand discussions spends most of its time in
the interpreter (parsing each file's head), and a first site build most of
its time rendering pages, which threads cannot share. Worker processes
can. They are started fresh ("forkserver" where the system has it, else
"spawn"), never forked from this process: a fork copies whatever lock a C
library's thread held, and is unsafe on macOS.

`share` is the reading kind: this process takes parts from the front of the
list while the pool takes them from the back, so the two meet wherever the
pool's start-up let it begin, and neither waits for the other. Whatever a
worker fails to hand back, this process works out itself: the result is
always the one working alone gives, in the same order.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # a short list is worked here: `status` over a few discussions imports no pool (35 ms by -X importtime)
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.context import BaseContext

T = TypeVar("T")
PART = 250  # items in each part handed out: small enough to meet near the middle, large enough to carry well
LEAST = 2000  # items before a worker is worth starting (one costs about 0.1 s to start and import)
MOST = 4


def processors() -> int:
    try:
        return len(os.sched_getaffinity(0))  # what this process may use, in a container too
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def context() -> BaseContext:
    """How a worker is started: a fresh process importing what it is handed, never a fork of this one."""
    import multiprocessing

    return multiprocessing.get_context("forkserver" if "forkserver" in multiprocessing.get_all_start_methods()
                                       else "spawn")


def pool(workers: int) -> ProcessPoolExecutor:
    """A pool of `workers` such processes."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(workers, mp_context=context())


def share(items: list[T], work: Callable[[list[T]], list[Any]]) -> list[Any]:
    """`work(items)`, each item's result in order, its parts worked in other processes where that pays.
    `work` is a module's function (a worker imports it by name) giving one result per item."""
    workers = min(processors() - 1, len(items) // LEAST, MOST - 1)
    if workers < 1:
        return work(items)
    parts = [items[i:i + PART] for i in range(0, len(items), PART)]
    out: list[Any] = []
    executor = pool(workers)
    try:
        futures = {i: executor.submit(work, parts[i]) for i in reversed(range(len(parts)))}  # the last first
        mine = 0
        while mine < len(parts) and futures[mine].cancel():  # not begun: this process takes it
            out += work(parts[mine])
            mine += 1
        for i in range(mine, len(parts)):
            out += _result(futures[i], parts[i], work)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
    return out


def _result(future: Future[list[Any]], part: list[T], work: Callable[[list[T]], list[Any]]) -> list[Any]:
    """What a worker made of `part`, or this process's own where the worker failed or gave a wrong count."""
    try:
        found = future.result()
    except Exception:  # noqa: BLE001 - a worker that died or raised: this process works the part itself
        return work(part)
    return found if isinstance(found, list) and len(found) == len(part) else work(part)
