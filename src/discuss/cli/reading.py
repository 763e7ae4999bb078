"""Commands that read the archive: status, show, export, rescore, check, panels and protocols."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ..errors import InputError

if TYPE_CHECKING:
    from ..domain import Discussion, Question


from .base import TRIALS, _trial_number, app, content, handled, layout, root

FAMILY = "Read"  # the panel of `discuss --help` these commands are listed under


@app.command(rich_help_panel=FAMILY)
@handled
def status(question: str | None = typer.Argument(None, help="One question; default all."),
           as_json: bool = typer.Option(False, "--json", help="JSON: a list of rows (see the documentation's commands page).")):
    """Every discussion (or one): status, rounds, leader, termination, tokens, cost, protocol."""
    from ..archive.listing import STATUS_HEADER, money, table
    from ..commands.reading import status_rows

    found, warnings = status_rows(content(), question)
    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)
    if as_json:
        import json

        typer.echo(json.dumps(found, indent=2))
        return
    rows = [[row["slug"], _shown_status(row), str(row["rounds"]), row["leader"] or "-",
             row["terminationReason"] or "-", str(row["usage"]["totalTokens"]), money(row["usage"]["cost"]),
             row["protocol"] or "-", ", ".join(row["waitingFor"]) or "-"] for row in found]
    typer.echo(table(STATUS_HEADER, rows) if rows else f"no questions under {content()}")


def _shown_status(row: dict) -> str:
    if row["status"] == "closed" and row["terminationReason"] == "budget":
        return "stopped (budget)"
    return row["status"] + (" (Dyson)" if row["dyson"] else "")


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
    if as_json:
        import json

        from ..commands.reading import discussion_data

        typer.echo(json.dumps(discussion_data(content(), q.slug, round_number), indent=2, ensure_ascii=False))
        return
    typer.echo(render(d, full=full, only=round_number), nl=False)


def _latest() -> Question:
    """The question whose discussion changed last (its discussion.yaml written last)."""
    from ..store.layout import DISCUSSION_FILE, question_files
    from ..store.questions import read_question

    indexes = [(p.with_suffix("") / DISCUSSION_FILE, p) for p in question_files(content())]
    started = [(index.stat().st_mtime_ns, str(p), p) for index, p in indexes if index.is_file()]
    if not started:
        raise InputError("no discussion yet; start one with `discuss run QUESTION --auto`")
    return read_question(max(started)[2])


def rescore_spec(wanted: str) -> tuple[str, list[str]]:
    """`selfVoteWeight=0,0.5,1` as (setting, values); a bare list of values gives no setting (the protocol's own)."""
    setting, _, listed = wanted.rpartition("=")
    return setting.strip(), [v.strip() for v in listed.split(",") if v.strip()]


def _rescore(d: Discussion, wanted: str, as_json: bool) -> None:
    from ..protocols import get_protocol

    setting, values = rescore_spec(wanted)
    try:
        found = get_protocol(d.protocol).rescore(d, setting, values)
    except InputError as exc:
        raise InputError(f"--rescore {wanted!r}: {exc}") from None
    if found is None:
        raise InputError(f"--rescore: the {d.protocol} protocol cannot re-score {setting or wanted}")
    if as_json:
        import json

        typer.echo(json.dumps(found[0], indent=2))
    else:
        typer.echo("\n".join(found[1]))


@app.command(rich_help_panel=FAMILY)
@handled
def export(questions: list[str] = typer.Argument(None, help="Slugs or paths; default every discussion."),
           csv_dir: Path | None = typer.Option(None, "--csv", help="Write discussions.csv, rounds.csv and "
                                               "votes.csv into this folder."),
           as_json: bool = typer.Option(False, "--json", help="Print the three tables as one JSON document.")):
    """The archive as the tables a study reads: one row per discussion, round and vote."""
    import json

    from ..archive.tables import DIVERGENT, as_csv, divergent_views, tables
    from ..store.files import write_atomic
    from ..store.yamlio import dump as dump_yaml

    if csv_dir is None and not as_json:
        raise InputError("give --csv DIR or --json")
    rows = _archive(questions)
    found, views = tables(rows), divergent_views(rows)
    if as_json:
        typer.echo(json.dumps({**{name.removesuffix(".csv"): table for name, table in found.items()},
                               "divergent_views": views}, indent=2))
    if csv_dir is not None:
        for name, table in found.items():
            write_atomic(csv_dir / name, as_csv(table))
        write_atomic(csv_dir / DIVERGENT, dump_yaml({"schema": 1, "divergentViews": views}))
        typer.echo(f"{len(found['discussions.csv'])} discussion(s), {len(found['rounds.csv'])} round(s), "
                   f"{len(found['votes.csv'])} vote(s), {len(views)} divergent view(s) written to {csv_dir}",
                   err=as_json)


def _archive(questions: list[str] | None) -> list[Any]:
    """The discussions of these questions (default: every one), each its own, its follow-ups' and its trials'."""
    from ..archive.tables import located
    from ..store import discussions as store
    from ..store.followups import part_files
    from ..store.layout import question_files
    from ..store.questions import find_question, read_question

    asked = [find_question(content(), ref) for ref in questions] if questions else [
        read_question(p) for p in question_files(content())]
    rows = []
    for q in asked:
        folders = [(q, q.folder, None)] + [(read_question(p), p.with_suffix(""), n)
                                            for n, p in enumerate(part_files(q), 2)]
        folders += [(q, f, None) for f in sorted((q.folder / TRIALS).glob("trial-*"), key=_trial_number)]
        rows += [located(owner, d, f, content(), n) for owner, f, n in folders if (d := store.load(f)) is not None]
    return rows


@app.command(name="rescore", rich_help_panel=FAMILY)
@handled
def rescore_all(spec: str = typer.Argument(..., help="selfVoteWeight=0,0.5,1 or tieRule=fair,list-order."),
                questions: list[str] = typer.Argument(None, help="Slugs or paths; default every discussion."),
                as_json: bool = typer.Option(False, "--json", help="Every discussion's re-scoring as JSON.")):
    """Re-score the recorded ballots of the archive's vote discussions: how many round winners would change."""
    import json

    from ..protocols import get_protocol

    setting, values = rescore_spec(spec)
    found = []
    for x in _archive(questions):
        try:
            done = get_protocol(x.d.protocol).rescore(x.d, setting, values)
        except InputError as exc:
            raise InputError(f"{spec!r}: {exc}") from None
        if done is not None:
            found.append({"path": x.path, "questionSlug": x.d.question_slug, "variants": done[0]})
    if not found:
        raise InputError(f"no discussion here can be re-scored by {setting or spec}")
    if as_json:
        typer.echo(json.dumps(found, indent=2))
        return
    for i, value in enumerate(found[0]["variants"]):
        rounds = sum(len(f["variants"][i]["winners"]) for f in found)
        changed = [f for f in found if f["variants"][i]["changed"]]
        typer.echo(f"{value['label']}: {sum(len(f['variants'][i]['changed']) for f in changed)} of {rounds} round winner(s) "
                   f"change, in {len(changed)} of {len(found)} discussion(s)"
                   + "".join(f"\n  {f['path']}: round(s) {', '.join(map(str, f['variants'][i]['changed']))}"
                             for f in changed))


def _orphans(files: list[Path]) -> list[tuple[Path, str]]:
    """Round folders a finished thread's index does not list: not refused, never counted, said."""
    from ..store import discussions as store

    notes = []
    for path in files:
        try:
            d = store.load(path.with_suffix(""))
        except InputError:
            continue  # a discussion that cannot be read is `status`'s and `show`'s to report
        if d is not None and d.orphan_rounds:
            notes.append((path.with_suffix(""), f"{', '.join(f'round-{n}/' for n in d.orphan_rounds)} not listed "
                                                "in discussion.yaml: left out, never counted"))
    return notes


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
    notes = _orphans(files)
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
    from ..archive.listing import table
    from ..commands.reading import panel_rows

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
    for row in protocol_rows():
        typer.echo(f"{row['name']:<12} {row['summary']}")
        if row["settings"]:
            typer.echo(f"{'':<12} its own settings (--set KEY=VALUE): {', '.join(row['settings'])}")

