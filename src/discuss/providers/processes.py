"""Running a coding agent's command-line tool as a bounded child process.

What a tool is given and what it may do to us are bounded here, whichever
tool it is: the prompt goes on stdin (argv is readable by every user of the
machine); the environment holds only PATH, HOME, a few harmless system
variables and the tool's own vendor's (never another provider's key or an
unrelated secret); the tool runs in a process group of its own, killed
whole (its children too) when the call ends, is cancelled at the panel's
timeout, or says too much; its output is read in chunks and refused past
the same cap as an HTTP reply, never held whole. Nothing here knows a tool
by name: agents.py says what each is asked and how its answer reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .policy import MAX_REPLY_BYTES

CHUNK = 64 * 1024
WORDS_BYTES = 16 * 1024  # of what a tool says on stderr, the last part kept: where its error is
PROBE_BYTES = 64 * 1024  # a `--version` or a login check says a line or two
# Variables every program may read and no one keeps a secret in (a proxy's address may hold a password:
# not passed). Windows' own are for the tools' launchers there.
SYSTEM = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ",
          "TMPDIR", "SYSTEMROOT", "USERPROFILE", "APPDATA", "LOCALAPPDATA")


class ToolFailed(Exception):
    """A tool's call that failed: its exit, its words (scrubbed by whoever shows them), or output refused."""


@dataclass(frozen=True)
class Finished:
    code: int
    out: bytes
    words: str  # the end of what it wrote on stderr


def tool_env(vendor: Sequence[str]) -> dict[str, str]:
    """This process's environment cut to what a tool needs: the system's few and its vendor's own prefixes."""
    env = {k: v for k, v in os.environ.items() if k in SYSTEM or k.startswith(tuple(vendor))}
    env["NO_COLOR"] = "1"  # words, not terminal escapes
    return env


def kill_group(pid: int) -> None:
    """The tool and every process it started in its group, killed; nothing there is not an error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def run(argv: Sequence[str], prompt: str, env: dict[str, str], cwd: Path,
              cap: int = MAX_REPLY_BYTES) -> Finished:
    """`argv` run in `cwd` with `prompt` on stdin; its stdout whole up to `cap` bytes (ToolFailed past it).

    Cancelling the call (the gateway's timeout) kills the tool's group.
    """
    proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.PIPE,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                cwd=cwd, env=env, start_new_session=True)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out, err = bytearray(), bytearray()

    async def feed() -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a tool may stop reading: its affair
            proc.stdin.write(prompt.encode("utf-8", "surrogatepass"))  # type: ignore[union-attr]
            await proc.stdin.drain()  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]

    async def read_out() -> None:
        while chunk := await proc.stdout.read(CHUNK):  # type: ignore[union-attr]
            out.extend(chunk)
            if len(out) > cap:
                raise ToolFailed(f"its output passed {cap:,} bytes and was not read further")

    async def read_err() -> None:
        while chunk := await proc.stderr.read(CHUNK):  # type: ignore[union-attr]
            err.extend(chunk)
            del err[:-WORDS_BYTES]

    reading, draining = asyncio.ensure_future(read_out()), asyncio.ensure_future(read_err())
    try:
        await asyncio.gather(feed(), _exited(proc, reading))
        await asyncio.gather(reading, draining)
    finally:
        kill_group(proc.pid)
        for task in (reading, draining):
            task.cancel()
        with contextlib.suppress(BaseException):
            # What is left in the pipes, read to their end (the group is dead): else they stay open after the call.
            await asyncio.wait_for(asyncio.gather(_drain(proc.stdout), _drain(proc.stderr), proc.wait()), 5)
    return Finished(proc.returncode or 0, bytes(out), err.decode("utf-8", "replace"))


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(CHUNK):
        pass


async def _exited(proc: asyncio.subprocess.Process, reading: asyncio.Task[None]) -> None:
    """Until the tool has exited; then its group is killed, so a child left holding its output open ends
    with it. Too much output ends the wait at once."""
    waiting = asyncio.ensure_future(proc.wait())
    await asyncio.wait([waiting, reading], return_when=asyncio.FIRST_COMPLETED)
    if reading.done() and (failed := reading.exception()) is not None:
        waiting.cancel()
        raise failed
    await waiting
    kill_group(proc.pid)


def probe(argv: Sequence[str], env: dict[str, str], cwd: Path, timeout: float) -> tuple[int | None, str]:
    """A short check (`--version`, a login status) run to its end or `timeout`: its exit code (None when it
    did not end in time) and the start of what it said on stdout and stderr."""
    try:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=env, cwd=cwd, start_new_session=True)
    except OSError as exc:
        return 127, str(exc)
    got = bytearray()

    def read() -> None:
        assert proc.stdout is not None
        while chunk := os.read(proc.stdout.fileno(), CHUNK):
            got.extend(chunk[: max(PROBE_BYTES - len(got), 0)])  # the rest is read and dropped

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        code: int | None = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        kill_group(proc.pid)
        proc.wait()
        reader.join(2)
        if proc.stdout is not None:
            proc.stdout.close()
    return code, got.decode("utf-8", "replace")
