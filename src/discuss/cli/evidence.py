"""`discuss sources add` and `sources search`: web pages frozen once into reviewed source files."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from .. import commands
from ..errors import InputError
from .base import app, handled, layout

if TYPE_CHECKING:
    from ..commands.sourcing import NotFrozen

FAMILY = "Run"
sources_app = typer.Typer(help="Freeze web pages into a question's sources: fetched once, reviewed like code.",
                          no_args_is_help=True)
app.add_typer(sources_app, name="sources", rich_help_panel=FAMILY)


@sources_app.command("add")
@handled
def add(question: str = typer.Argument(..., help="Slug of the question, or path to its file."),
        urls: list[str] = typer.Argument(..., help="One or more web addresses (http or https)."),
        allow_private: bool = typer.Option(False, "--allow-private", help="Fetch an address on this machine or a "
                                           "private network too (refused otherwise)."),
        refresh: bool = typer.Option(False, "--refresh", help="Fetch an address frozen before again, as a new "
                                     "edition beside the earlier file (which is kept)."),
        as_json: bool = typer.Option(False, "--json", help="{frozen, failed} as JSON.")) -> None:
    """Fetch each page once and keep its readable text as sources/<question>/<name>.md, listed in the question.

    Each address on its own: those kept are listed, those that could not be are named (exit 1 when some
    failed, 2 when none was kept). An address frozen before is kept as it is, unless --refresh."""
    found = commands.sourcing.add(layout(), question, urls, allow_private, refresh=refresh)
    if as_json:
        typer.echo(json.dumps(found.to_json(), indent=2))
    else:
        for row in found.frozen:
            typer.echo(f"{row.path}: " + ("frozen before, kept as it is (--refresh fetches it again)"
                                          if row.already else f"{row.characters} characters from "
                                          f"{row.final_url}" + (f" ({len(row.redirects)} redirect(s))"
                                                                if row.redirects else "")))
    _failed(found.failed)


@sources_app.command("search")
@handled
def search(question: str = typer.Argument(..., help="Slug of the question, or path to its file."),
           query: str = typer.Argument(..., help="What to search for."),
           count: int = typer.Option(10, "--count", min=1, max=20, help="How many results."),
           to_add: str | None = typer.Option(None, "--add", help="Freeze these results, by number: --add 1,3."),
           allow_private: bool = typer.Option(False, "--allow-private", help="Let --add fetch an address on this "
                                              "machine or a private network."),
           as_json: bool = typer.Option(False, "--json", help="{query, results, added} as JSON.")) -> None:
    """Ask the search endpoint panels.yaml names, list what it found, and freeze the results chosen."""
    try:
        numbers = [int(n) for n in to_add.split(",") if n.strip()] if to_add else None
    except ValueError:
        raise InputError(f"--add {to_add}: give result numbers, such as --add 1,3") from None
    found = commands.sourcing.search(layout(), question, query, count, numbers, allow_private)
    if as_json:
        typer.echo(json.dumps(found.to_json(), indent=2))
    else:
        for n, r in enumerate(found.results, 1):
            typer.echo(f"{n}. {r.title}\n   {r.url}\n   {r.snippet[:200]}")
        for row in found.added:
            kept = "frozen before, kept" if row.already else f"{row.characters} characters"
            typer.echo(f"frozen: {row.path} ({kept})")
    _failed(found.failed)


def _failed(failed: list[NotFrozen]) -> None:
    """Each page that could not be frozen, named on stderr; exit 1 after what was kept is listed."""
    for row in failed:
        typer.echo(f"not frozen: {row.url}: {row.error}", err=True)
    if failed:
        raise typer.Exit(1)
