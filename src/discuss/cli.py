"""The `discuss` command: parse, call the runner or the store, print, exit.

Exit 0 when all went well, 1 when a run failed (what was paid for is on
disk), 2 for bad input or usage (nothing on disk changed). Heavy modules are
imported inside the commands so `discuss --help` answers at once.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from .errors import DiscussError, InputError, RunError, WaitingForPeople

if TYPE_CHECKING:
    from .domain import Discussion, Question
from .protocols import BUILT_IN, DEFAULT
from .store.layout import PANELS_FILE, SETTINGS_DIR, Layout


def _flags_without_type() -> None:
    """A flag takes no value, so `--help` shows no `<bool>` beside it (typer 0.29 prints a type for every option)."""
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "_discuss", False):
        return

    def display_type_rich(self, ctx):
        return None if self.is_flag else shown(self, ctx)

    display_type_rich._discuss = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flags_without_type()
app = typer.Typer(
    help="A panel of language models deliberates on a research question, in files.\n\n"
         "Start with: discuss init my-study; cd my-study; "
         "discuss ask \"Which unit goes first?\" --panel offline; discuss show (the conclusion first).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
STATE: dict[str, Path] = {}
BACKGROUND_BYTES = 1024 * 1024  # a background is read whole into every prompt: larger is a mistake


def layout() -> Layout:
    return Layout(STATE["root"]) if "root" in STATE else Layout.find(Path.cwd())


def root() -> Path:
    return layout().root


def content() -> Path:
    return layout().content


ANYWHERE = ("init", "protocols")  # commands that need no project around them


def handled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from . import placeholders, secrets

        try:
            if fn.__name__ not in ANYWHERE and not layout().panels.is_file():
                raise InputError(f"{layout().root}: not a discuss project (no {SETTINGS_DIR}/{PANELS_FILE} here or "
                                 "above); run `discuss init` to make one, or give --root")
            secrets.remember_project(layout().root)
            placeholders.remember_project(layout().prompts)
            return fn(*args, **kwargs)
        except DiscussError as exc:
            typer.echo(f"{'waiting' if isinstance(exc, WaitingForPeople) else 'error'}: {exc}", err=True)
            raise typer.Exit(exc.exit_code) from None
        except OSError as exc:
            typer.echo(f"error: {disk_fault(exc)}", err=True)
            raise typer.Exit(2 if isinstance(exc, (IsADirectoryError, NotADirectoryError, FileExistsError)) else 1) \
                from None
        except KeyboardInterrupt:
            typer.echo("interrupted; run the same command again to resume", err=True)
            raise typer.Exit(130) from None

    return wrapper


def disk_fault(exc: OSError) -> str:
    """One line for a fault of the disk or the tree: what, where, and what was kept."""
    where = f"{exc.filename}: " if exc.filename else ""
    what = exc.strerror or str(exc) or type(exc).__name__
    return (f"{where}{what}; everything saved before this is on disk, and an answer that could not be written "
            "will be asked again when you run the same command")


def _version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"discuss {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    root_dir: Path | None = typer.Option(
        None, "--root", help="Project folder (default: nearest with discussions/panels.yaml).",
        envvar="DISCUSS_ROOT",
    ),
    _: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
):
    STATE.clear()
    if root_dir is not None:
        if not root_dir.is_dir():
            typer.echo(f"error: --root {root_dir}: no such folder", err=True)
            raise typer.Exit(2)
        STATE["root"] = root_dir.resolve()


@app.command()
@handled
def init(folder: Path = typer.Argument(Path("."), help="The project folder (default: this one).")):
    """Start a project: content/, a panel file with an offline panel (and real ones to uncomment), mkdocs.yml."""
    from .scaffold import init as scaffold

    target = folder.resolve()
    if (target / SETTINGS_DIR / PANELS_FILE).is_file():
        raise InputError(f"{target}: already a discuss project ({SETTINGS_DIR}/{PANELS_FILE} is there)")
    for path in scaffold(target):
        typer.echo(f"wrote {path.relative_to(target)}")
    here = "" if target == Path.cwd().resolve() else f"cd {folder} && "
    typer.echo(f"next: {here}discuss ask \"Your research question?\" --panel offline   # a simulated panel\n"
               f"      then mkdocs build, and open site/index.html")


@app.command()
@handled
def new(
    title: str = typer.Argument(..., help="The research question, in words."),
    section: str | None = typer.Option(None, help="Folder under content/ to put it in, such as questions or "
                                       "research-questions/phase-1 (default: questions).", show_default=False),
    tag: list[str] = typer.Option([], "--tag", help="A tag; repeat for more."),
    dyson: bool | None = typer.Option(None, "--dyson/--no-dyson", help="Name, number and place it as Project "
                                      "Dyson's site expects (default: when the content already holds Dyson "
                                      "questions).", show_default=False),
    bom_item: str | None = typer.Option(None, "--bom-item", help="Project Dyson: the BOM item the question "
                                        "comes from, such as bom-1-3 (default: the phase's latest question's)."),
    bom_slug: str | None = typer.Option(None, "--bom-slug", help="Project Dyson: that BOM item's slug."),
):
    """Create a question file under content/, ready for its background."""
    from .store.questions import create_question, is_dyson_layout

    as_dyson = is_dyson_layout(content()) if dyson is None else dyson
    where = section or ("research-questions/phase-1" if as_dyson else "questions")
    path, source = create_question(content(), where, title, tag, dyson=as_dyson, bom=(bom_item, bom_slug))
    if source:
        typer.echo(f"source: {source}")
    typer.echo(f"created {path}")
    typer.echo(f"next: write the background in it, then `discuss run {path.stem} --auto`")


@app.command()
@handled
def run(
    question: str | None = typer.Argument(None, help="Slug of the question, or path to its file."),
    auto: bool = typer.Option(False, "--auto", help="Run rounds until a stopping rule fires."),
    rounds: int | None = typer.Option(None, "--rounds", min=1, help="Run this many more rounds."),
    conclude: bool = typer.Option(False, "--conclude", help="Write the conclusion now (reason: forced)."),
    panel: str | None = typer.Option(None, "--panel", help="Panel from discussions/panels.yaml."),
    protocol: str | None = typer.Option(
        None, "--protocol", help=f"{', '.join(BUILT_IN)} or a plugin's (default: the question's, the panel's, "
        f"else {DEFAULT}); `discuss protocols` describes them."),
    max_rounds: int | None = typer.Option(None, "--max-rounds", min=1, help="Stop after this round."),
    max_calls: int | None = typer.Option(None, "--max-calls", min=0, help="Budget: model calls (0: none)."),
    max_tokens: int | None = typer.Option(None, "--max-tokens", min=0, help="Budget: tokens (0: none)."),
    max_cost: float | None = typer.Option(None, "--max-cost", min=0, help="Budget: dollars (0: none)."),
    timeout: float | None = typer.Option(None, "--timeout", help="Seconds a panelist may take per call before "
                                         "it is dropped from the round (recorded in the config)."),
    estimate: bool = typer.Option(False, "--estimate", help="Print the calls, tokens and cost the run "
                                  "would take at most, without making a call or writing a file."),
    all_open: bool = typer.Option(False, "--all", help="Run every open discussion to its end."),
    tag: list[str] = typer.Option([], "--tag", help="With --all: only questions with this tag."),
    glob: str | None = typer.Option(None, "--glob", help="With --all: only question paths matching this."),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="With --all: discussions at once."),
    shard: str | None = typer.Option(None, "--shard", help="With --all: i/n, this machine's share."),
    any_type: bool = typer.Option(False, "--any-type", help="With --all: questions of every questionType too, "
                                  "not only discussion questions."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Run even a question whose background is empty or "
                             "still the template's text."),
    stream: bool | None = typer.Option(None, "--stream/--no-stream", help="Stream replies from providers "
                                       "that can, showing tokens as they come (default: on a terminal)."),
    method: str | None = typer.Option(None, "--method", help="vote: how ballots show the answers to the rounds "
                                      "this run adds: anonymised (under letters, shuffled per voter) or dyson "
                                      "(under their authors' names, in the panel's order, as Project Dyson's "
                                      "tool did); ties go by the same fair rule either way."),
    hide_winner: bool | None = typer.Option(None, "--hide-winner/--show-winner", help="vote: whether answers "
                                            "see which earlier answer won (hidden: the winner-hidden ablation)."),
):
    """Run the panel on a question: one round, N rounds, or --auto until it concludes."""
    from .prepare import Options

    overrides = {"max_rounds": max_rounds, "max_calls": max_calls, "max_tokens": max_tokens, "max_cost": max_cost,
                 "timeout_seconds": timeout}
    from .protocols.vote.settings import from_flags

    options = Options(panel=panel, protocol=protocol, overrides=overrides, own=from_flags(method, hide_winner))
    if all_open:
        if question or rounds or conclude:
            raise InputError("--all runs every open discussion to its end: give no QUESTION, --rounds "
                             "or --conclude with it")
        return _run_all(options, tag, glob, concurrency, shard, estimate, any_type)
    if question is None:
        raise InputError("give a QUESTION (a slug or a path), or --all")
    if auto and rounds is not None:
        raise InputError("--auto and --rounds cannot be used together")
    _run_one(question, options, auto, rounds, conclude, estimate, quiet, yes, stream=stream)


def _grounded(q, d):
    """The question as the panel reads it (with its sources); a warning for each source changed since."""
    from .prepare import ground

    asked, changes = ground(root(), q, d)
    for line in changes:
        typer.echo(f"warning: {q.slug}: {line}", err=True)
    return asked


def _run_one(question, options, auto, rounds, conclude, estimate, quiet, yes=False, to_stderr=False,
             stream=None) -> None:
    from . import providers
    from .actions import ready
    from .listing import money
    from .prepare import check_ready, gateway_for
    from .report import Progress
    from .runner import Plan, Runner, prompts_for
    from .store.questions import background_problem

    plan = Plan(auto=auto, rounds=rounds, conclude=conclude)
    if estimate:
        from .commands.estimating import estimate as estimated

        e = estimated(root(), content(), question, options, plan)
        for note in e.get("notes", []):
            typer.echo(note, err=True)
        return _print_estimate(e)
    r = ready(root(), content(), question, options)
    for note in r.notes:
        typer.echo(note, err=True)
    q, d = r.q, r.d
    if d.concluded:
        typer.echo(f"{q.slug}: already {d.status} ({d.termination_reason}); nothing to do")
        return
    prompts = prompts_for(root())
    check_ready(d, root())
    if not d.rounds and not yes and (problem := background_problem(q)):
        typer.echo(f"warning: {q.path}: {problem}; the panel will answer without the question's context "
                   "(--yes runs without this warning)", err=True)
        if sys.stdin.isatty() and not typer.confirm("Run it anyway?", default=False, err=True):
            raise typer.Exit(1)
    progress = Progress()
    streaming = (progress.live and not quiet) if stream is None else stream
    on_tokens = (progress.streamed if not quiet else lambda spec, pieces: None) if streaming else None
    runner = Runner(gateway_for(d, root(), None if quiet else progress.event, on_tokens=on_tokens,
                                folder=q.folder), prompts,
                    on_round=None if quiet else progress.line)
    d = providers.run(runner.run(r.asked, d, plan))
    if quiet and to_stderr:
        return  # `ask -q`: the result on stdout and nothing else
    typer.echo(f"{q.slug}: {d.status}, {sum(r.complete for r in d.rounds)} round(s)"
               + (f", stopped: {d.termination_reason}" if d.termination_reason else "")
               + f", {d.usage.total_tokens} tokens, {money(d.usage.cost)}", err=to_stderr)
    typer.echo(f"files: {q.folder}", err=to_stderr)


def _print_estimate(e: dict) -> None:
    from .listing import money

    if e["concluded"]:
        typer.echo(f"{e['slug']}: already {e['status']} ({e['terminationReason']}); nothing to do")
        return
    tasks = ", ".join(f"{n} {task}" for task, n in e["tasks"].items())
    typer.echo(f"{e['slug']}: estimate of this run ({e['protocol']}, panel {e['panel']}), an upper bound")
    typer.echo(f"  calls:             {e['calls']} ({tasks or 'none'})")
    typer.echo(f"  prompt tokens:     at most {e['promptTokens']}")
    typer.echo(f"  completion tokens: at most {e['completionTokens']}")
    unknown = f" (no price known for {', '.join(e['unpriced'])})" if e["unpriced"] else ""
    typer.echo(f"  cost:              at most {money(e['cost'])}{unknown}")
    typer.echo(f"  assumed: no early stop (up to {e['mostRounds']} rounds in all), every reply as long as its "
               f"limit (answers {e['answerTokens']} tokens), every structured reply usable at the first ask")
    if e["structured"] and e["voteAttempts"] > 1:
        worst = e["withReasks"]
        typer.echo(f"  re-asks:           up to {e['structured'] * (e['voteAttempts'] - 1)} more calls if every "
                   f"structured reply ({e['structured']}) must be asked again (voteAttempts {e['voteAttempts']})")
        typer.echo(f"  with every re-ask: at most {worst['calls']} calls, {worst['promptTokens']} prompt and "
                   f"{worst['completionTokens']} completion tokens, {money(worst['cost'])}{unknown}")


def _run_all(options, tags, glob, concurrency, shard, estimate=False, any_type=False) -> None:
    from . import providers
    from .batch import parse_shard, run_many, select
    from .prepare import check_ready, prepare

    questions = select(content(), tags, glob, parse_shard(shard), any_type)
    prepared, unusable = [], []
    for q in questions:  # every source is read, every key checked, before the first call
        try:
            d = prepare(root(), q, options)
            asked = _grounded(q, d)
            if not estimate:
                check_ready(d, root())
        except InputError as exc:  # one broken discussion stops no other; it is reported at the end
            unusable.append(q.slug)
            typer.echo(f"cannot start {q.slug}: {exc}", err=True)
            continue
        prepared.append((asked, d))
    if estimate:
        _estimate_all(prepared)
        return _unusable(unusable)
    if not prepared:
        _unusable(unusable)
        typer.echo("no open discussion to run")
        return
    typer.echo(f"running {len(prepared)} discussion(s), {concurrency} at a time", err=True)
    outcomes = providers.run(run_many(root(), prepared, concurrency, lambda line: typer.echo(line, err=True)))
    failed = [slug for slug, outcome in outcomes.items() if outcome.startswith("failed")]
    elsewhere = [slug for slug, outcome in outcomes.items() if outcome.startswith("running elsewhere")]
    ran = len(outcomes) - len(failed) - len(elsewhere)
    typer.echo(f"{ran} of {len(outcomes)} discussion(s) ran to their end"
               + (f"; {len(elsewhere)} running elsewhere ({', '.join(elsewhere)})" if elsewhere else ""))
    _print_totals([q for q, _ in prepared])
    if failed or unusable:
        said = [f"{len(failed)} failed ({', '.join(failed)}); run again to resume them"] if failed else []
        raise RunError("; ".join(said + ([_unusable_line(unusable)] if unusable else [])))
    if waiting := [slug for slug, outcome in outcomes.items() if outcome.startswith("waiting")]:
        raise WaitingForPeople(f"{len(waiting)} wait for a person ({', '.join(waiting)}); fill in their forms "
                               "and run again")


def _unusable_line(slugs: list[str]) -> str:
    return f"{len(slugs)} could not start ({', '.join(slugs)}): see why above, mend and run again"


def _unusable(slugs: list[str]) -> None:
    if slugs:
        raise InputError(_unusable_line(slugs))


@app.command()
@handled
def status(question: str | None = typer.Argument(None, help="One question; default all."),
           as_json: bool = typer.Option(False, "--json", help="JSON: a list of rows (see the documentation's commands page).")):
    """Every discussion (or one): status, rounds, leader, termination, tokens, cost, protocol."""
    from .commands.reading import status_rows
    from .listing import STATUS_HEADER, money, table

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


@app.command()
@handled
def show(question: str | None = typer.Argument(None, help="Slug of the question, or path to its file; "
                                                "default the discussion that changed last."),
         round_number: int | None = typer.Option(None, "--round", min=1, help="Only this round."),
         full: bool = typer.Option(False, "--full", help="With every answer's text and every vote's reasons."),
         as_json: bool = typer.Option(False, "--json", help="The whole discussion as JSON (see the commands page of the docs)."),
         rescore: str | None = typer.Option(None, "--rescore", help="Tally the recorded ballots again under "
                                            "other values: selfVoteWeight=0,0.5,1.")):
    """Print a discussion: what it came to, then its rounds, scores, votes and termination."""
    from .report import show as render
    from .store import discussions as store
    from .store.questions import find_question

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

        from .commands.reading import discussion_data

        typer.echo(json.dumps(discussion_data(content(), q.slug, round_number), indent=2, ensure_ascii=False))
        return
    typer.echo(render(d, full=full, only=round_number), nl=False)


def _latest() -> Question:
    """The question whose discussion changed last (its discussion.yaml written last)."""
    from .store.layout import DISCUSSION_FILE, question_files
    from .store.questions import read_question

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
    from .protocols import get_protocol

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


@app.command()
@handled
def doctor(panel: str | None = typer.Option(None, "--panel", help="Check one panel; default all."),
           as_json: bool = typer.Option(False, "--json", help="JSON: a row per panelist, with `failed`.")):
    """Check every panelist before spending: key, model known to litellm, endpoint answering."""
    from .doctor import check
    from .listing import table
    from .naming import did_you_mean
    from .store.panels import load_panels

    panels = {name: p for name, (p, _) in load_panels(layout().panels).items()}
    if panel is not None:
        if panel not in panels:
            raise InputError(f"no panel {panel!r} (panels: {', '.join(sorted(panels))})"
                             + did_you_mean(panel, list(panels)))
        panels = {panel: panels[panel]}
    rows = check(panels, scripts=layout().scripts)
    header = ["panel", "member", "model", "key", "price", "endpoint"]
    if as_json:
        import json

        typer.echo(json.dumps([{k: getattr(r, k) for k in header} | {"failed": bool(r.failed)} for r in rows],
                              indent=2))
    else:
        typer.echo(table(header, [[r.panel, r.member, r.model, r.key, r.price, r.endpoint] for r in rows]))
    failed = [f"{r.panel}/{r.member}" for r in rows if r.failed]
    if failed:
        typer.echo(f"error: {len(failed)} panelist(s) would fail: {', '.join(failed)}", err=True)
        raise typer.Exit(1)


def _estimate_all(prepared) -> None:
    """The whole batch priced, a line per discussion and the sum: an upper bound, nothing written."""
    from . import providers
    from .domain import Usage
    from .dry_run import estimate_run
    from .listing import money, table
    from .runner import Plan, Runner, prompts_for

    prompts, total, rows = prompts_for(root()), Usage(), []
    for q, d in prepared:
        usage, _, _, _ = providers.run(estimate_run(lambda g: Runner(g, prompts), q, d, Plan(auto=True)))
        total.add(usage)
        rows.append([q.slug, d.protocol, str(usage.calls), str(usage.total_tokens), money(usage.cost)])
    typer.echo(table(["question", "protocol", "calls", "tokens", "cost"], rows) if rows else "no open discussion")
    typer.echo(f"estimate of the batch, an upper bound: {total.calls} calls, {total.total_tokens} tokens, "
               f"at most {money(total.cost)}")


def _print_totals(questions) -> None:
    """The batch's summary table and its totals, from the files as they now are."""
    from .domain import Usage
    from .listing import STATUS_HEADER, money, status_row, table
    from .store import discussions as store

    summaries = [(q.slug, store.summary(q.folder)) for q in questions]
    typer.echo(table(STATUS_HEADER, [status_row(slug, s) for slug, s in summaries]))
    total = Usage()
    for _, s in summaries:
        if s is not None:
            total.add(s.usage)
    typer.echo(f"total: {total.calls} calls, {total.total_tokens} tokens, {money(total.cost)}")


TRIALS = "trials"  # a question's trial discussions: <its folder>/trials/trial-K/


@app.command()
@handled
def trials(question: str = typer.Argument(..., help="Slug or path of the question, or a folder of trial-N/ "
                                          "discussions (Project Dyson's repeated-trials layout)."),
           runs: int | None = typer.Option(None, "--runs", min=1, help="Run this many trials (to their end); "
                                           "those already there are resumed, not repeated."),
           panel: str | None = typer.Option(None, "--panel", help="Panel from discussions/panels.yaml."),
           protocol: str | None = typer.Option(None, "--protocol", help="The protocol of every trial."),
           estimate: bool = typer.Option(False, "--estimate", help="Price the trials still to run; no call."),
           concurrency: int = typer.Option(4, "--concurrency", min=1, help="Trials at once."),
           into: Path | None = typer.Option(None, "--into", help="Keep the trials in this folder of the project "
                                            "(default: <question>/trials/), e.g. Project Dyson's "
                                            "publications/data/repeated-trials/<slug>/, where its analysis reads "
                                            "them."),
           as_json: bool = typer.Option(False, "--json", help="The report as JSON.")):
    """Run a question N times, independently, and report how stable its outcome is."""
    import json
    from dataclasses import replace

    from . import providers
    from .batch import run_many
    from .prepare import Options, check_ready, prepare
    from .store import discussions as store
    from .store.questions import find_question
    from .trialstats import report

    given = Path(question)
    if runs is None and given.is_dir() and any(given.glob("trial-*/discussion.yaml")):
        folder = given
    else:
        q = find_question(content(), question)
        folder = into.absolute() if into is not None else q.folder / TRIALS
        if runs is not None:
            prepared = []
            for k in range(1, runs + 1):
                trial = replace(q, path=folder / f"trial-{k}.md")
                d = prepare(root(), trial, Options(panel=panel, protocol=protocol))
                d.trial = k
                if not d.concluded:
                    prepared.append((_grounded(trial, d), d))
            if estimate:
                return _estimate_all(prepared)
            for _, d in prepared:
                check_ready(d, root())
            providers.run(run_many(root(), prepared, concurrency, lambda line: typer.echo(line, err=True)))
    found = sorted((p for p in folder.glob("trial-*") if (p / "discussion.yaml").is_file()), key=_trial_number)
    loaded = [d for d in (store.load(p) for p in found) if d is not None]
    if not loaded:
        raise InputError(f"{folder}: no trial yet; run some with --runs N")
    figures = report(loaded)
    if as_json:
        typer.echo(json.dumps(figures, indent=2))
        return
    typer.echo(_trial_lines(figures, folder))
    if figures["finished"] < figures["runs"]:
        raise RunError(f"{figures['runs'] - figures['finished']} trial(s) have not finished; run again to resume them")


def _trial_number(folder: Path) -> int:
    number = folder.name.removeprefix("trial-")
    return int(number) if number.isdigit() else 0


def _trial_lines(f: dict[str, Any], folder: Path) -> str:
    def shown(x: dict[str, Any]) -> str:
        if x["mean"] is None:
            return "-"
        sd = f" sd {x['sd']}" if x["sd"] is not None else ""
        return f"{x['mean']}{sd} (95% CI {x['ci95'][0]} to {x['ci95'][1]})"

    stable = f["winnerStability"]
    return "\n".join([
        f"{f['runs']} trial(s) in {folder} ({f['finished']} finished)",
        f"  rounds:      {shown(f['rounds'])}",
        f"  approval:    {shown(f['approval'])}",
        f"  winner:      {stable['winner'] or '-'}; the same final winner in {stable['final']} of the trials, "
        f"the same first-round winner in {stable['firstRound']}",
        f"  termination: {f['terminationReason'] or '-'} in {f['terminationConsistency']} of the trials",
    ])


@app.command()
@handled
def export(questions: list[str] = typer.Argument(None, help="Slugs or paths; default every discussion."),
           csv_dir: Path | None = typer.Option(None, "--csv", help="Write discussions.csv, rounds.csv and "
                                               "votes.csv into this folder."),
           as_json: bool = typer.Option(False, "--json", help="Print the three tables as one JSON document.")):
    """The archive as the tables a study reads: one row per discussion, round and vote."""
    import json

    from .store.files import write_atomic
    from .store.yamlio import dump as dump_yaml
    from .tables import DIVERGENT, as_csv, divergent_views, tables

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
    from .store import discussions as store
    from .store.followups import part_files
    from .store.layout import question_files
    from .store.questions import find_question, read_question
    from .tables import located

    asked = [find_question(content(), ref) for ref in questions] if questions else [
        read_question(p) for p in question_files(content())]
    rows = []
    for q in asked:
        folders = [(q, q.folder, None)] + [(read_question(p), p.with_suffix(""), n)
                                            for n, p in enumerate(part_files(q), 2)]
        folders += [(q, f, None) for f in sorted((q.folder / TRIALS).glob("trial-*"), key=_trial_number)]
        rows += [located(owner, d, f, content(), n) for owner, f, n in folders if (d := store.load(f)) is not None]
    return rows


@app.command(name="rescore")
@handled
def rescore_all(spec: str = typer.Argument(..., help="selfVoteWeight=0,0.5,1 or tieRule=fair,list-order."),
                questions: list[str] = typer.Argument(None, help="Slugs or paths; default every discussion."),
                as_json: bool = typer.Option(False, "--json", help="Every discussion's re-scoring as JSON.")):
    """Re-score the recorded ballots of the archive's vote discussions: how many round winners would change."""
    import json

    from .protocols import get_protocol

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


@app.command()
@handled
def check(as_json: bool = typer.Option(False, "--json", help="JSON: {files, refused: [{path, problem}]}.")) -> None:
    """List every question file that discuss, or Project Dyson's content rules, would refuse; changes nothing."""
    from .errors import InputError as Refused
    from .store.dysonrules import problems
    from .store.layout import question_files
    from .store.questions import read_question

    files = question_files(content())
    found: list[tuple[Path, str]] = []
    for path in files:
        try:
            read_question(path)
        except Refused as exc:
            found.append((path, str(exc).removeprefix(f"{path}: ")))
    found += problems(content())
    if as_json:
        import json

        refused = [{"path": path.relative_to(root()).as_posix(), "problem": problem}
                   for path, problem in sorted(found, key=lambda x: str(x[0]))]
        typer.echo(json.dumps({"files": len(files), "refused": refused}, indent=2, ensure_ascii=False))
        if found:
            raise typer.Exit(1)
        return
    for path, problem in sorted(found, key=lambda x: str(x[0])):
        typer.echo(f"{path.relative_to(root())}: {problem}")
    if found:
        typer.echo(f"error: {len({p for p, _ in found})} of {len(files)} question file(s) would be refused", err=True)
        raise typer.Exit(1)
    typer.echo(f"all {len(files)} question file(s) pass")


@app.command()
@handled
def ask(
    question: str = typer.Argument(..., help="The research question, in words; - reads it from stdin."),
    panel: str | None = typer.Option(None, "--panel", help="Panel from discussions/panels.yaml."),
    protocol: str | None = typer.Option(None, "--protocol", help=f"{', '.join(BUILT_IN)} or a plugin's."),
    background: Path | None = typer.Option(None, "--background", help="A file whose text is the background; "
                                           "- reads it from stdin."),
    section: str = typer.Option("questions", help="Folder under content/ for the question file."),
    model: list[str] = typer.Option([], "--model", "-m", help="A model for an ad-hoc panel (repeat it): "
                                    "litellm's name, as in panels.yaml; instead of --panel."),
    max_rounds: int | None = typer.Option(None, "--max-rounds", min=1, help="Stop after this round."),
    max_cost: float | None = typer.Option(None, "--max-cost", min=0, help="Budget: dollars (0: none)."),
    as_json: bool = typer.Option(False, "--json", help="Print the discussion as `show --json` does."),
    estimate: bool = typer.Option(False, "--estimate", help="Print the calls, tokens and cost the discussion "
                                  "would take at most, without making a call or leaving a file."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
):
    """Ask in one line: write the question file, run it to its end, print the conclusion."""
    from .prepare import Options
    from .protocols import get_protocol
    from .report import result_text
    from .store import discussions as store
    from .store.documents import read_text
    from .store.questions import read_question

    if question == "-" and str(background) == "-":
        raise InputError("only one of the question and --background can come from stdin")
    if question == "-":
        question = " ".join(sys.stdin.read().split())
        if not question:
            raise InputError("no question on stdin")
    text = None
    if str(background) == "-":
        text = sys.stdin.read().removeprefix("\ufeff").replace("\r\n", "\n")[:BACKGROUND_BYTES]
    elif background is not None:
        try:
            text = read_text(background, limit=BACKGROUND_BYTES).removeprefix("\ufeff").replace("\r\n", "\n")
        except ValueError as exc:
            raise InputError(f"--background {background}: cannot be read: {exc}") from None
    if protocol is not None:
        get_protocol(protocol)  # an unknown name is refused before a file is written
    from .actions import ask_file

    made = [] if (content() / section).is_dir() else [content() / section]  # to take away after an estimate
    path, created = ask_file(content(), section, question, text)
    if not quiet and not estimate:
        typer.echo(f"question: {path}" + ("" if created else " (asked before: going on with it)"), err=True)
    options = Options(panel=panel, protocol=protocol, overrides={"max_rounds": max_rounds, "max_cost": max_cost},
                      models=model or None)
    if estimate:
        try:
            return _run_one(str(path), options, True, None, False, True, quiet)
        finally:
            if created:
                path.unlink(missing_ok=True)
                for folder in made:
                    shutil.rmtree(folder, ignore_errors=True)
    try:
        _run_one(str(path), options, True, None, False, False, quiet, yes=True, to_stderr=True)  # stdout: the result
    except InputError:
        if created and not read_question(path).folder.exists():
            path.unlink(missing_ok=True)  # nothing ran: exit 2 leaves the project as it was
        raise
    except RunError as exc:
        raise RunError(f"{exc}; the same `discuss ask` goes on where it stopped "
                       f"(or `discuss run {read_question(path).slug} --auto`)") from None
    d = store.load(read_question(path).folder)
    if d is not None and as_json:
        import json

        from .export import discussion_json

        typer.echo(json.dumps(discussion_json(d), indent=2, ensure_ascii=False))
    elif d is not None:
        typer.echo(result_text(d), nl=False)


@app.command()
@handled
def panels(as_json: bool = typer.Option(False, "--json", help="JSON: a row per member.")):
    """Each panel: its members, their models, its referees, and whether each key is set (no call is made)."""
    from .commands.reading import panel_rows
    from .listing import table

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


@app.command()
@handled
def mcp():
    """Serve this project to an agent over MCP (stdio): ask, status, show, panels, protocols."""
    try:
        from .mcp_server.server import serve
    except ImportError as exc:
        raise InputError(f"the MCP server needs the mcp package ({exc}): pip install 'discuss-panel[mcp]'") from None
    serve(root())


@app.command()
@handled
def protocols():
    """The protocols a discussion can follow, each in a line."""
    from .commands.reading import protocol_rows

    typer.echo("\n".join(f"{row['name']:<12} {row['summary']}" for row in protocol_rows()))


def _fill(question: str, person: str, ballot: bool, edit: bool | None) -> None:
    """A person's open form: filled from stdin, or in $EDITOR on a terminal; saved only when it passes."""
    import shlex
    import subprocess
    import tempfile

    from .actions import save_form, waiting_form
    from .providers.human import MARK

    form = waiting_form(content(), question, person, ballot)
    text = form.path.read_text(encoding="utf-8")
    if sys.stdin.isatty() if edit is None else edit:
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as tmp:
            tmp.write(text)
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        subprocess.run([*shlex.split(editor), tmp.name], check=False)
        edited = Path(tmp.name).read_text(encoding="utf-8")
        Path(tmp.name).unlink()
    else:
        edited = text.split(MARK, 1)[0] + MARK + "\n\n" + sys.stdin.read().strip() + "\n"
    save_form(form, edited)
    typer.echo(f"saved {form.path}; `discuss run {form.q.slug}` goes on")


@app.command()
@handled
def reply(question: str = typer.Argument(..., help="Slug of the question, or path to its file."),
          person: str = typer.Option(..., "--as", help="Your id in the panel."),
          edit: bool | None = typer.Option(None, "--edit/--stdin", help="Open $EDITOR, or read stdin "
                                           "(default: the editor on a terminal)."), ):
    """Answer as a person on the panel: opens your form in $EDITOR, or reads the answer from stdin."""
    _fill(question, person, False, edit)


@app.command()
@handled
def vote(question: str = typer.Argument(..., help="Slug of the question, or path to its file."),
         person: str = typer.Option(..., "--as", help="Your id in the panel."),
         edit: bool | None = typer.Option(None, "--edit/--stdin", help="Open $EDITOR, or read stdin "
                                          "(default: the editor on a terminal)."), ):
    """Vote as a person on the panel: opens your ballot in $EDITOR, or reads its YAML from stdin."""
    _fill(question, person, True, edit)


@app.command("follow-up")
@handled
def follow_up(
    question: str = typer.Argument(..., help="Slug of a finished discussion's question, or path to its file."),
    text: str | None = typer.Argument(None, help="The follow-up question; none: go on with the latest part."),
    auto: bool = typer.Option(False, "--auto", help="Run rounds until a stopping rule fires."),
    rounds: int | None = typer.Option(None, "--rounds", min=1, help="Run this many rounds."),
    panel: str | None = typer.Option(None, "--panel", help="Another panel (default: the discussion's)."),
    protocol: str | None = typer.Option(None, "--protocol", help="Another protocol (default: the discussion's)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
):
    """Ask a finished discussion a further question: new rounds that read its conclusion and end in their own."""
    from .actions import follow_up_file
    from .prepare import Options

    if auto and rounds is not None:
        raise InputError("--auto and --rounds cannot be used together")
    target = follow_up_file(content(), question, text, panel, protocol)
    if text is not None:
        typer.echo(f"follow-up: {target}", err=True)
    _run_one(str(target), Options(panel=panel, protocol=protocol), auto, rounds, False, False, quiet, yes=True)


ci_app = typer.Typer(help="Set up continuous runs of every open discussion.", no_args_is_help=True)
app.add_typer(ci_app, name="ci")


@ci_app.command("init")
@handled
def ci_init(
    shards: int = typer.Option(1, "--shards", min=1, max=256, help="Machines to share the questions among."),
    branch: str | None = typer.Option(None, "--branch", help="Push the new rounds to this branch instead of "
                                      "opening a pull request."),
    install: str | None = typer.Option(None, "--install", help="The command that installs discuss on the "
                                       "runner (default: the release or git commit running here)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing workflow file."),
):
    """Write a GitHub Actions workflow: N machines run their shards, one gathers the new rounds and the site."""
    from .ci import WORKFLOW, workflow
    from .providers import key_names
    from .store.files import write_atomic
    from .store.panels import load_panels

    target = root() / WORKFLOW
    if target.exists() and not force:
        raise InputError(f"{target} exists; --force replaces it")
    install = install or _install_line()
    panels = load_panels(layout().panels) if layout().panels.is_file() else {}
    secrets = key_names([m for panel, _ in panels.values() for m in panel.everyone])
    try:
        text = workflow(shards, secrets, install, branch)
    except ValueError as exc:  # a branch a shell would read as code
        raise InputError(str(exc)) from None
    write_atomic(target, text)
    typer.echo(f"wrote {target}")
    if secrets:
        typer.echo("add these repository secrets (Settings > Secrets and variables > Actions): "
                   + ", ".join(secrets))


def _install_line() -> str:
    """How the runners install discuss: as it was installed here where a runner can do the same."""
    from importlib.metadata import PackageNotFoundError, distribution

    from . import DISTRIBUTION, __version__
    from .ci import install_line, release_line

    try:
        dist = distribution(DISTRIBUTION)
        line = install_line(dist.read_text("direct_url.json"), dist.version)
    except PackageNotFoundError:
        line = None
    if line is None:
        line = release_line(__version__)
        typer.echo(f"warning: discuss runs here from a folder on this machine, which a runner cannot reach; "
                   f"the workflow installs the release of this version, `{line}`: give --install to change it",
                   err=True)
    return line


def main() -> None:
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
