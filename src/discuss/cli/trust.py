"""Commands that say whether a record can be trusted, and what it decided: verify and verdict."""
from __future__ import annotations

import json

import typer

from .. import commands
from .base import app, handled, layout

FAMILY = "Check"  # the panel of `discuss --help` these commands are listed under


@app.command(rich_help_panel=FAMILY)
@handled
def verify(
    questions: list[str] = typer.Argument(None, help="Slugs or paths of questions (default: every discussion)."),
    base: str | None = typer.Option(None, "--base", help="A git ref (a pull request's base): every round, ballot, "
                                    "reply and conclusion recorded there must be unchanged."),
    as_json: bool = typer.Option(False, "--json", help="JSON: {discussions, base, findings: [{question, round, "
                                 "file, kind, before, after, message}], notes}."),
) -> None:
    """Recompute every recorded outcome from its files, check the chain of digests, and (with --base) that no
    recorded round changed. Exit 0 when all hold, 1 with every finding named."""
    report = commands.verifying.verify(layout(), list(questions or []), base)
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for f in report.findings:
            where = f"round {f.round}, " if f.round is not None else ""
            typer.echo(f"{f.question}: {where}{f.file}: {f.kind}: {f.message}")
        absent = sorted({n.question for n in report.notes if "no chain" in n.note})
        if absent:
            typer.echo(f"note: {len(absent)} discussion(s) recorded without a chain of digests "
                       f"({', '.join(absent[:5])}{'...' if len(absent) > 5 else ''}): outcome"
                       + (" and history" if base else "") + " checked", err=True)
        found = len(report.findings)
        typer.echo(f"{report.discussions} discussion(s) checked"
                   + (f" against {base}" if base else "") + (f": {found} finding(s)" if found else ": all hold"),
                   err=bool(found))
    if report.findings:
        raise typer.Exit(1)


@app.command(rich_help_panel=FAMILY)
@handled
def verdict(
    question: str = typer.Argument(..., help="Slug of the question, or path to its file."),
    as_json: bool = typer.Option(False, "--json", help="JSON: {question, decision, confidence, conclusion, dissent, "
                                 "members, degraded, protocol, rounds, recordDigest, uri}."),
) -> None:
    """What the panel decided, as an agent or a CI gate acts on it: the decision (where the question asks for
    one), a confidence from the recorded ballots, the dissent verbatim, and how degraded the record is."""
    found = commands.verifying.verdict(layout(), question)
    if as_json:
        typer.echo(json.dumps(commands.results.to_json(found), indent=2, ensure_ascii=False))
        return
    typer.echo(f"{found.slug}: {found.status}" + (f", decision: {found.decision}" if found.decision else "")
               + (f", confidence {found.confidence:.2f}" if found.confidence is not None else ""))
    if found.verified is False:
        typer.echo(f"UNVERIFIED: the record does not hold ({len(found.findings)} finding(s); `discuss verify` "
                   "names them): what follows is not the panel's outcome")
        for f in found.findings[:5]:
            typer.echo(f"- {f.message}")
    if found.conclusion:
        typer.echo(f"\n{found.conclusion}")
    for item in found.dissent:
        typer.echo(f"- dissent ({item.name or 'unattributed'}): {item.text}")
    shown = found.degraded
    if shown is not None and shown.anything():
        typer.echo(f"degraded: {shown.failed_calls} failed call(s), {shown.cut_replies} cut reply(ies), "
                   f"{shown.abstained} abstention(s), missing: {', '.join(shown.missing_members) or 'none'}")

