"""`discuss trials`: one question run N times, independently, and how stable its outcome is over them.

Each trial is a discussion of its own (`<question>/trials/trial-K/`, or a
folder the caller names, such as Project Dyson's repeated-trials layout);
trials already there are resumed, never repeated, so a batch stopped half
way goes on where it stopped. The CLI and the MCP server call these
functions; neither builds a trial itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import providers
from ..archive.trials import report
from ..engine.prepare import Options, check_ready, ground, prepare
from ..errors import InputError
from ..store import discussions as store
from ..store.layout import Layout, confined
from ..store.questions import find_question
from ..store.sources import rehomed
from .asking import command, launch, starting
from .batch import run_many
from .estimating import Priced, PricedDiscussion, batch_estimate
from .precedents import with_precedent
from .results import OPTIONAL, Result

if TYPE_CHECKING:
    from ..domain import Discussion, Question
    from ..engine.prepare import Options

TRIALS = "trials"  # a question's trial discussions: <its folder>/trials/trial-K/


def trial_number(folder: Path) -> int:
    number = folder.name.removeprefix("trial-")
    return int(number) if number.isdigit() else 0


def trials_folder(content: Path, question: str, into: Path | None = None, running: bool = False,
                  within: Path | None = None) -> tuple[Path, Question | None]:
    """Where the trials of `question` are, and the question (None where `question` is a folder of trials).

    `within`: a folder given is read from there, and refused outside it (a caller that is not the user).
    """
    given = within / question if within is not None else Path(question)
    if within is not None and given.is_dir():
        confined(given, within, what=question)
    if not running and given.is_dir() and any(given.glob("trial-*/discussion.yaml")):
        return given, None
    q = find_question(content, question)
    return (into.absolute() if into is not None else q.folder / TRIALS), q


def prepared_trials(root: Path, q: Question, folder: Path, runs: int, options: Options,
                    warn: Callable[[str], None]) -> list[tuple[Question, Discussion]]:
    """Trials 1..runs not finished yet, each as the panel reads its question (with sources), ready to run."""
    prepared = []
    for k in range(1, runs + 1):
        trial = rehomed(q, folder / f"trial-{k}.md")
        d = prepare(root, trial, options)
        d.trial = k
        if not d.concluded:
            asked, changes = ground(root, trial, d)
            asked, left_out = with_precedent(Layout(root), trial, d, asked)  # each trial reads the same precedents
            for line in [*changes, *left_out]:
                warn(f"warning: {q.slug}: {line}")
            prepared.append((asked, d))
    return prepared


def run_trials(root: Path, prepared: list[tuple[Question, Discussion]], concurrency: int,
               report: Callable[[str], None]) -> None:
    """Every prepared trial to its end, `concurrency` at a time; what is not ready is refused before any call."""
    for _, d in prepared:
        check_ready(d, root)
    providers.run(run_many(root, prepared, concurrency, report))


@dataclass
class Spread(Result):
    """A figure over the trials: its mean, sample sd (None under two values) and 95% bootstrap interval."""

    mean: float | None
    sd: float | None
    ci95: list[float] | None


@dataclass
class WinnerStability(Result):
    """The most common final winner, the share of trials it won, and the share whose first round's winner was
    the most common one."""

    final: float | None
    first_round: float | None
    winner: str | None


@dataclass
class Leaning(Result):
    """A panelist's self-vote generosity and tie-break wins, trial by trial, as a spread over the trials."""

    self_vote_generosity: Spread
    tie_break_wins: Spread


@dataclass
class TrialsReport(Result):
    """How stable a question's outcome is over its trials (see archive/trials.py): round folders a trial's
    index does not list are named under `orphan_rounds`, never counted. An agent's answer (`trials`) says first
    where the trials are and whether a run of them is starting."""

    folder: str | None = field(default=None, kw_only=True, metadata=OPTIONAL)
    running: bool | None = field(default=None, kw_only=True, metadata=OPTIONAL)
    runs: int
    finished: int
    rounds: Spread
    approval: Spread
    winner_stability: WinnerStability
    termination_consistency: float | None
    termination_reason: str | None
    bias: dict[str, Leaning]
    orphan_rounds: dict[str, list[int]]


def trials_report(folder: Path) -> TrialsReport:
    """The figures of the trials in `folder` (finished or not): rounds, approval, winner, termination, bias."""
    found = sorted((p for p in folder.glob("trial-*") if (p / "discussion.yaml").is_file()), key=trial_number)
    pairs = [(p.name, d) for p, d in ((p, store.load(p)) for p in found) if d is not None]
    if not pairs:
        raise InputError(f"{folder}: no trial yet; run some with --runs N")
    return _typed(report([d for _, d in pairs], [name for name, _ in pairs]))


def _typed(f: dict[str, Any]) -> TrialsReport:
    """The archive's figures (a dict, shared with the site's analysis), typed."""
    def spread(x: dict[str, Any]) -> Spread:
        return Spread(x["mean"], x["sd"], None if x["ci95"] is None else list(x["ci95"]))

    stable = f["winnerStability"]
    return TrialsReport(
        f["runs"], f["finished"], spread(f["rounds"]), spread(f["approval"]),
        WinnerStability(stable["final"], stable["firstRound"], stable["winner"]),
        f["terminationConsistency"], f["terminationReason"],
        {pid: Leaning(spread(x["selfVoteGenerosity"]), spread(x["tieBreakWins"])) for pid, x in f["bias"].items()},
        {name: list(numbers) for name, numbers in f["orphanRounds"].items()})


@dataclass
class TrialsPriced(Result):
    """What running the trials still missing would take at most: each priced, and the sum."""

    folder: str
    to_run: int
    discussions: list[PricedDiscussion]
    total: Priced


@dataclass
class TrialsStarted(Result):
    """The trials still missing, started as a process of their own (False: none to run, or a run was going)."""

    folder: str
    runs: int
    to_run: int
    started: bool


def trials(layout: Layout, question: str, runs: int | None = None, panel: str | None = None,
           protocol: str | None = None, estimate: bool = True) -> TrialsReport | TrialsPriced | TrialsStarted:
    """The MCP server's trials: the figures so far; with `runs`, their price, or their run started apart.

    A run of trials is a `discuss trials --runs N` process of its own, as an
    `ask` is: it outlives the caller, and the figures are read from the files.
    """
    if runs is not None and not 1 <= runs <= MOST_RUNS:
        raise InputError(f"runs must be from 1 to {MOST_RUNS}")
    folder, q = trials_folder(layout.content, question, running=runs is not None, within=layout.root)
    if runs is None or q is None:
        return replace(trials_report(folder), folder=_shown(layout, folder), running=starting(folder))
    options = Options(panel=panel, protocol=protocol)
    prepared = prepared_trials(layout.root, q, folder, runs, options, lambda line: None)
    if estimate:
        priced = batch_estimate(layout.root, prepared)
        return TrialsPriced(_shown(layout, folder), len(prepared), priced.discussions, priced.total)
    for _, d in prepared:
        check_ready(d, layout.root)  # a missing key or script is said now, not in a log
    argv = command(layout.root, "trials", q.slug, "--runs", str(runs), "--json")
    argv += [*(["--panel", panel] if panel else []), *(["--protocol", protocol] if protocol else [])]
    return TrialsStarted(_shown(layout, folder), runs, len(prepared), bool(prepared) and launch(layout, folder, argv))


MOST_RUNS = 100  # trials one request may start


def _shown(layout: Layout, folder: Path) -> str:
    return folder.relative_to(layout.root).as_posix() if folder.is_relative_to(layout.root) else str(folder)
