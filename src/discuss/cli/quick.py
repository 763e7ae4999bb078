"""`discuss status`: one function (`show_status`) for the command, answered before the CLI framework loads.

typer builds a pydantic adapter for every parameter of every command,
which costs more than reading a thousand discussion summaries. So the
entry takes the few arguments of `[--root DIR] status [--json]` itself and
calls `show_status`, which the typer command calls too (for a question
argument, or an odd spelling of these). Both read the archive through the
application layer's `status_rows`, as the MCP server does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from .. import commands
from ..commands.project import Layout
from ..errors import InputError


def split_root(argv: list[str]) -> tuple[str | None, list[str]]:
    """The app's own `--root DIR` (or `--root=DIR`) where `argv` begins with one, and what follows it."""
    if argv[:1] == ["--root"] and len(argv) > 1:
        return argv[1], argv[2:]
    if argv and argv[0].startswith("--root="):
        return argv[0].split("=", 1)[1], argv[1:]
    return None, list(argv)


def parse(argv: list[str], env: Mapping[str, str]) -> tuple[Path | None, bool] | None:
    """(the --root folder or None, --json) for a plain `status`; None for anything else."""
    given, rest = split_root(argv)
    root = given if given is not None else env.get("DISCUSS_ROOT") or None
    if rest not in (["status"], ["status", "--json"]):
        return None
    if root is not None and not Path(root).is_dir():
        return None  # the full CLI words the error
    return (Path(root).resolve() if root else None), rest[-1] == "--json"


def show_status(content: Path, question: str | None, as_json: bool, only: str | None = None) -> None:
    """`discuss status`, whichever way it was asked: the warnings on stderr, the rows on stdout (`only`: those
    of this status)."""
    found, warnings = commands.reading.status_rows(content, question, only)
    for warning in warnings:
        sys.stderr.write(f"warning: {warning}\n")
    sys.stdout.write(commands.reading.status_output(found, as_json, str(content), len(warnings)))
    sys.stdout.flush()


def status(argv: list[str], env: Mapping[str, str] = os.environ) -> int | None:
    """`[--root DIR] status [--json]` answered before the CLI framework loads: 0, or None for anything else
    (the CLI parses it and answers through the same `show_status`)."""
    parsed = parse(argv, env)
    if parsed is None:
        return None
    root, as_json = parsed
    layout = Layout(root) if root else Layout.find(Path.cwd())
    try:
        content = layout.content
    except InputError:
        return None  # the CLI words it
    if not layout.panels.is_file() or not content.is_dir():
        return None  # the CLI says what is missing
    show_status(content, None, as_json)
    return 0
