"""Commands that read the archive: status, show, export, rescore, check, panels and protocols."""
from __future__ import annotations

import typer

from .. import commands
from ..errors import InputError
from ..text.tables import table
from .base import app, content, handled, layout
from .quick import show_status  # the one status: `discuss status` reaches it before typer loads, too

FAMILY = "Read"  # the panel of `discuss --help` these commands are listed under


@app.command(rich_help_panel=FAMILY)
@handled
def status(question: str | None = typer.Argument(None, help="One question; default all."),
           as_json: bool = typer.Option(False, "--json", help="JSON: a list of rows (see the documentation's commands page)."),
           only: str | None = typer.Option(None, "--status", help="Only the discussions of this status: not "
                                           "started, active, concluded or closed.")):
    """Every discussion (or one): status, rounds, leader, termination, tokens, cost, protocol."""
    show_status(content(), question, as_json, only)


@app.command(rich_help_panel=FAMILY)
@handled
def show(question: str | None = typer.Argument(None, help="Slug of the question, or path to its file; "
                                                "default the discussion that changed last."),
         round_number: int | None = typer.Option(None, "--round", min=1, help="Only this round."),
         full: bool = typer.Option(False, "--full", help="With every answer's text and every vote's reasons."),
         as_json: bool = typer.Option(False, "--json", help="The whole discussion as JSON (see the commands page of the docs)."),
         rescore: str | None = typer.Option(None, "--rescore", help="Tally the recorded ballots again under "
                                            "other values: selfVoteWeight=0,0.5,1.")):
    """Print a discussion: what it came to, then its rounds, scores, votes and termination."""
    import json


    q, d = commands.showing.found_discussion(content(), question)
    if d is None:
        typer.echo(commands.showing.not_started(q), nl=False)
        return
    if round_number is not None and round_number > len(d.rounds):
        raise InputError(f"{q.slug} has {len(d.rounds)} round(s); there is no round {round_number}")
    if rescore is not None:
        figures, lines = commands.exporting.rescore_one(d, rescore)
        typer.echo(json.dumps(figures, indent=2) if as_json else "\n".join(lines))
    elif as_json:
        typer.echo(json.dumps(commands.showing.discussion_data(content(), q.slug, round_number), indent=2, ensure_ascii=False))
    else:
        typer.echo(commands.showing.shown_text(q, d, full, round_number), nl=False)


@app.command(rich_help_panel=FAMILY)
@handled
def check(as_json: bool = typer.Option(False, "--json", help="JSON: {files, refused: [{path, problem}]}.")) -> None:
    """List every question file that discuss, or Project Dyson's content rules, would refuse; changes nothing."""
    found = commands.checking.check(layout())
    if as_json:
        import json

        typer.echo(json.dumps(found.to_json(), indent=2, ensure_ascii=False))
        if found.refused:
            raise typer.Exit(1)
        return
    for f in found.refused:
        typer.echo(f"{f.path}: {f.problem}")
    for n in found.notices:
        typer.echo(f"note: {n.path}: {n.note}")
    if found.refused:
        typer.echo(f"error: {len({f.path for f in found.refused})} of {found.files} question file(s) would be refused",
                   err=True)
        raise typer.Exit(1)
    typer.echo(f"all {found.files} question file(s) pass")


@app.command(rich_help_panel=FAMILY)
@handled
def panels(as_json: bool = typer.Option(False, "--json", help="JSON: a row per member.")):
    """Each panel: its members, their models, its referees, and whether each key is set (no call is made)."""
    rows = commands.choices.panel_rows(layout())
    if as_json:
        import json

        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        typer.echo(f"no panels in {layout().panels}")
        return
    header = ["panel", "id", "name", "model", "role", "options", "key"]
    typer.echo(table(header, [[row[k] for k in header] for row in rows]))


@app.command(rich_help_panel=FAMILY)
@handled(anywhere=True)
def protocols(as_json: bool = typer.Option(False, "--json", help="JSON: a row per protocol.")):
    """The protocols a discussion can follow, each in a line, with the settings of its own."""
    if as_json:
        import json

        typer.echo(json.dumps([row.to_json() for row in commands.choices.protocol_rows()], indent=2))
        return
    import textwrap

    for row in commands.choices.protocol_rows():
        typer.echo(f"{row.name:<12} {row.summary}")
        if row.settings:
            said = f"its own settings (--set KEY=VALUE): {', '.join(row.settings)}"
            typer.echo(textwrap.fill(said, 100, initial_indent=" " * 13, subsequent_indent=" " * 15))
