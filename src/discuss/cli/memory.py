"""Commands that read the archive as a memory and record what happened: related, resolve and scores."""
from __future__ import annotations

import json

import typer

from .. import commands
from ..text.tables import table
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
    found = commands.remembering.related(content(), question, limit)
    if as_json:
        typer.echo(json.dumps(found.to_json(), indent=2, ensure_ascii=False))
        return
    for warning in found.warnings:
        typer.echo(f"warning: {warning}", err=True)
    if not found.related:
        typer.echo("no earlier discussion shares a word with it")
        return
    rows = [[r.slug, r.title[:60], r.status, r.decision or "-", f"{r.score:.2f}"] for r in found.related]
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
    done = commands.remembering.resolve(layout(), question, outcome, answer, list(source or []))
    if as_json:
        typer.echo(json.dumps(done.to_json(), indent=2, ensure_ascii=False))
        return
    said = f"{done.slug}: resolved" + (f", answer {done.answer}" if done.answer else "")
    if done.born_out is not None:
        said += f"; the panel's decision ({done.decision}) was " + ("borne out" if done.born_out else "not borne out")
    typer.echo(said)
    typer.echo(f"wrote {done.path}" + ("" if done.chained else " (this discussion has no chain of digests)"))


@app.command(rich_help_panel=FAMILY)
@handled
def scores(as_json: bool = typer.Option(False, "--json", help="JSON: {resolved, graded, rule, members, panels, "
                                        "calibration, rows, warnings}, every figure unrounded.")) -> None:
    """The track record of resolved questions: per panelist and per panel and protocol, Brier and log scores of
    their forecasts and the share of decisions borne out, with 95% intervals; and a calibration table."""
    found = commands.remembering.track_record(content())
    if as_json:
        typer.echo(json.dumps(found.to_json(), indent=2, ensure_ascii=False))
        return
    for warning in found.warnings:
        typer.echo(f"warning: {warning}", err=True)
    typer.echo("\n".join(record_lines(found)))


def record_lines(found: commands.remembering.TrackRecord) -> list[str]:
    def mean(x: commands.remembering.Interval) -> str:
        if x.mean is None:
            return "-"
        return f"{x.mean:.3f}" + (f" ({x.low:.3f} to {x.high:.3f})" if x.low is not None and x.high is not None else "")

    def share(x: commands.remembering.Decisions) -> str:
        if x.share is None or x.low is None or x.high is None:
            return "-"
        return f"{x.born_out}/{x.n} ({x.low:.2f} to {x.high:.2f})"

    lines = [f"{found.resolved} resolved question(s), {found.graded} with forecasts graded", ""]
    if found.members:
        lines += [table(["member", "model", "n", "abstained", "Brier (95%)", "log score (95%)"],
                        [[m.member, m.model, str(m.n), str(m.abstained), mean(m.brier), mean(m.log)]
                         for m in found.members]), ""]
    if found.panels:
        lines += [table(["panel", "protocol", "n", "Brier (95%)", "log score (95%)", "decisions borne out (95%)"],
                        [[p.panel, p.protocol, str(p.n), mean(p.brier), mean(p.log), share(p.decisions)]
                         for p in found.panels]), ""]
        lines += [f"The panel's probability: {found.rule}.", ""]
    bins = found.calibration.members
    if any(b.n for b in bins):
        lines += ["Calibration (members): stated probability against how often it came true",
                  table(["stated", "n", "mean stated", "came true"],
                        [[f"{b.low:.1f}-{b.high:.1f}", str(b.n),
                          "-" if b.stated is None else f"{b.stated:.2f}",
                          "-" if b.came_true is None else f"{b.came_true:.2f}"] for b in bins])]
    return lines
