"""The `discuss` command: parse, call the application layer, print, exit.

Exit 0 when all went well, 1 when a run failed (what was paid for is on
disk), 2 for bad input or usage (nothing on disk changed). Heavy modules are
imported inside the commands so `discuss --help` answers at once. Each
family of commands is a module of its own; importing them registers them.
"""

from __future__ import annotations

import os

# Importing a family registers its commands, in this order in `discuss --help`.
from . import setup  # noqa: F401

from . import running  # noqa: F401  # isort: skip
from . import reading  # noqa: F401  # isort: skip
from . import study  # noqa: F401  # isort: skip
from . import people  # noqa: F401  # isort: skip
from .base import app

__all__ = ["app", "main"]


def main() -> None:
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    app()


if __name__ == "__main__":  # pragma: no cover
    main()

