"""Commands that read the archive as a memory and record what happened: related, resolve and scores."""
from __future__ import annotations

import json

import typer

from .base import app, content, handled, layout

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


@app.command(rich_help_panel=FAMILY)
@handled
def resolve(question: str = typer.Argument(..., help="Slug of the question (a follow-up part: SLUG-part-N), or "
                                           "path to its file."),
            outcome: str = typer.Option(..., "--outcome", help="What happened, in words."),
            answer: str | None = typer.Option(None, "--answer", help="The answer the world gave: yes or no, or one "
                                              "of the question's decision options."),
            source: list[str] = typer.Option(None, "--source", help="Evidence: a web address (never fetched) or a "
                                             "file of the project (its sha256 kept); repeatable."),
            as_json: bool = typer.Option(False, "--json", help="JSON: {slug, path, resolved, answer, decision, "
                                         "bornOut, evidence, resolvedBy, chained}.")) -> None:
    """Record what happened after a discussion ended (outcome.md beside its conclusion, sealed onto the record's
    chain), so `discuss scores` can grade the panel's forecasts and decisions."""
    from ..commands.remembering import resolve as resolved

    done = resolved(layout(), question, outcome, answer, list(source or []))
    if as_json:
        typer.echo(json.dumps(done, indent=2, ensure_ascii=False))
        return
    said = f"{done['slug']}: resolved" + (f", answer {done['answer']}" if done["answer"] else "")
    if done["bornOut"] is not None:
        said += f"; the panel's decision ({done['decision']}) was " + ("borne out" if done["bornOut"] else "not borne out")
    typer.echo(said)
    typer.echo(f"wrote {done['path']}" + ("" if done["chained"] else " (this discussion has no chain of digests)"))
