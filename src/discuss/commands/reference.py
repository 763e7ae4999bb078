"""The CLI reference page, made from the commands themselves: every command, its arguments and options."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typer import Typer


def cli_reference(app: Typer) -> str:
    """Markdown for every command of the typer `app` (discuss's), in the order `--help` lists them."""
    import typer

    root = typer.main.get_command(app)
    lines = ["# CLI reference", "", "Made from the commands themselves (`python scripts/cli_reference.py`);",
             "`discuss COMMAND --help` says the same.", ""]
    for name, command in _commands(root):
        lines += [f"## discuss {name}", "", (command.help or "").strip().split("\n\n")[0], ""]
        # typer carries its own Click: parameters are told apart by their kind, not by Click's classes
        arguments = [p for p in command.params if p.param_type_name == "argument"]
        options = [p for p in command.params if p.param_type_name == "option" and p.name != "help"]
        if arguments or options:
            lines += ["| argument or option | what it does |", "| --- | --- |"]
            for p in arguments:
                lines.append(f"| `{(p.name or '').upper()}` | {_cell(getattr(p, 'help', '') or '')} |")
            for p in options:
                flags = " / ".join(f"`{f}`" for f in [*p.opts, *p.secondary_opts])
                lines.append(f"| {flags} | {_cell(getattr(p, 'help', '') or '')} |")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _commands(group: Any, prefix: str = "") -> list[tuple[str, Any]]:
    found = []
    for name, command in group.commands.items():
        if hasattr(command, "commands"):  # a group of commands (`ci`)
            found += _commands(command, f"{prefix}{name} ")
        else:
            found.append((f"{prefix}{name}", command))
    return found


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
