"""The `discuss` command: `status` over the archive is answered at once, every other command by the CLI.

Once a command that called a model is done (every file written with
fsync and renamed, every lock released, output flushed), the process
exits at once: the interpreter's teardown of litellm's modules took a
second or more after the last reply, with nothing left to do.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    from .quick import status

    code = status(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from .app import main as cli

    try:
        cli()
    except SystemExit as done:
        leave(done.code)
    leave(0)


def leave(code: str | int | None) -> None:
    if "litellm" not in sys.modules:
        sys.exit(code)
    if isinstance(code, str):  # SystemExit with a message prints it and exits 1
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0 if code is None else code)
