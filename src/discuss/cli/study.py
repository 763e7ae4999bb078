"""Commands a study runs on the archive: trials, audit, export and rescore."""

from __future__ import annotations

from pathlib import Path

import typer

from .. import commands
from ..errors import InputError, RunError
from ..text.tables import money
from .base import app, content, handled, layout, root
from .progress import Progress
from .running import _estimate_all

FAMILY = "Study"  # the panel of `discuss --help` these commands are listed under


@app.command(rich_help_panel=FAMILY)
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


    if into is not None:
        commands.project.confined(into, root(), what=f"--into {into}")
    folder, q = commands.repeating.trials_folder(content(), question, into, running=runs is not None)
    if runs is not None and q is not None:
        echo = lambda line: typer.echo(line, err=True)  # noqa: E731
        options = commands.running.Options(panel=panel, protocol=protocol)
        prepared = commands.repeating.prepared_trials(root(), q, folder, runs, options, echo)
        if estimate:
            return _estimate_all(prepared)
        commands.repeating.run_trials(root(), prepared, concurrency, echo)
    figures = commands.repeating.trials_report(folder)
    if as_json:
        typer.echo(json.dumps(figures.to_json(), indent=2))
        return
    typer.echo(_trial_lines(figures, folder))
    if figures.finished < figures.runs:
        raise RunError(f"{figures.runs - figures.finished} trial(s) have not finished; run again to resume them")


def _trial_lines(f: commands.repeating.TrialsReport, folder: Path) -> str:
    """The report as `show` words its figures: approval in percent, a share as "k of n"."""
    def shown(x: commands.repeating.Spread, unit: str = "") -> str:
        if x.mean is None or x.ci95 is None:
            return "-"
        sd = f", sd {x.sd:g}{unit}" if x.sd is not None else ""
        return f"{x.mean:.1f}{unit}{sd} (95% CI {x.ci95[0]:.1f}{unit} to {x.ci95[1]:.1f}{unit})"

    def share(fraction: float | None) -> str:
        if fraction is None:
            return "-"
        return f"{round(fraction * f.runs)} of {f.runs} trials ({100 * fraction:.0f}%)"

    stable = f.winner_stability
    lines = [
        f"{f.runs} trial(s) in {folder} ({f.finished} finished)",
        f"  rounds:      {shown(f.rounds)}",
        f"  approval:    {shown(f.approval, '%')}",
        f"  winner:      {stable.winner or '-'}: the final winner in {share(stable.final)}; "
        f"the same first-round winner in {share(stable.first_round)}",
        f"  termination: {f.termination_reason or '-'} in {share(f.termination_consistency)}",
    ]
    for pid, leaning in f.bias.items():
        if leaning.self_vote_generosity.mean is not None:
            lines.append(f"  bias:        {pid}: self-vote generosity {shown(leaning.self_vote_generosity)} "
                         "over the trials")
    lines += [f"  left out:    {name}: round folder(s) {', '.join(f'round-{n}/' for n in numbers)} its "
              "discussion.yaml does not list (not counted, as Dyson's analysis reads only listed rounds)"
              for name, numbers in f.orphan_rounds.items()]
    return "\n".join(lines)


@app.command(rich_help_panel=FAMILY)
@handled
def audit(question: str = typer.Argument(..., help="Slug or path of a vote discussion's question."),
          round_number: int | None = typer.Option(None, "--round", min=1, help="The round (default: the last "
                                                  "finished one with ballots)."),
          orders: int = typer.Option(4, "--orders", min=1, max=50, help="New label orders each voter is shown."),
          padding: bool = typer.Option(False, "--padding", help="Also ask each order with one answer lengthened by "
                                       "a neutral restatement of itself (length bias)."),
          estimate: bool = typer.Option(False, "--estimate", help="Price the re-asks; no call."),
          panel: str | None = typer.Option(None, "--panel", help="Reach the voters as this panel gives them "
                                           "(default: the discussion's)."),
          as_json: bool = typer.Option(False, "--json", help="The figures as JSON."),
          quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr.")):
    """Ask a round's voters again with the same answers in new orders: their position and length bias."""
    import json


    progress = Progress()
    found = commands.auditing.audit(root(), content(), question, round_number, orders, padding, estimate, panel,
                      on_event=None if quiet else progress.event, on_note=progress.note)
    if as_json:
        typer.echo(json.dumps(found.to_json(), indent=2))
    elif isinstance(found, commands.auditing.AuditEstimate):
        typer.echo(f"{found.slug}: the audit of round {found.round} would make at most {found.calls} calls, "
                   f"{found.prompt_tokens} prompt and {found.completion_tokens} completion tokens, "
                   f"{money(found.cost) if found.cost is not None else 'cost unknown'}")
    else:
        typer.echo(f"{found.slug}, round {found.round}: {found.kept} ballot(s) asked again "
                   f"({found.asked} this time), {found.orders} order(s) each"
                   + (", padded copies too" if found.padding else ""))
        typer.echo("\n".join(found.lines))


@app.command(rich_help_panel=FAMILY)
@handled
def export(questions: list[str] = typer.Argument(None, help="Slugs or paths; default every discussion."),
           csv_dir: Path | None = typer.Option(None, "--csv", help="Write discussions.csv, rounds.csv and "
                                               "votes.csv into this folder (and eval_items.csv where the "
                                               "project has evals)."),
           as_json: bool = typer.Option(False, "--json", help="Print the three tables as one JSON document.")):
    """The archive as the tables a study reads: one row per discussion, round and vote."""
    import json


    if csv_dir is None and not as_json:
        raise InputError("give --csv DIR or --json")
    found = commands.exporting.export(root(), content(), questions, csv_dir)
    if as_json:
        typer.echo(json.dumps(found.document(), indent=2))
    if csv_dir is not None:
        tables = found.tables
        trials = sum(row.get("trial") not in (None, "") for row in tables["discussions.csv"])
        kinds = f" ({trials} of them trials)" if trials else ""
        more = "".join(f", {len(rows)} row(s) of {name}" for name, rows in tables.items()
                       if name not in ("discussions.csv", "rounds.csv", "votes.csv"))
        typer.echo(f"{len(tables['discussions.csv'])} discussion(s){kinds}, {len(tables['rounds.csv'])} round(s), "
                   f"{len(tables['votes.csv'])} vote(s), {len(found.divergent_views)} divergent view(s){more} "
                   f"written to {csv_dir}: {', '.join(found.written)}", err=as_json)


@app.command(name="rescore", rich_help_panel=FAMILY)
@handled
def rescore_all(spec: str = typer.Argument(..., help="selfVoteWeight=0,0.5,1 or tieRule=fair,list-order."),
                questions: list[str] = typer.Argument(None, help="Slugs or paths; default every discussion."),
                as_json: bool = typer.Option(False, "--json", help="Every discussion's re-scoring as JSON.")):
    """Re-score the recorded ballots of the archive's vote discussions: how many round winners would change."""
    import json


    found = commands.exporting.rescore(content(), spec, questions)
    if as_json:
        typer.echo(json.dumps([f.to_json() for f in found], indent=2))
        return
    for i in range(len(found[0].variants)):
        rounds = sum(f.rounds(i) for f in found)
        changed = [f for f in found if f.changed(i)]
        typer.echo(f"{found[0].label(i)}: {sum(len(f.changed(i)) for f in changed)} of {rounds} round winner(s) "
                   f"change, in {len(changed)} of {len(found)} discussion(s)"
                   + "".join(f"\n  {f.path}: round(s) {', '.join(map(str, f.changed(i)))}" for f in changed))


@app.command("eval", rich_help_panel=FAMILY)
@handled
def eval_(
    labelled: str = typer.Argument(..., help="The set: evals/NAME.jsonl or .yaml of this project, or a built-in "
                                   "one: arithmetic (seeded), gsm8k, bbh-date-understanding, "
                                   "bbh-logical-deduction-three-objects, bbh-boolean-expressions, mmlu."),
    panel: str | None = typer.Option(None, "--panel", help="Panel from discussions/panels.yaml."),
    arms: str = typer.Option("vote,majority", "--arms", help="Comma-separated: protocol names, single:MEMBER, "
                             "majority, self-consistency:MEMBER."),
    items: int | None = typer.Option(None, "--items", min=1, help="The set's first N items (a built-in set: N made)."),
    seed: int = typer.Option(1, "--seed", help="Seeds a generated set and the bootstrap."),
    concurrency: int | None = typer.Option(None, "--concurrency", min=1, help="Item discussions at once (default: "
                                           "enough to fill the tightest named provider limit, at least 8)."),
    max_cost: float | None = typer.Option(None, "--max-cost", min=0, help="Dollars this run may spend in all: no "
                                          "item starts once they are spent (the next run goes on)."),
    max_tokens: int | None = typer.Option(None, "--max-tokens", min=0, help="Tokens this run may spend in all, "
                                          "the same way."),
    estimate: bool = typer.Option(False, "--estimate", help="What the whole eval would take at most; no call, no "
                                  "file."),
    name: str | None = typer.Option(None, "--name", help="The eval's folder, evals/NAME/ (default: the set's name): "
                                    "another name for another panel, seed or rule."),
    rule: str | None = typer.Option(None, "--rule", help="How an answer is read: answer-line, gsm8k-strict, "
                                    "gsm8k-flexible or bbh (default: the set's, else answer-line)."),
    fresh: bool = typer.Option(False, "--fresh", help="Remove the eval's folder first and answer everything again."),
    max_samples: int | None = typer.Option(None, "--max-samples", min=1, help="At most this many samples an item "
                                           "for self-consistency (the arm is then marked when not at equal "
                                           "compute)."),
    as_json: bool = typer.Option(False, "--json", help="The report as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
):
    """Measure whether deliberating helps: every arm over a labelled set, at compute shown, with intervals."""
    import json
    import shlex
    import sys


    found = commands.evaluating.evaluate(layout(), labelled, panel, arms, items, seed, estimate, concurrency,
                     None if quiet else lambda line: typer.echo(line, err=True), max_cost, max_tokens,
                     name=name, rule=rule, fresh=fresh, max_samples=max_samples,
                     command=shlex.join(["discuss", *sys.argv[1:]]))
    if as_json:
        typer.echo(json.dumps(found.to_json(), indent=2))
        return
    if isinstance(found, commands.evalestimate.EvalEstimate):
        for name, e in found.arms.items():
            typer.echo(f"{name}: at most {e.calls} calls, {e.tokens} tokens, {money(e.cost)}")
        total = found.total
        typer.echo(f"the eval, {found.items} items, an upper bound: {total.calls} calls, {total.tokens} "
                   f"tokens, {money(total.cost)}")
        return
    typer.echo(f"{found.set_name}: {found.items} item(s)")
    for arm, a in found.arms.items():
        acc = a.accuracy
        shown = "-" if acc.estimate is None else f"{acc.estimate:.2f} (95% {acc.low:.2f}-{acc.high:.2f})"
        ratio = "" if a.compute_ratio is None else f" ({a.compute_ratio:.2f}x the protocol arms' tokens)"
        marked = ", NOT at equal compute" if a.equal_compute is False else ""
        typer.echo(f"  {arm:<28} accuracy {shown}, {a.correct}/{a.items} right, {a.ungradable} "
                   f"ungradable, {a.tokens_per_item} tokens an item{ratio}{marked}")
    for pair, p in found.paired.items():
        if p.difference is not None:
            typer.echo(f"  {pair}: {p.difference:+.2f} (95% {p.low:+.2f} to {p.high:+.2f}), "
                       f"McNemar p={p.p_value:.3g}{', differs' if p.differs else ''}"
                       f"{'' if p.equal_compute else ', not at equal compute'}")
    typer.echo(f"  a difference counts where McNemar's exact p < 0.05; answers read by the "
               f"{found.rule} rule")
    if found.diversity.one_family:
        typer.echo(f"  note: every member is of one model family ({found.diversity.families[0]}): their "
                   "errors may be alike", err=True)
