"""Commands that run discussions: run, ask, follow-up and trials."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from .. import commands
from ..commands.project import BUILT_IN, DEFAULT
from ..errors import InputError, RunError, WaitingForPeople
from ..text.tables import money, table
from .base import (
    BACKGROUND_BYTES,
    _unusable,
    _unusable_line,
    app,
    content,
    handled,
    root,
)
from .progress import Progress

if TYPE_CHECKING:
    from ..commands.estimating import Estimate

FAMILY = "Run"  # the panel of `discuss --help` these commands are listed under


@app.command(rich_help_panel=FAMILY)
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
    as_json: bool = typer.Option(False, "--json", help="With --all: how each discussion ended, as JSON "
                                 "({discussions: [{name, outcome, detail}], notStarted})."),
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
    assigned: list[str] = typer.Option([], "--set", metavar="KEY=VALUE", help="A setting of the protocol's own, "
                                       "for the rounds this run adds (`--set ballots=named`); repeatable. "
                                       "`discuss protocols` lists each protocol's settings."),
):
    """Run the panel on a question: one round, N rounds, or --auto until it concludes."""
    overrides = {"max_rounds": max_rounds, "max_calls": max_calls, "max_tokens": max_tokens, "max_cost": max_cost,
                 "timeout_seconds": timeout}
    options = commands.running.Options(panel=panel, protocol=protocol, overrides=overrides, own=assignments(assigned),
                      flags={"method": method, "hide_winner": hide_winner})
    if all_open:
        if question or rounds or conclude:
            raise InputError("--all runs every open discussion to its end: give no QUESTION, --rounds "
                             "or --conclude with it")
        return _run_all(options, tag, glob, concurrency, shard, estimate, any_type, as_json)
    if question is None:
        raise InputError("give a QUESTION (a slug or a path), or --all")
    if as_json:
        raise InputError("--json goes with --all (one discussion: `discuss show QUESTION --json` after the run)")
    if auto and rounds is not None:
        raise InputError("--auto and --rounds cannot be used together")

    plan = commands.running.Plan(auto=auto, rounds=rounds, conclude=conclude)
    _run_one(question, options, plan, estimate=estimate, quiet=quiet, yes=yes, stream=stream)


def assignments(given: list[str]) -> dict[str, object]:
    """`--set key=value` options as settings: true/false and numbers as such, anything else as text."""
    out: dict[str, object] = {}
    for item in given:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--set {item}: give KEY=VALUE, e.g. --set ballots=named")
        value: object = {"true": True, "false": False}.get(raw.strip().lower(), raw.strip())
        if isinstance(value, str):
            for kind in (int, float):
                try:
                    value = kind(value)
                    break
                except ValueError:
                    continue
        out[key.strip()] = value
    return out


def _run_one(question: str, options, plan, *, estimate: bool = False, quiet: bool = False, yes: bool = False,
             to_stderr: bool = False, stream: bool | None = None) -> None:
    """Run one question under `plan` (or print its estimate), printing progress and the outcome."""
    if estimate:
        e = commands.estimating.estimate(root(), content(), question, options, plan)
        if isinstance(e, commands.estimating.Ended):
            typer.echo(f"{e.slug}: already {e.status} ({e.termination_reason}); nothing to do")
            return
        for note in e.notes:
            typer.echo(note, err=True)
        return _print_estimate(e)
    r = commands.running.ready(root(), content(), question, options)
    for note in r.notes:
        typer.echo(note, err=True)
    q, d = r.q, r.d
    if d.concluded:
        typer.echo(f"{q.slug}: already {d.status} ({d.termination_reason}); nothing to do")
        return
    prompts = commands.running.startable(root(), r)
    if not d.rounds and not yes and (problem := commands.questions.background_problem(q)):
        typer.echo(f"warning: {q.path}: {problem}; the panel will answer without the question's context "
                   "(--yes runs without this warning)", err=True)
        if sys.stdin.isatty() and not typer.confirm("Run it anyway?", default=False, err=True):
            raise typer.Exit(1)
    progress = Progress()
    streaming = (progress.live and not quiet) if stream is None else stream
    on_tokens = (progress.streamed if not quiet else lambda spec, pieces: None) if streaming else None
    d = commands.running.run_ready(root(), r, plan, prompts, None if quiet else progress.event, on_tokens, progress.note,
                  None if quiet else progress.line)
    if quiet and to_stderr:
        return  # `ask -q`: the result on stdout and nothing else
    typer.echo(f"{q.slug}: {d.status}, {sum(r.complete for r in d.rounds)} round(s)"
               + (f", stopped: {d.termination_reason}" if d.termination_reason else "")
               + f", {d.usage.total_tokens} tokens, {money(d.usage.cost)}", err=to_stderr)
    typer.echo(f"files: {q.folder}", err=to_stderr)


def _print_estimate(e: Estimate) -> None:
    tasks = ", ".join(f"{n} {task}" for task, n in e.tasks.items())
    typer.echo(f"{e.slug}: estimate of this run ({e.protocol}, panel {e.panel}), an upper bound")
    typer.echo(f"  calls:             {e.calls} ({tasks or 'none'})")
    typer.echo(f"  prompt tokens:     at most {e.prompt_tokens}")
    typer.echo(f"  completion tokens: at most {e.completion_tokens}")
    typer.echo(f"  cost:              {_bound(e.cost, e.unpriced)}")
    typer.echo(f"  assumed: no early stop (up to {e.most_rounds} rounds in all), every reply as long as its "
               f"limit (answers {e.answer_tokens} tokens), every structured reply usable at the first ask")
    if e.structured and e.vote_attempts > 1:
        worst = e.with_reasks
        typer.echo(f"  re-asks:           up to {e.structured * (e.vote_attempts - 1)} more calls if every "
                   f"structured reply ({e.structured}) must be asked again (voteAttempts {e.vote_attempts})")
        typer.echo(f"  with every re-ask: at most {worst.calls} calls, {worst.prompt_tokens} prompt and "
                   f"{worst.completion_tokens} completion tokens, {_bound(worst.cost, e.unpriced)}")


def _bound(cost: float | None, unpriced: list[str]) -> str:
    """An estimate's dollars in words: where a member's price is unknown the sum is no bound, and says so."""
    if not unpriced:
        return f"at most {money(cost)}"
    known = f"; the members with a price: at most {money(cost)}" if cost else ""
    return f"unknown (no price known for {', '.join(unpriced)}{known})"


def _run_all(options, tags, glob, concurrency, shard, estimate=False, any_type=False, as_json=False) -> None:
    questions = commands.batch.select(content(), tags, glob, commands.batch.parse_shard(shard), any_type)
    prepared, unusable = commands.batch.prepare_all(root(), questions, options, not estimate,
                                                    lambda line: typer.echo(line, err=True))
    if estimate:
        _estimate_all(prepared, as_json)
        return _unusable(unusable)
    if not prepared:
        _unusable(unusable)
        typer.echo("no open discussion to run")
        return
    typer.echo(f"running {len(prepared)} discussion(s), {concurrency} at a time", err=True)
    outcomes = commands.batch.run_all(root(), prepared, concurrency, lambda line: typer.echo(line, err=True))
    kinds = {kind: [name for name, o in outcomes.items() if o.kind == kind]
             for kind in ("finished", "waiting", "elsewhere", "failed")}
    failed, elsewhere = kinds["failed"], kinds["elsewhere"]
    if as_json:
        import json

        typer.echo(json.dumps({"discussions": [{"name": name, "outcome": o.kind, "detail": o.text}
                                               for name, o in outcomes.items()],
                               "notStarted": unusable}, indent=2))
    else:
        waiting = kinds["waiting"]
        typer.echo(f"{len(kinds['finished'])} of {len(outcomes)} discussion(s) ran to their end"
                   + (f"; {len(waiting)} wait for a person ({', '.join(waiting)})" if waiting else "")
                   + (f"; {len(failed)} failed" if failed else "")
                   + (f"; {len(elsewhere)} running elsewhere ({', '.join(elsewhere)})" if elsewhere else ""))
        _print_totals([q for q, _ in prepared])
    if failed or unusable:
        said = [f"{len(failed)} failed ({', '.join(failed)}); run again to resume them"] if failed else []
        raise RunError("; ".join(said + ([_unusable_line(unusable)] if unusable else [])))
    if waiting := kinds["waiting"]:
        raise WaitingForPeople(f"{len(waiting)} wait for a person ({', '.join(waiting)}); fill in their forms "
                               "and run again")


def _estimate_all(prepared, as_json: bool = False) -> None:
    """The whole batch priced, a line per discussion and the sum: an upper bound, nothing written."""
    found = commands.estimating.batch_estimate(root(), prepared)
    if as_json:
        import json

        typer.echo(json.dumps(found.to_json(), indent=2))
        return
    rows = [[e.slug, e.protocol, str(e.calls), str(e.tokens), money(e.cost)] for e in found.discussions]
    total = found.total
    typer.echo(table(["question", "protocol", "calls", "tokens", "cost"], rows) if rows else "no open discussion")
    typer.echo(f"estimate of the batch, an upper bound: {total.calls} calls, {total.tokens} tokens, "
               f"at most {money(total.cost)}")


def _print_totals(questions) -> None:
    """The batch's summary table and its totals, from the files as they now are."""
    shown, total = commands.finished.batch_table(questions)
    typer.echo(shown)
    typer.echo(f"total: {total.calls} calls, {total.total_tokens} tokens, {money(total.cost)}")


@app.command(rich_help_panel=FAMILY)
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
    assigned: list[str] = typer.Option([], "--set", metavar="KEY=VALUE", help="A setting of the protocol's own "
                                       "(`--set critiqueRounds=2`); repeatable."),
    decision: list[str] = typer.Option([], "--decision", help="Ask for a decision: yes-no, or an option to "
                                       "choose from (repeat it for each); `verdict` then gives the one chosen."),
    as_json: bool = typer.Option(False, "--json", help="Print the discussion as `show --json` does."),
    estimate: bool = typer.Option(False, "--estimate", help="Print the calls, tokens and cost the discussion "
                                  "would take at most, without making a call or leaving a file."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
):
    """Ask in one line: write the question file, run it to its end, print the conclusion."""
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
            text = commands.questions.background_text(background, BACKGROUND_BYTES).removeprefix("\ufeff").replace("\r\n", "\n")
        except ValueError as exc:
            raise InputError(f"--background {background}: cannot be read: {exc}") from None

    request = commands.asking.AskRequest(question, text, panel, list(model), protocol, max_rounds, max_cost,
                                         assignments(assigned),
                                         decision[0] if decision == ["yes-no"] else list(decision) or None)
    request.check(commands.project.Layout(root()), section, ready=not estimate)  # before a file is written

    made = [] if (content() / section).is_dir() else [content() / section]  # to take away after an estimate
    path, how = commands.running.ask_file(content(), section, question, text, request.decision)
    created = how != "same"
    if not quiet and not estimate:
        typer.echo(f"question: {path}" + (f" ({commands.running.ASKED[how]})" if how in commands.running.ASKED else ""), err=True)
    options = request.options()
    if estimate:
        try:
            return _run_one(str(path), options, commands.running.Plan(auto=True), estimate=True, quiet=quiet)
        finally:
            if created:
                path.unlink(missing_ok=True)
                for folder in made:
                    shutil.rmtree(folder, ignore_errors=True)
    try:
        _run_one(str(path), options, commands.running.Plan(auto=True), quiet=quiet, yes=True,
                 to_stderr=True)  # stdout: the result
    except InputError:
        if created and not commands.questions.question_at(path).folder.exists():
            path.unlink(missing_ok=True)  # nothing ran: exit 2 leaves the project as it was
            if not quiet:
                typer.echo(f"question: {path} taken away again (nothing ran)", err=True)
        raise
    except RunError as exc:
        raise RunError(f"{exc}; the same `discuss ask` goes on where it stopped "
                       f"(or `discuss run {commands.questions.question_at(path).slug} --auto`)") from None
    said = commands.finished.result(path, as_json)
    if isinstance(said, dict):
        import json

        typer.echo(json.dumps(said, indent=2, ensure_ascii=False))
    elif said is not None:
        typer.echo(said, nl=False)


@app.command("follow-up", rich_help_panel=FAMILY)
@handled
def follow_up(
    question: str = typer.Argument(..., help="Slug of a finished discussion's question, or path to its file."),
    text: str | None = typer.Argument(None, help="The follow-up question; none: go on with the latest part."),
    auto: bool = typer.Option(False, "--auto", help="Run rounds until a stopping rule fires (the default)."),
    rounds: int | None = typer.Option(None, "--rounds", min=1, help="Run this many rounds only, then stop."),
    panel: str | None = typer.Option(None, "--panel", help="Another panel (default: the discussion's)."),
    protocol: str | None = typer.Option(None, "--protocol", help="Another protocol (default: the discussion's)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
):
    """Ask a finished discussion a further question: new rounds that read its conclusion and end in their own."""
    if auto and rounds is not None:
        raise InputError("--auto and --rounds cannot be used together")
    target = commands.running.follow_up_file(content(), question, text, panel, protocol)
    if text is not None:
        typer.echo(f"follow-up: {target}", err=True)
    options = commands.running.Options(panel=panel, protocol=protocol)
    _run_one(str(target), options, commands.running.Plan(auto=rounds is None, rounds=rounds), quiet=quiet, yes=True,
             to_stderr=True)
    if isinstance(said := commands.finished.result(target, concluded=True), str):
        typer.echo(said, nl=False)  # stdout: what the follow-up came to, as `ask` prints it

