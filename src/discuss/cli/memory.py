"""Commands that read the archive as a memory and record what happened: related, resolve and scores."""
from __future__ import annotations

import json

import typer

from .base import app, content, handled

FAMILY = "Remember"  # the panel of `discuss --help` these commands are listed under


@app.command(rich_help_panel=FAMILY)
@handled
def related(question: str = typer.Argument(..., help="A question's slug or file, or a text to look for."),
            limit: int = typer.Option(5, "--limit", min=1, max=100, help="How many to list."),
            as_json: bool = typer.Option(False, "--json", help="JSON: {query, slug, related: [{slug, title, status, "
                                         "decision, score, concluded}], warnings}.")) -> None:
    """Earlier discussions nearest to a question (BM25 over titles, backgrounds and conclusions; no model, no
    network), best first."""
    from ..archive.listing import table
    from ..commands.remembering import related as ranked

    found = ranked(content(), question, limit)
    if as_json:
        typer.echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    for warning in found["warnings"]:
        typer.echo(f"warning: {warning}", err=True)
    if not found["related"]:
        typer.echo("no earlier discussion shares a word with it")
        return
    rows = [[r["slug"], r["title"][:60], r["status"], r["decision"] or "-", f"{r['score']:.2f}"]
            for r in found["related"]]
    typer.echo(table(["question", "title", "status", "decision", "score"], rows))
