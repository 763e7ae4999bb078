"""`discuss eval`: a labelled set put to several arms at once, each item a file of the eval's folder.

    evals/<name>/eval.yaml                     what its answers are bound to (`store/evalfolder.py`)
    evals/<name>/<arm>/<item>.md and <item>/   a protocol arm: a discussion per item, like any other
    evals/<name>/<arm>/<item>.yaml             a baseline arm: the answers it took, with what they cost
    evals/<name>/report.yaml                   the figures and their provenance (`archive/evaluation.py`)
    evals/<name>/items.csv, arms.csv           a row per item and arm; a row per arm
    evals/<name>/progress.yaml                 how far the run under way has got

The name is the set's unless `--name` gives another.

Arms: a protocol's name; `single:MEMBER` (that member, one answer);
`majority` (each member's one independent answer, the plurality);
`self-consistency:MEMBER` (that member asked k times, the plurality, k
chosen so its tokens per item come near the protocol arms' median). An
item already answered is never asked again: an eval stopped half way goes
on where it stopped. Items run at once within the providers' limits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__, providers
from ..archive.evaluation import Arm, figures, provenance
from ..archive.finalanswer import answer_record
from ..archive.tables import as_csv
from ..domain import Discussion, Panel, Settings
from ..engine.client import PanelClient
from ..engine.prepare import default_panel
from ..errors import InputError
from ..protocols import get_protocol
from ..store import discussions as store
from ..store import evalfolder
from ..store.evalfolder import Progress, digest, reading
from ..store.evalsets import EvalSet, load_set
from ..store.files import is_running, write_atomic
from ..store.layout import Layout
from ..store.panels import pick_panel
from ..store.yamlwrite import dump
from ..text.grading import RULES
from ..text.naming import is_safe_id
from .asking import command, launch, starting
from .batch import Allowance
from .evalestimate import EvalEstimate, protocol_bounds
from .evalestimate import estimate as priced
from .evalreport import (
    ArmFigures,
    Binding,
    Calls,
    Count,
    Diversity,
    EvalProgress,
    EvalReport,
    EvalStarted,
    Flips,
    Grader,
    Independence,
    Interval,
    Member,
    Paired,
    PanelBound,
    Provenance,
    RoundAccuracy,
)
from .evalrun import Work, baseline_work, filling, prepared, protocol_tokens, read_ahead, samples, together

if TYPE_CHECKING:
    from concurrent.futures import Future


def parse_arms(text: str, member_ids: list[str]) -> list[Arm]:
    """The arms named, checked against the protocols and the panel's members; InputError otherwise."""
    arms = []
    for raw in [a.strip() for a in text.split(",") if a.strip()]:
        kind, _, member = raw.partition(":")
        if kind in ("single", "self-consistency"):
            if member not in member_ids:
                raise InputError(f"arm {raw!r}: name a member of the panel ({', '.join(member_ids)}), "
                                 f"such as {kind}:{member_ids[0]}")
            arms.append(Arm(raw, kind, member))
        elif kind == "majority" and not member:
            arms.append(Arm(raw, "majority"))
        else:
            get_protocol(raw)  # an unknown name is refused with the names there are
            arms.append(Arm(raw, "protocol"))
    if not arms:
        raise InputError("--arms: name at least one arm, e.g. vote,majority")
    if len({a.name for a in arms}) != len(arms):
        raise InputError("--arms: an arm is named twice")
    return arms


@dataclass
class Eval:
    """One eval as this run sees it: its set, panel, arms and folder, and what its answers are bound to."""

    layout: Layout
    name: str
    found: EvalSet  # its first `items` items
    panel: str
    members: Panel
    settings: Settings
    arms: list[Arm]
    seed: int
    items: int | None

    @property
    def folder(self) -> Path:
        return self.layout.root / "evals" / self.name

    def binding(self) -> Binding:
        shared = {k: v for k, v in dataclasses.asdict(self.settings).items() if k != "recorded"}
        members = [Member(m.id, m.model, dict(m.options), m.persona or None) for m in self.members.members]
        return Binding(self.found.name, self.found.digest, self.seed, self.found.rule,
                       PanelBound(self.panel, members, digest(shared)), [a.name for a in self.arms], self.items,
                       __version__)


def _eval(layout: Layout, set_name: str, panel: str | None, arms_text: str, items: int | None, seed: int,
          name: str | None, rule: str | None) -> Eval:
    if name is not None and not is_safe_id(name):
        raise InputError(f"--name {name!r}: an eval is named by a safe name (lowercase letters, digits, '.', '_', "
                         "'-')")
    if rule is not None and rule not in RULES:
        raise InputError(f"--rule {rule!r}: one of {', '.join(RULES)}")
    chosen = panel or default_panel(layout.panels)
    members, settings = pick_panel(layout.panels, chosen)
    found = load_set(layout.root, set_name, items, seed)
    if rule is not None:
        found.rule = rule
    return Eval(layout, name or found.name, found, chosen, members, settings,
                parse_arms(arms_text, list(members.ids)), seed, items)


def evaluate(layout: Layout, set_name: str, panel: str | None, arms_text: str, items: int | None = None,
             seed: int = 1, estimate: bool = False, concurrency: int | None = None,
             report: Callable[[str], None] | None = None, max_cost: float | None = None,
             max_tokens: int | None = None, name: str | None = None, rule: str | None = None, fresh: bool = False,
             max_samples: int | None = None, command: str = "") -> EvalEstimate | EvalReport:
    """Run (or price) every arm over the set's items; the figures as `--json` gives them. `max_cost` and
    `max_tokens` bound what this run spends in all: no item starts once they are reached. A folder whose
    answers were given under other settings is refused (or, with `fresh`, removed first)."""
    e = _eval(layout, set_name, panel, arms_text, items, seed, name, rule)
    if estimate:
        return _priced(e, fresh, max_samples)
    with evalfolder.Locked(e.folder, e.name):
        if fresh:
            evalfolder.fresh(e.folder, layout.root)
            e.folder.mkdir(parents=True)
        evalfolder.check(e.folder, e.name, e.binding().to_json())
        record = evalfolder.bind(e.folder, e.binding().to_json())
        ahead: list[Future[dict[Path, Discussion | None]]] = []
        held = _run(e, report or (lambda line: None), concurrency, max_cost, max_tokens, max_samples, ahead)
        return _reported(e, record, held, command, ahead[0].result() if ahead else {})


def _priced(e: Eval, fresh: bool, max_samples: int | None) -> EvalEstimate:
    """What the eval's items still to answer would take at most; nothing is written."""
    if not fresh:
        evalfolder.check(e.folder, e.name, e.binding().to_json())
    ready = {a.name: prepared(e.layout, e.folder, e.found.items, e.panel, a, e.found.rule, write=False)
             for a in e.arms if a.kind == "protocol"}
    return priced(e.layout, ready, [a for a in e.arms if a.kind != "protocol"], e.found.items, e.members,
                  e.folder, e.found.rule, max_samples)


def _run(e: Eval, echo: Callable[[str], None], concurrency: int | None, max_cost: float | None,
         max_tokens: int | None, max_samples: int | None, ahead: list[Future[dict[Path, Discussion | None]]]) -> int:
    """Every arm's items not answered yet, asked; how many were not started (the budget spent). `ahead` gets
    the protocol arms' discussions, read while self-consistency's calls are out."""
    folder, items, members = e.folder, e.found.items, e.members
    progress = Progress(folder)
    allowance = Allowance(max_cost, max_tokens, on_add=lambda used: progress.finished(used.calls, used.total_tokens))
    # One client for every arm: the baselines run under the panel's settings as its discussions do.
    client = PanelClient(e.layout.root, e.settings, on_note=lambda note: echo(f"note: {note}"))
    protocol_arms = [a for a in e.arms if a.kind == "protocol"]
    ready = [pair for a in protocol_arms for pair in prepared(e.layout, folder, items, e.panel, a, e.found.rule)]
    everyone = [pair for pair in ready if not pair[1].concluded]
    plain = baseline_work(folder, items, members, [a for a in e.arms if a.kind in ("single", "majority")], {})
    consistent = [a for a in e.arms if a.kind == "self-consistency"]
    if everyone:
        echo(f"{len(everyone)} item discussion(s) to run over {len(protocol_arms)} protocol arm(s)")
    if plain:
        echo(f"{len(plain)} baseline item(s) to answer")
    progress.planned(len(everyone) + len(plain))

    def consistency() -> list[Work]:
        """Once the protocol arms are done: their discussions read for the report while the rest is out, and
        self-consistency's answers still to ask, sized by what those arms took."""
        ahead.append(read_ahead([folder / a.folder / item.id for a in protocol_arms for item in items]))
        if not consistent:
            return []
        tokens = protocol_tokens(folder, protocol_arms, items)
        counts = {a.name: samples(folder, items, a, tokens, len(members.members), max_samples) for a in consistent}
        for arm, count in counts.items():
            echo(f"{arm}: {count} sample(s) an item" + (f" (at most {max_samples}, --max-samples: not at equal "
                                                         "compute)" if max_samples and count == max_samples else ""))
        work = baseline_work(folder, items, members, consistent, counts)
        if work:
            echo(f"{len(work)} baseline item(s) to answer")
            progress.planned(len(work))
        return work

    # With a budget, each discussion starts only once what it may spend at most fits in what is left.
    bounds = protocol_bounds(e.layout.root, everyone) if allowance.limited and everyone else {}
    try:
        if everyone or plain or consistent:
            providers.run(together(client, e.found.rule, everyone, plain, consistency, concurrency or
                                   filling(client, members), echo, allowance, bounds))
    finally:
        progress.held = allowance.held_back
        if progress.total or progress.held:
            progress.write("finished" if not allowance.held_back else "stopped")
    if allowance.held_back:
        echo(f"{allowance.held_back} item(s) not started, to stay within the budget ({allowance.why()}); the "
             "report counts what was answered, and the same command with a larger budget goes on")
    return allowance.held_back


def _reported(e: Eval, record: dict[str, Any], held: int, command: str,
              read: dict[Path, Discussion | None]) -> EvalReport:
    """The report over every arm and item the folder records (a run of some of them keeps the others' figures),
    written beside the answers with its tables."""
    arms = parse_arms(",".join(record["arms"]), list(e.members.ids))
    found = load_set(e.layout.root, e.found.name, record.get("items"), e.seed)
    found.rule = e.found.rule
    rows: list[dict[str, Any]] = []
    load: Callable[[Path], Discussion | None] = lambda path: read[path] if path in read else store.load(path)  # noqa: E731
    _record_answers(e.folder, found, arms, load)
    result = {**figures(e.folder, found, e.members, arms, e.seed, rows, load),
              "provenance": provenance(record, e.members, command)}
    if held:
        result["notStarted"] = held
    write_atomic(e.folder / "items.csv", as_csv(rows))
    write_atomic(e.folder / "arms.csv", as_csv([{"arm": name, **_flat(a)} for name, a in result["arms"].items()]))
    write_atomic(e.folder / "report.yaml", dump(result))
    return _typed(result)


def _typed(f: dict[str, Any]) -> EvalReport:
    """The report as the archive's figures give it (a dict, as report.yaml keeps it), typed."""
    def arm(a: dict[str, Any]) -> ArmFigures:
        return ArmFigures(Interval(**a["accuracy"]), a["items"], a["correct"], a["ungradable"], a["ungradableShare"],
                          a["callsPerItem"], a["tokensPerItem"], a["costPerItem"],
                          [RoundAccuracy(**r) for r in a["byRound"]], a["computeRatio"], a.get("equalCompute"))

    def paired(p: dict[str, Any]) -> Paired:
        return Paired(p["difference"], p["low"], p["high"], p["aWins"], p["bWins"], p["pValue"], p["differs"],
                      p["detectable"], p["equalCompute"])

    def flips(x: dict[str, Any]) -> Flips:
        return Flips(x["pairs"], x["flips"], x["rightToWrong"], x["wrongToRight"], x["towardWinner"], x["flipRate"],
                     x["towardWinnerShare"])

    d, i, p = f["diversity"], f["independence"], f["provenance"]
    return EvalReport(
        f["set"], f["source"], f["licence"], f["items"], f["seed"], f["rule"],
        {name: arm(a) for name, a in f["arms"].items()}, {pair: paired(x) for pair, x in f["paired"].items()},
        {name: {pid: flips(x) for pid, x in by.items()} for name, by in f["conformity"].items()},
        Diversity(d["providers"], d["families"], d["oneFamily"]),
        Independence(i["members"], i["errorCorrelation"], i["effectiveVoters"], i["from"]),
        Provenance(p["panel"], [Member(m["id"], m["model"], m.get("options", {}), m.get("persona"))
                                for m in p["members"]], p["settingsDigest"], p["discussVersion"], p["date"],
                   p["command"], p["setDigest"], p["seed"], Grader(**p["grader"]), p["statistics"]),
        f.get("notStarted"))


def _record_answers(folder: Path, found: EvalSet, arms: list[Arm], load: Callable[[Path], Discussion | None]) -> None:
    """Each concluded discussion of a protocol arm given the final answer it gave, as the grader reads it, in its
    index (`finalAnswer`, and each round's answers), where it does not hold that record yet."""
    for arm in [a for a in arms if a.kind == "protocol"]:
        for item in found.items:
            d = load(folder / arm.folder / item.id)
            if d is not None and d.concluded and d.answer != (now := answer_record(d, item.kind, found.rule,
                                                                                   item.choices)):
                store.record_answer(d, folder / arm.folder / item.id, now)


def _flat(arm: dict[str, Any]) -> dict[str, Any]:
    """An arm's figures as one row: the accuracy's three numbers in columns of their own, no nested lists."""
    acc = arm.get("accuracy") or {}
    return {"accuracy": acc.get("estimate"), "low": acc.get("low"), "high": acc.get("high"),
            **{k: v for k, v in arm.items() if not isinstance(v, dict | list)}}


def start_eval(layout: Layout, set_name: str, panel: str | None, arms: str, items: int | None, seed: int,
               estimate: bool, max_cost: float | None = None,
               name: str | None = None) -> EvalEstimate | EvalReport | EvalProgress | EvalStarted:
    """For an agent: the estimate; or, while a run of the eval is going, how far it has got (`running`); or,
    once every item has been answered, the figures; else the eval started as a process of its own
    (`{started}`), which the next call finds going or finished."""
    if items is not None and not 1 <= items <= 10_000:
        raise InputError("items: give 1 to 10,000")
    if max_cost is not None and not 0 <= max_cost < float("inf"):
        raise InputError("max_cost: give a number of dollars, 0 or more")
    folder = layout.root / "evals" / (name or set_name)
    if not estimate and (going := progress_of(layout, folder)) is not None:
        return going  # what is left would be priced shrinking as it is answered: say how far it has got
    priced = _priced(_eval(layout, set_name, panel, arms, items, seed, name, None), False, None)
    if estimate or priced.total.calls == 0:  # nothing left to ask: the figures
        return priced if estimate else evaluate(layout, set_name, panel, arms, items, seed, name=name)
    folder.mkdir(parents=True, exist_ok=True)
    Progress.announce(folder, priced.total.calls)
    argv = command(layout.root, "eval", set_name, "--arms", arms, "--seed", str(seed), "-q",
                   *(["--panel", panel] if panel else []), *(["--items", str(items)] if items else []),
                   *(["--max-cost", repr(float(max_cost))] if max_cost is not None else []),
                   *(["--name", name] if name else []))
    started = launch(layout, folder, argv)
    now = _progress(layout, folder)
    return EvalStarted(started, True, now.folder, priced.total, now.state, now.items, now.calls, now.tokens,
                       now.not_started)


def progress_of(layout: Layout, folder: Path) -> EvalProgress | None:
    """How far a run of the eval in `folder` has got while one is going (its lock held, or its process
    started and not yet holding it); None where none is."""
    if not folder.is_dir() or not (is_running(folder) or starting(folder)):
        return None
    return _progress(layout, folder)


def _progress(layout: Layout, folder: Path) -> EvalProgress:
    """progress.yaml as an agent reads it: items and calls done of the total, tokens spent."""
    now = reading(folder) or {}
    done: dict[str, Any] = now["items"] if isinstance(now.get("items"), dict) else {}
    return EvalProgress(True, folder.relative_to(layout.root).as_posix(), now.get("state") or "starting",
                        Count(done.get("done") or 0, done.get("total")),
                        Calls(now.get("calls") or 0, now.get("callsPlanned")), now.get("tokens") or 0,
                        now.get("notStarted") or 0)
