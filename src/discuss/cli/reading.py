"""Commands that read the archive: status, show, export, rescore, check, panels and protocols."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..errors import InputError

if TYPE_CHECKING:
    from ..domain import Discussion, Question

from .base import app, content, handled, layout, root

FAMILY = "Read"  # the panel of `discuss --help` these commands are listed under


@app.command(rich_help_panel=FAMILY)
@handled
def status(question: str | None = typer.Argument(None, help="One question; default all."),
           as_json: bool = typer.Option(False, "--json", help="JSON: a list of rows (see the documentation's commands page)."),
           only: str | None = typer.Option(None, "--status", help="Only the discussions of this status: not "
                                           "started, active, concluded or closed.")):
    """Every discussion (or one): status, rounds, leader, termination, tokens, cost, protocol."""
    from .quick import show_status  # the one status: `discuss status` reaches it before typer loads, too

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
    from ..archive.report import show as render
    from ..store import discussions as store
    from ..store.questions import find_question

    q = find_question(content(), question) if question is not None else _latest()
    d = store.load(q.folder)
    if d is None:
        typer.echo(f"{q.slug}: no discussion yet; start one with `discuss run {q.slug} --auto`")
        return
    if round_number is not None and round_number > len(d.rounds):
        raise InputError(f"{q.slug} has {len(d.rounds)} round(s); there is no round {round_number}")
    if rescore is not None:
        return _rescore(d, rescore, as_json)
    from ..commands.remembering import outcome_lines
    if as_json:
        import json

        from ..commands.reading import discussion_data

        typer.echo(json.dumps(discussion_data(content(), q.slug, round_number), indent=2, ensure_ascii=False))
        return
    if round_number is None and (said := outcome_lines(q.folder, d)):
        typer.echo("\n".join(said))
    typer.echo(render(d, full=full, only=round_number), nl=False)
    from ..commands.auditing import audit_lines
    from ..commands.reading import citation_lines

    if round_number is None and (lines := [*audit_lines(q.folder, d), *citation_lines(q, d)]):
        typer.echo("\n".join(lines))

def _latest() -> Question:
    """The question whose discussion changed last (its discussion.yaml written last)."""
    from ..store.layout import DISCUSSION_FILE, question_files
    from ..store.questions import read_question

    indexes = [(p.with_suffix("") / DISCUSSION_FILE, p) for p in question_files(content())]
    started = [(index.stat().st_mtime_ns, str(p), p) for index, p in indexes if index.is_file()]
    if not started:
        from ..store.questions import find_question

        files = question_files(content())
        if files:
            slug = find_question(content(), str(files[0])).slug
            raise InputError(f"no discussion yet; start one with `discuss run {slug} --auto`"
                             + (f" ({len(files)} questions wait: `discuss status` lists them)" if len(files) > 1 else ""))
        raise InputError("no question yet; ask one: discuss ask \"Your question?\" --panel offline")
    return read_question(max(started)[2])


def _loaded(files: list[Path]) -> list[tuple[Path, Discussion]]:
    """Each question file with its discussion, read once; one that cannot be read is `status`'s and `show`'s
    to report."""
    from ..store import discussions as store

    found = []
    for path in files:
        try:
            d = store.load(path.with_suffix(""))
        except InputError:
            continue
        if d is not None:
            found.append((path, d))
    return found


def _inconsistent(loaded: list[tuple[Path, Discussion]]) -> list[tuple[Path, str]]:
    """Discussions whose recorded outcome their ballots do not bear out (`verify` says it all)."""
    from ..archive.report import inconsistent

    return [(path, "its recorded outcome does not follow from its ballots: " + "; ".join(lines[:3]))
            for path, d in loaded if (lines := inconsistent(d))]


def _orphans(loaded: list[tuple[Path, Discussion]]) -> list[tuple[Path, str]]:
    """Round folders a finished thread's index does not list: not refused, never counted, said."""
    return [(path.with_suffix(""), f"{', '.join(f'round-{n}/' for n in d.orphan_rounds)} not listed "
                                   "in discussion.yaml: left out, never counted")
            for path, d in loaded if d.orphan_rounds]


@app.command(rich_help_panel=FAMILY)
@handled
def check(as_json: bool = typer.Option(False, "--json", help="JSON: {files, refused: [{path, problem}]}.")) -> None:
    """List every question file that discuss, or Project Dyson's content rules, would refuse; changes nothing."""
    from ..errors import InputError as Refused
    from ..store.dysonrules import problems
    from ..store.layout import question_files
    from ..store.questions import read_question

    files = question_files(content())
    found: list[tuple[Path, str]] = []
    for path in files:
        try:
            read_question(path)
        except Refused as exc:
            found.append((path, str(exc).removeprefix(f"{path}: ")))
    found += problems(content())
    from ..store.layout import clashes

    found += [(path, f"differs from {other.name} only by case or Unicode form: on macOS and Windows they are one "
                     "file; rename one") for path, other in clashes(files).items()]
    loaded = _loaded(files)
    found += _inconsistent(loaded)
    notes = _orphans(loaded)
    if as_json:
        import json

        refused = [{"path": path.relative_to(root()).as_posix(), "problem": problem}
                   for path, problem in sorted(found, key=lambda x: str(x[0]))]
        notices = [{"path": path.relative_to(root()).as_posix(), "note": note} for path, note in notes]
        typer.echo(json.dumps({"files": len(files), "refused": refused, "notices": notices}, indent=2,
                              ensure_ascii=False))
        if found:
            raise typer.Exit(1)
        return
    for path, problem in sorted(found, key=lambda x: str(x[0])):
        typer.echo(f"{path.relative_to(root())}: {problem}")
    for path, note in notes:
        typer.echo(f"note: {path.relative_to(root())}: {note}")
    if found:
        typer.echo(f"error: {len({p for p, _ in found})} of {len(files)} question file(s) would be refused", err=True)
        raise typer.Exit(1)
    typer.echo(f"all {len(files)} question file(s) pass")


@app.command(rich_help_panel=FAMILY)
@handled
def panels(as_json: bool = typer.Option(False, "--json", help="JSON: a row per member.")):
    """Each panel: its members, their models, its referees, and whether each key is set (no call is made)."""
    from ..commands.reading import panel_rows
    from ..text.tables import table

    rows = panel_rows(layout())
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
    from ..commands.reading import protocol_rows

    if as_json:
        import json

        typer.echo(json.dumps(protocol_rows(), indent=2))
        return
    import textwrap

    for row in protocol_rows():
        typer.echo(f"{row['name']:<12} {row['summary']}")
        if row["settings"]:
            said = f"its own settings (--set KEY=VALUE): {', '.join(row['settings'])}"
            typer.echo(textwrap.fill(said, 100, initial_indent=" " * 13, subsequent_indent=" " * 15))


def rescore_spec(wanted: str) -> tuple[str, list[str]]:
    """`selfVoteWeight=0,0.5,1` as (setting, values); a bare list of values gives no setting (the protocol's own)."""
    setting, _, listed = wanted.rpartition("=")
    return setting.strip(), [v.strip() for v in listed.split(",") if v.strip()]


def _rescore(d: Discussion, wanted: str, as_json: bool) -> None:
    from ..protocols import get_protocol

    setting, values = rescore_spec(wanted)
    try:
        found = get_protocol(d.protocol).figures.rescore(d, setting, values)
    except InputError as exc:
        raise InputError(f"--rescore {wanted!r}: {exc}") from None
    if found is None:
        raise InputError(f"--rescore: the {d.protocol} protocol cannot re-score {setting or wanted}")
    if as_json:
        import json

        typer.echo(json.dumps(found[0], indent=2))
    else:
        typer.echo("\n".join(found[1]))
