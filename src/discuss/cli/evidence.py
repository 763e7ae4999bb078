"""`discuss sources add` and `sources search`: web pages frozen once into reviewed source files."""
from __future__ import annotations

import json

import typer

from ..errors import InputError
from .base import app, handled, layout

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
        as_json: bool = typer.Option(False, "--json", help="A row per page, as JSON.")) -> None:
    """Fetch each page once and keep its readable text as sources/<question>/<name>.md, listed in the question."""
    from ..commands.sourcing import add as freeze

    rows = freeze(layout(), question, urls, allow_private)
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        typer.echo(f"{row['path']}: {row['characters']} characters from {row['finalUrl']}"
                   + (f" ({len(row['redirects'])} redirect(s))" if row["redirects"] else ""))


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
    from ..commands.sourcing import search as ask

    try:
        numbers = [int(n) for n in to_add.split(",") if n.strip()] if to_add else None
    except ValueError:
        raise InputError(f"--add {to_add}: give result numbers, such as --add 1,3") from None
    found = ask(layout(), question, query, count, numbers, allow_private)
    if as_json:
        typer.echo(json.dumps(found, indent=2))
        return
    for n, r in enumerate(found["results"], 1):
        typer.echo(f"{n}. {r['title']}\n   {r['url']}\n   {r['snippet'][:200]}")
    for row in found["added"]:
        typer.echo(f"frozen: {row['path']} ({row['characters']} characters)")
