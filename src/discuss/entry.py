"""The `discuss` command: `status` over the archive is answered at once, every other command by the CLI."""

from __future__ import annotations

import sys


def main() -> None:
    from .quick import status

    code = status(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from .cli import main as cli

    cli()
