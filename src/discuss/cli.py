"""The `discuss` command: parse, call the runner or the store, print, exit.

Exit 0 when all went well, 1 when a run failed (what was paid for is on
disk), 2 for bad input or usage (nothing on disk changed). Heavy modules are
imported inside the commands so `discuss --help` answers at once.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from .errors import DiscussError, InputError

app = typer.Typer(
    help="A panel of language models deliberates on a research question, in files.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
STATE: dict[str, Path] = {}


def find_root(start: Path) -> Path:
    """The nearest folder upwards holding discussions/panels.yaml, else `start`."""
    for folder in [start, *start.parents]:
        if (folder / "discussions" / "panels.yaml").is_file():
            return folder
    return start


def root() -> Path:
    return STATE.get("root") or find_root(Path.cwd())


def content() -> Path:
    return root() / "content"


def handled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except DiscussError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            typer.echo("interrupted; run the same command again to resume", err=True)
            raise typer.Exit(130) from None

    return wrapper


@app.callback()
def main_options(
    root_dir: Optional[Path] = typer.Option(
        None, "--root", help="Project folder (default: nearest with discussions/panels.yaml).",
        envvar="DISCUSS_ROOT",
    ),
):
    STATE.clear()
    if root_dir is not None:
        if not root_dir.is_dir():
            typer.echo(f"error: --root {root_dir}: no such folder", err=True)
            raise typer.Exit(2)
        STATE["root"] = root_dir.resolve()


@app.command()
@handled
def new(
    title: str = typer.Argument(..., help="The research question, in words."),
    section: str = typer.Option("questions", help="Folder under content/ to put it in."),
    tag: List[str] = typer.Option([], "--tag", help="A tag; repeat for more."),
):
    """Create a question file under content/, ready for its background."""
    from .store.questions import create_question

    path = create_question(content(), section, title, tag)
    typer.echo(f"created {path}")
    typer.echo(f"next: write the background in it, then `discuss run {path.stem} --auto`")


def _load_panel(q, existing, panel_name: Optional[str]):
    from .store.panels import pick_panel

    name = panel_name or (existing.panel.name if existing else None) or q.panel or "default"
    if existing and existing.panel.name and name != existing.panel.name:
        raise InputError(f"{q.folder}: this discussion was started with panel "
                         f"{existing.panel.name!r}; it cannot go on with {name!r}")
    panel, settings = pick_panel(root() / "discussions" / "panels.yaml", name)
    if existing and existing.panel.ids and existing.panel.ids != panel.ids:
        raise InputError(f"panel {name!r} has changed members since this discussion started "
                         f"({', '.join(existing.panel.ids)})")
    return panel, settings


def _print_estimate(q, d, plan, prompts) -> None:
    import asyncio
    from collections import Counter

    from .estimate import estimate_run
    from .report import money
    from .runner import Runner

    usage, calls, unpriced = asyncio.run(estimate_run(lambda g: Runner(g, prompts), q, d, plan))
    tasks = ", ".join(f"{n} {task}" for task, n in Counter(t for _, t in calls).items())
    typer.echo(f"{q.slug}: estimate of this run ({d.protocol}, panel {d.panel.name}), an upper bound")
    typer.echo(f"  calls:             {usage.calls} ({tasks or 'none'})")
    typer.echo(f"  prompt tokens:     {usage.prompt_tokens}")
    typer.echo(f"  completion tokens: at most {usage.completion_tokens}")
    unknown = f" (no price known for {', '.join(unpriced)})" if unpriced else ""
    typer.echo(f"  cost:              at most {money(usage.cost)}{unknown}")


def _protocol(q, existing, panel, wanted: Optional[str]) -> str:
    from .protocols import get_protocol

    name = wanted or (existing.protocol if existing else None) or q.protocol or panel.protocol or "vote"
    get_protocol(name)  # an unknown name is bad input
    if existing and name != existing.protocol:
        raise InputError(f"{q.folder}: this discussion runs the {existing.protocol!r} protocol, not {name!r}")
    return name


@app.command()
@handled
def run(
    question: str = typer.Argument(..., help="Slug of the question, or path to its file."),
    auto: bool = typer.Option(False, "--auto", help="Run rounds until a stopping rule fires."),
    rounds: Optional[int] = typer.Option(None, "--rounds", min=1, help="Run this many more rounds."),
    conclude: bool = typer.Option(False, "--conclude", help="Write the conclusion now (reason: forced)."),
    panel: Optional[str] = typer.Option(None, "--panel", help="Panel from discussions/panels.yaml."),
    protocol: Optional[str] = typer.Option(
        None, "--protocol", help="vote, council, debate, adversarial or auto (default: the question's, "
        "the panel's, else vote)."),
    max_rounds: Optional[int] = typer.Option(None, "--max-rounds", min=1, help="Stop after this round."),
    max_calls: Optional[int] = typer.Option(None, "--max-calls", min=0, help="Budget: model calls (0: none)."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=0, help="Budget: tokens (0: none)."),
    max_cost: Optional[float] = typer.Option(None, "--max-cost", min=0, help="Budget: dollars (0: none)."),
    estimate: bool = typer.Option(False, "--estimate", help="Print the calls, tokens and cost the run "
                                  "would take at most, without making a call or writing a file."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
):
    """Run the panel on a question: one round, N rounds, or --auto until it concludes."""
    import asyncio
    from dataclasses import replace

    from .gateway import Gateway, check_keys
    from .report import Progress
    from .runner import Plan, Runner, prompts_for, start, utc_now  # noqa: F401
    from .store import discussions as store
    from .store.questions import find_question

    if auto and rounds is not None:
        raise InputError("--auto and --rounds cannot be used together")
    q = find_question(content(), question)
    existing = store.load(q.folder)
    if existing and existing.legacy:
        raise InputError(f"{q.folder}: written by Project Dyson's tool; `discuss show` reads it, "
                         "but runs go on only in discussions started by discuss")
    panel_obj, settings = _load_panel(q, existing, panel)
    name = _protocol(q, existing, panel_obj, protocol)
    if existing and existing.concluded:
        typer.echo(f"{q.slug}: already concluded ({existing.termination_reason}); nothing to do")
        return
    d = existing or start(q, panel_obj, settings, utc_now(), name)
    d.panel = panel_obj
    if name == "deliberate" and not d.personas:
        from .store.personas import assign, load_personas

        d.personas = assign(load_personas(root() / "discussions" / "personas"), panel_obj.ids,
                            d.settings.personas)
    limits = {"max_rounds": max_rounds, "max_calls": max_calls, "max_tokens": max_tokens, "max_cost": max_cost}
    d.settings = replace(d.settings, **{k: v for k, v in limits.items() if v is not None})
    plan = Plan(auto=auto, rounds=rounds, conclude=conclude)
    if max(d.settings.max_rounds, d.settings.critique_rounds) > 7:
        typer.echo("warning: more than 7 rounds rarely adds anything but cost; panels converge "
                   "or entrench well before", err=True)
    prompts = prompts_for(root())
    if estimate:
        _print_estimate(q, d, plan, prompts)
        return
    check_keys(panel_obj.everyone)
    if name != "vote":
        from .agreement import measure

        try:
            measure(d.settings.agreement_measure)
        except ValueError as exc:
            raise InputError(f"agreementMeasure: {exc}") from None

    progress = Progress()
    s = d.settings
    gateway = Gateway(timeout=s.timeout_seconds, attempts=s.attempts, base_delay=s.retry_base_delay,
                      asks=s.vote_attempts, on_event=None if quiet else progress.event)
    runner = Runner(gateway, prompts, on_round=None if quiet else progress.line)
    d = asyncio.run(runner.run(q, d, plan))
    from .report import money

    typer.echo(f"{q.slug}: {d.status}, {sum(r.complete for r in d.rounds)} round(s)"
               + (f", stopped: {d.termination_reason}" if d.termination_reason else "")
               + f", {d.usage.total_tokens} tokens, {money(d.usage.cost)}")
    typer.echo(f"files: {q.folder}")


@app.command()
@handled
def status(question: Optional[str] = typer.Argument(None, help="One question; default all.")):
    """Every discussion (or one): status, rounds, leader, termination, tokens, cost."""
    from .report import STATUS_HEADER, status_row, table
    from .store import discussions as store
    from .store.questions import find_question, question_files, read_question

    if question:
        questions = [find_question(content(), question)]
    else:
        questions = []
        for path in question_files(content()) if content().is_dir() else []:
            try:
                questions.append(read_question(path))
            except InputError as exc:
                typer.echo(f"warning: {exc}", err=True)
    rows = [status_row(q.slug, store.load(q.folder)) for q in questions]
    typer.echo(table(STATUS_HEADER, rows) if rows else f"no questions under {content()}")


@app.command()
@handled
def show(question: str = typer.Argument(..., help="Slug of the question, or path to its file.")):
    """Print a discussion: rounds, scores, votes, termination and conclusion."""
    from .report import show as render
    from .store import discussions as store
    from .store.questions import find_question

    q = find_question(content(), question)
    d = store.load(q.folder)
    if d is None:
        typer.echo(f"{q.slug}: no discussion yet; start one with `discuss run {q.slug} --auto`")
        return
    typer.echo(render(d), nl=False)


def main() -> None:
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
