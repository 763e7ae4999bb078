"""`discuss eval`: a labelled set put to several arms at once, each item a file of the eval's folder.

    evals/<set>/<arm>/<item>.md and <item>/   a protocol arm: a discussion per item, like any other
    evals/<set>/<arm>/<item>.yaml             a baseline arm: the answers it took, with what they cost
    evals/<set>/report.yaml                   the figures (`archive/evaluation.py`)
    evals/<set>/items.csv                     a row per item and arm: read, right, calls, tokens, cost

Arms: a protocol's name; `single:MEMBER` (that member, one answer);
`majority` (each member's one independent answer, the plurality);
`self-consistency:MEMBER` (that member asked k times, the plurality, k
chosen so its tokens per item come near the protocol arms' median). An
item already answered is never asked again: an eval stopped half way goes
on where it stopped. Items run at once within the providers' limits.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..domain import Usage
from ..errors import InputError
from ..store.layout import Layout

MAX_SAMPLES = 25


@dataclass(frozen=True)
class Arm:
    name: str  # as given: vote, single:alpha, majority, self-consistency:alpha
    kind: str  # protocol, single, majority, self-consistency
    member: str | None = None

    @property
    def folder(self) -> str:
        return self.name.replace(":", "-")


def parse_arms(text: str, member_ids: list[str]) -> list[Arm]:
    """The arms named, checked against the protocols and the panel's members; InputError otherwise."""
    from ..protocols import get_protocol

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


def evaluate(layout: Layout, set_name: str, panel: str | None, arms_text: str, items: int | None = None,
             seed: int = 1, estimate: bool = False, concurrency: int | None = None,
             report: Any = None, max_cost: float | None = None, max_tokens: int | None = None) -> dict[str, Any]:
    """Run (or price) every arm over the set's items; the figures as `--json` gives them. `max_cost` and
    `max_tokens` bound what this run spends in all: no item starts once they are reached."""
    from ..engine.client import PanelClient
    from ..engine.prepare import default_panel
    from ..store.evalsets import load_set
    from ..store.panels import pick_panel

    chosen = panel or default_panel(layout.panels)
    members, settings = pick_panel(layout.panels, chosen)
    arms = parse_arms(arms_text, list(members.ids))
    found = load_set(layout.root, set_name, items, seed)
    folder = layout.root / "evals" / found.name
    echo = report or (lambda line: None)
    protocol_arms = [a for a in arms if a.kind == "protocol"]
    prepared = {a.name: _prepared(layout, folder, found.items, chosen, a, write=not estimate) for a in protocol_arms}
    if estimate:
        return _estimate(layout, prepared, [a for a in arms if a.kind != "protocol"], found.items, members, folder)
    from .. import providers
    from .batch import Allowance

    allowance = Allowance(max_cost, max_tokens)
    # One client for every arm: the baselines run under the panel's settings as its discussions do.
    client = PanelClient(layout.root, settings, on_note=lambda note: echo(f"note: {note}"))
    concurrency = concurrency or _filling(client, members)
    everyone = [pair for pairs in prepared.values() for pair in pairs if not pair[1].concluded]
    plain = _baseline_work(folder, found.items, members, [a for a in arms if a.kind in ("single", "majority")], {})
    consistent = [a for a in arms if a.kind == "self-consistency"]
    if everyone:
        echo(f"{len(everyone)} item discussion(s) to run over {len(protocol_arms)} protocol arm(s)")
    if plain:
        echo(f"{len(plain)} baseline item(s) to answer")

    ahead: list[Any] = []

    def consistency() -> list[Any]:
        """Once the protocol arms are done: their discussions read for the report while the rest is out, and
        self-consistency's answers still to ask, sized by what those arms took."""
        ahead.append(_read_ahead([folder / a.folder / item.id for a in protocol_arms for item in found.items]))
        if not consistent:
            return []
        tokens = _protocol_tokens(folder, protocol_arms, found.items)
        counts = {a.name: _samples(folder, found.items, a, tokens, len(members.members)) for a in consistent}
        for name, count in counts.items():
            echo(f"{name}: {count} sample(s) an item")
        if work := _baseline_work(folder, found.items, members, consistent, counts):
            echo(f"{len(work)} baseline item(s) to answer")
        return work

    if everyone or plain or consistent:
        providers.run(_together(client, everyone, plain, consistency, concurrency, echo, allowance))
    if allowance.held_back:
        echo(f"the budget is spent ({allowance.spent()}): {allowance.held_back} item(s) not started; the report "
             "counts what was answered, and the same command with a larger budget goes on")
    from ..archive.evaluation import figures
    from ..archive.tables import as_csv
    from ..store.files import write_atomic
    from ..store.yamlio import dump

    rows: list[dict[str, Any]] = []
    result = figures(folder, found, members, arms, seed, rows, ahead[0].result().get if ahead else None)
    if allowance.held_back:
        result["notStarted"] = allowance.held_back
    write_atomic(folder / "items.csv", as_csv(rows))
    write_atomic(folder / "report.yaml", dump(result))
    return result


def _prepared(layout: Layout, folder: Path, items: list[Any], panel: str, arm: Arm,
              write: bool = True) -> list[tuple[Any, Any]]:
    """Each item of a protocol arm as a question file of the eval (not written to price it), and its
    discussion ready to run."""
    from ..domain import Question
    from ..engine.prepare import Options, ground, prepare
    from ..store.documents import render
    from ..store.evalsets import ANSWER_LINE
    from ..store.files import write_atomic
    from ..store.questions import read_question

    out = []
    for item in items:
        path = folder / arm.folder / f"{item.id}.md"
        title = " ".join(item.question.split())[:1000]
        background = "\n\n".join(x for x in (item.background, ANSWER_LINE.format(kind=_kind_word(item.kind))) if x)
        if not path.is_file() and write:
            write_atomic(path, render({"title": title, "slug": item.id, "questionType": "eval-item"},
                                      background + "\n"))
        q: Question = read_question(path) if path.is_file() else Question(path, item.id, title, background)
        d = prepare(layout.root, q, Options(panel=panel, protocol=arm.name))
        asked, _ = ground(layout.root, q, d) if not d.concluded else (q, [])
        out.append((asked, d))
    return out


def _read_ahead(paths: list[Path]) -> Any:
    """The discussions at `paths` read in a thread of their own (a future of a dict: path -> discussion):
    done ones no longer change, and the report needs every one of them, while the calls still out leave the
    process's CPU half idle. A file that cannot be read raises when the result is taken, as reading it then
    would."""
    from concurrent.futures import ThreadPoolExecutor

    from ..store import discussions as store

    pool = ThreadPoolExecutor(1, thread_name_prefix="discuss-read-ahead")
    try:
        return pool.submit(lambda: {path: store.load(path) for path in paths})
    finally:
        pool.shutdown(wait=False)


def _kind_word(kind: str) -> str:
    return {"number": "number", "choice": "letter", "text": "answer"}[kind]


def _protocol_tokens(folder: Path, arms: list[Arm], items: list[Any]) -> float | None:
    """The median, over the protocol arms, of their tokens per item: what self-consistency is sized to."""
    from ..store import discussions as store

    per_arm = []
    for arm in arms:
        spent = [s.usage.total_tokens for item in items
                 if (s := store.summary(folder / arm.folder / item.id)) is not None]
        if spent:
            per_arm.append(sum(spent) / len(spent))
    return statistics.median(per_arm) if per_arm else None


def _filling(client: Any, members: Any) -> int:
    """Item discussions at once where none is given: enough to keep the members' tightest named provider limit
    full (each item asks every member at once, and half its time it is between phases), at least 8."""
    named = [n for p in members.members if (n := client.named_limit(p))]
    return max(8, -(-2 * min(named) // max(1, len(members.members)))) if named else 8


def _baseline_work(folder: Path, items: list[Any], members: Any, arms: list[Arm],
                   counts: dict[str, int]) -> list[tuple[Any, ...]]:
    """What the baseline arms still need: per item, the (member, sample) answers not yet on file (a failed one
    is asked again); `counts`, the samples of each self-consistency arm."""
    from ..store.evalsets import answers

    work = []
    for arm in arms:
        who = [m for m in members.members if arm.kind == "majority" or m.id == arm.member]
        for item in items:
            path = folder / arm.folder / f"{item.id}.yaml"
            # A failed answer is asked again and stays, so what it cost is still counted.
            kept = answers(path, folder.parent.parent) or []
            done = {(str(a.get("member")), int(a.get("sample") or 0)) for a in kept if not a.get("error")}
            asked = [(m, k) for m in who for k in range(counts.get(arm.name, 1)) if (m.id, k) not in done]
            if asked:
                work.append((path, item, asked, kept))
    return work


async def _together(client: Any, everyone: list[Any], plain: list[Any], then: Callable[[], list[Any]],
                    concurrency: int, echo: Any, allowance: Any) -> None:
    """Every arm in one event loop through one client: the protocol arms' discussions, then the answers
    `then` gives (self-consistency, sized by them), and beside both the plain baselines, whose calls wait
    behind theirs at a provider's limit: a discussion's next phase waits for its slowest call, a baseline
    answer for nothing, so the baselines fill what the discussions leave of the limit, and no arm waits for
    another to finish before the next can start."""
    import asyncio

    from .batch import run_many

    async def discussions_then() -> None:
        if everyone:
            await run_many(client.root, everyone, concurrency, echo, allowance, client)
        await _answer(client, then(), allowance, concurrency)

    await asyncio.gather(discussions_then(), _answer(client, plain, allowance, concurrency, LATER))


LATER = 1  # the plain baselines' priority at a provider's limit: behind the discussions' calls


async def _answer(client: Any, work: list[Any], allowance: Any, concurrency: int, priority: int = 0) -> None:
    """The baseline answers `work` lists, each item's file written as it completes, under the panel's
    settings (its timeout, attempts, retries and reply cap, as its discussions have them)."""
    if work:
        gateway = client.gateway(priority=priority)
        await _all([_item_calls(gateway, client.prompts, *w) for w in work], allowance, concurrency)


async def _all(work: list[Any], allowance: Any, concurrency: int) -> None:
    """The items `concurrency` at a time, none started once the allowance is spent."""
    import asyncio

    # Without a budget every item starts at once and the providers' limits pace the calls; with one, items
    # start `concurrency` at a time so that what they spend is known before the next starts.
    gate = asyncio.Semaphore(max(1, concurrency) if allowance.limited else len(work) or 1)

    async def one(item: Any) -> None:
        async with gate:
            if allowance.hold():
                item.close()  # never awaited: nothing asked, no file written
                return
            allowance.add(await item)

    await asyncio.gather(*(one(w) for w in work))


def _samples(folder: Path, items: list[Any], arm: Arm, budget: float | None, fallback: int) -> int:
    """k for self-consistency: the protocol arms' median tokens per item over one answer's, at most 25."""
    from ..store.evalsets import answers

    one = []
    for other in (f"single-{arm.member}", "majority"):
        for item in items:
            given = answers(folder / other / f"{item.id}.yaml", folder.parent.parent) or []
            one += [a["tokens"] for a in given if a.get("member") == arm.member and isinstance(a.get("tokens"), int)]
    if budget is None:
        return fallback
    if not one:
        return fallback
    return max(1, min(MAX_SAMPLES, round(budget / max(statistics.mean(one), 1))))


async def _item_calls(gateway: Any, prompts: Any, path: Path, item: Any, asked: list[tuple[Any, int]],
                      kept: list[dict[str, Any]]) -> Usage:
    """One item of a baseline arm: the answers it still needs, written with those `kept` once all have come."""
    from ..calls import CallSpec
    from ..protocols.base import messages
    from ..store.evalsets import ANSWER_LINE
    from ..store.files import write_atomic
    from ..store.yamlio import dump

    user = "\n\n".join(x for x in (item.question, item.background, ANSWER_LINE.format(kind=_kind_word(item.kind)))
                       if x)
    specs = [CallSpec(f"{m.id}#{k}", m, messages(m, prompts, user), "respond", 1200,
                      context={"title": item.question, "round": 1, "sample": k}) for m, k in asked]
    results = await gateway.run_phase(specs)
    answers = kept + [{"member": r.spec.panelist.id, "sample": k, "text": r.text if r.ok else "",
                       "error": None if r.ok else r.error, "tokens": r.usage.total_tokens, "calls": r.usage.calls,
                       "cost": r.usage.cost} for (_, k), r in zip(asked, results, strict=True)]
    write_atomic(path, dump({"item": item.id, "answers": answers}))
    spent = Usage()
    for r in results:
        spent.add(r.usage)
    return spent


def _estimate(layout: Layout, prepared: dict[str, list[tuple[Any, Any]]], baselines: list[Arm], items: list[Any],
              members: Any, folder: Path) -> dict[str, Any]:
    """What the eval would take at most: the protocol arms as `run --estimate` prices them, each baseline call
    at its prompt and its answer's cap. Nothing is asked."""
    from .. import providers
    from ..text.tokens import count
    from .estimating import batch_estimate

    arms: dict[str, Any] = {}
    for name, pairs in prepared.items():
        found = batch_estimate(layout.root, [p for p in pairs if not p[1].concluded])["total"]
        arms[name] = found
    for arm in baselines:
        who = [m for m in members.members if arm.kind == "majority" or m.id == arm.member]
        k = MAX_SAMPLES if arm.kind == "self-consistency" else 1
        calls, tokens, prices = 0, 0, []
        for item in [i for i in items if not (folder / arm.folder / f"{i.id}.yaml").is_file()]:
            prompt = count(item.question + item.background) + 400  # the system prompt and the answer line
            for m in who:
                calls += k
                tokens += k * (prompt + 1200)
                prices.append(None if (price := providers.price(m, prompt, 1200)) is None else k * price)
        cost = None if any(p is None for p in prices) else sum(p or 0.0 for p in prices)
        arms[arm.name] = {"calls": calls, "tokens": tokens, "cost": cost}
    costs = [a["cost"] for a in arms.values()]
    return {"estimate": True, "items": len(items), "arms": arms,
            "total": {"calls": sum(a["calls"] for a in arms.values()), "tokens": sum(a["tokens"] for a in arms.values()),
                      "cost": None if any(c is None for c in costs) else round(sum(costs), 6)}}


def start_eval(layout: Layout, set_name: str, panel: str | None, arms: str, items: int | None, seed: int,
               estimate: bool, max_cost: float | None = None) -> dict[str, Any]:
    """For an agent: the estimate; or, once every item has been answered, the figures; else the eval started
    as a process of its own (`{started}`), which the next call finds finished or going."""
    from .asking import command, launch

    if items is not None and not 1 <= items <= 10_000:
        raise InputError("items: give 1 to 10,000")
    if max_cost is not None and not 0 <= max_cost < float("inf"):
        raise InputError("max_cost: give a number of dollars, 0 or more")
    priced = evaluate(layout, set_name, panel, arms, items, seed, estimate=True)
    if estimate or priced["total"]["calls"] == 0:  # nothing left to ask: the figures
        return priced if estimate else evaluate(layout, set_name, panel, arms, items, seed)
    folder = layout.root / "evals" / set_name
    folder.mkdir(parents=True, exist_ok=True)
    argv = command(layout.root, "eval", set_name, "--arms", arms, "--seed", str(seed), "-q",
                   *(["--panel", panel] if panel else []), *(["--items", str(items)] if items else []),
                   *(["--max-cost", repr(float(max_cost))] if max_cost is not None else []))
    return {"started": launch(layout, folder, argv), "folder": folder.relative_to(layout.root).as_posix(),
            "estimate": priced["total"]}

