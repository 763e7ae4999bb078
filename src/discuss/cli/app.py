"""The `discuss` command: parse, call the application layer, print, exit.

Exit 0 when all went well, 1 when a run failed (what was paid for is on
disk), 2 for bad input or usage (nothing on disk changed). Heavy modules are
imported inside the commands so `discuss --help` answers at once. Each
family of commands is a module of its own; importing them registers them.
"""

from __future__ import annotations

import contextlib
import os
import sys

# Importing a family registers its commands, in this order in `discuss --help`.
from . import setup  # noqa: F401

from . import running  # noqa: F401  # isort: skip
from . import evidence  # noqa: F401  # isort: skip
from . import reading  # noqa: F401  # isort: skip
from . import study  # noqa: F401  # isort: skip
from . import memory  # noqa: F401  # isort: skip
from . import people  # noqa: F401  # isort: skip
from . import trust  # noqa: F401  # isort: skip
from ..text.naming import is_safe_id
from .base import app
from .quick import split_root

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> None:
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    args = auto_args(sys.argv[1:] if argv is None else argv)
    with only(command_of(args)):
        app(args=args, prog_name="discuss")


def command_of(argv: list[str]) -> str | None:
    """The command `argv` names, after the app's own options; None where it names none (help, version)."""
    word = (split_root(argv)[1] or [""])[0]
    return None if not word or word.startswith("-") else word


@contextlib.contextmanager
def only(name: str | None):
    """The app with the one command (or family) `name` while it runs: typer builds every registered command's
    parameters before it parses (a tenth of a second of a run's start), and the others are never asked for. The whole
    app where `name` is none of them, so a misspelt command is answered with the list to choose from."""
    from typer.main import get_command_name

    commands = [c for c in app.registered_commands
                if (c.name or get_command_name(getattr(c.callback, "__name__", ""))) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if name is None or not (commands or groups):
        yield
        return
    kept = app.registered_commands, app.registered_groups
    app.registered_commands, app.registered_groups = commands, groups
    try:
        yield
    finally:
        app.registered_commands, app.registered_groups = kept


def auto_args(argv: list[str]) -> list[str]:
    """`discuss [--root DIR] --auto QUESTION [OPTIONS]`, the short way in: a question that names a file or
    slug is `run QUESTION --auto`, anything else (a title in words) is `ask QUESTION`; other commands as given."""
    rest = split_root(argv)[1]
    head = len(argv) - len(rest)
    if rest[:1] != ["--auto"] or len(rest) < 2 or rest[1].startswith("-"):
        return argv
    question, options = rest[1], rest[2:]
    if is_safe_id(question) or question.endswith(".md") or "/" in question:
        return [*argv[:head], "run", question, "--auto", *options]
    return [*argv[:head], "ask", question, *options]


if __name__ == "__main__":  # pragma: no cover
    main()

