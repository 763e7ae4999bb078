"""Running an eval's arms: its protocol arms' item discussions and its baselines' answers, through one client.

Every arm runs in one event loop through the command's model client, under
the panel's conditions. An item already answered is never asked again (a
failed answer is, and the failed one stays on record with what it cost).
Self-consistency is sized once the protocol arms are done: k samples an item
so that its tokens come near the median of theirs, with no cap but the one a
user gives (`--max-samples`), which the report then marks.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .. import providers
from ..calls import CallSpec
from ..domain import Discussion, Panel, Panelist, Question, Usage
from ..engine.prepare import Options, ground, prepare
from ..protocols.base import messages
from ..store import discussions as store
from ..store.documents import render
from ..store.evalsets import Item, answers
from ..store.files import write_atomic
from ..store.layout import Layout
from ..store.questions import read_question
from ..store.yamlwrite import dump
from ..text.grading import instruction
from ..text.prompting import Prompts, estimate_tokens
from .batch import Allowance, run_many
from .estimating import MARGIN_PER_CALL
from .results import JSON

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ..archive.evaluation import Arm
    from ..engine.client import PanelClient
    from ..engine.gateway import Gateway

Asked = list[tuple[Panelist, int]]  # the answers an item still needs: a member and a sample each


class Work(NamedTuple):
    """One item of a baseline arm still to answer: its file, the item, the answers it needs, and those on file
    (a failed one among them, kept so what it cost is still counted)."""

    path: Path
    item: Item
    asked: Asked
    kept: list[dict[str, JSON]]  # the answers as their file holds them, written back beside the new ones


def prepared(layout: Layout, folder: Path, items: list[Item], panel: str, arm: Arm, rule: str,
             write: bool = True) -> list[tuple[Question, Discussion]]:
    """Each item of a protocol arm as a question file of the eval (not written to price it), and its
    discussion ready to run."""
    out = []
    for item in items:
        path = folder / arm.folder / f"{item.id}.md"
        title = " ".join(item.question.split())[:1000]
        background = "\n\n".join(x for x in (item.background, instruction(rule, item.kind)) if x)
        if not path.is_file() and write:
            write_atomic(path, render({"title": title, "slug": item.id, "questionType": "eval-item"},
                                      background + "\n"))
        q: Question = read_question(path) if path.is_file() else Question(path, item.id, title, background)
        d = prepare(layout.root, q, Options(panel=panel, protocol=arm.name))
        asked, _ = ground(layout.root, q, d) if not d.concluded else (q, [])
        out.append((asked, d))
    return out


def read_ahead(paths: list[Path]) -> Future[dict[Path, Discussion | None]]:
    """The discussions at `paths` read in a thread of their own (a future of a dict: path -> discussion):
    done ones no longer change, and the report needs every one of them, while the calls still out leave the
    process's CPU half idle. A file that cannot be read raises when the result is taken, as reading it then
    would."""
    from concurrent.futures import ThreadPoolExecutor


    pool = ThreadPoolExecutor(1, thread_name_prefix="discuss-read-ahead")
    try:
        return pool.submit(lambda: {path: store.load(path) for path in paths})
    finally:
        pool.shutdown(wait=False)


def protocol_tokens(folder: Path, arms: list[Arm], items: list[Item]) -> float | None:
    """The median, over the protocol arms, of their tokens per item: what self-consistency is sized to."""
    per_arm = []
    for arm in arms:
        spent = [s.usage.total_tokens for item in items
                 if (s := store.summary(folder / arm.folder / item.id)) is not None]
        if spent:
            per_arm.append(sum(spent) / len(spent))
    return statistics.median(per_arm) if per_arm else None


def filling(client: PanelClient, members: Panel) -> int:
    """Item discussions at once where none is given: enough to keep the members' tightest named provider limit
    full (each item asks every member at once, and half its time it is between phases), at least 8."""
    named = [n for p in members.members if (n := client.named_limit(p))]
    return max(8, -(-2 * min(named) // max(1, len(members.members)))) if named else 8


def baseline_work(folder: Path, items: list[Item], members: Panel, arms: list[Arm],
                   counts: dict[str, int]) -> list[Work]:
    """What the baseline arms still need: per item, the (member, sample) answers not yet on file (a failed one
    is asked again); `counts`, the samples of each self-consistency arm."""
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
                work.append(Work(path, item, asked, kept))
    return work


async def together(client: PanelClient, rule: str, everyone: list[tuple[Question, Discussion]], plain: list[Work],
                   then: Callable[[], list[Work]], concurrency: int, echo: Callable[[str], None],
                   allowance: Allowance, bounds: dict[Path, Usage] | None = None) -> None:
    """Every arm in one event loop through one client: the protocol arms' discussions, then the answers
    `then` gives (self-consistency, sized by them), and beside both the plain baselines, whose calls wait
    behind theirs at a provider's limit: a discussion's next phase waits for its slowest call, a baseline
    answer for nothing, so the baselines fill what the discussions leave of the limit, and no arm waits for
    another to finish before the next can start."""
    import asyncio


    async def discussions_then() -> None:
        if everyone:
            await run_many(client.root, everyone, concurrency, echo, allowance, client,
                           lambda q, d: (bounds or {}).get(q.path))
        await _answer(client, rule, then(), allowance, concurrency)

    await asyncio.gather(discussions_then(), _answer(client, rule, plain, allowance, concurrency, LATER))


LATER = 1  # the plain baselines' priority at a provider's limit: behind the discussions' calls


async def _answer(client: PanelClient, rule: str, work: list[Work], allowance: Allowance, concurrency: int,
                  priority: int = 0) -> None:
    """The baseline answers `work` lists, each item's file written as it completes, under the panel's
    settings (its timeout, attempts, retries and reply cap, as its discussions have them); with a budget, an
    item starts only when what its calls may spend at most fits in what is left."""
    import asyncio

    if not work:
        return
    gateway = client.gateway(priority=priority)
    # Without a budget every item starts at once and the providers' limits pace the calls; with one, items
    # start `concurrency` at a time, each once its bound fits beside those under way.
    gate = asyncio.Semaphore(max(1, concurrency) if allowance.limited else len(work))

    async def one(path: Path, item: Item, asked: Asked, kept: list[dict[str, JSON]]) -> None:
        async with gate:
            most = priced(client.prompts, rule, item, asked) if allowance.limited else None
            if not await allowance.admit(most):
                return  # nothing asked, no file written
            await allowance.settle(most, await _item_calls(gateway, client.prompts, rule, path, item, asked, kept))

    await asyncio.gather(*(one(*w) for w in work))


def samples(folder: Path, items: list[Item], arm: Arm, budget: float | None, fallback: int,
            cap: int | None = None) -> int:
    """k for self-consistency: the protocol arms' median tokens per item over one of its member's answers (as
    its single and majority arms spent them), rounded; `fallback` where either is unknown. No cap but `cap`, a
    user's, which the report then marks as not at equal compute."""
    one = []
    for other in (f"single-{arm.member}", "majority", arm.folder):
        for item in items:
            given = answers(folder / other / f"{item.id}.yaml", folder.parent.parent) or []
            one += [a["tokens"] for a in given if a.get("member") == arm.member and isinstance(a.get("tokens"), int)
                    and not a.get("error")]
    k = fallback if budget is None or not one else max(1, round(budget / max(statistics.mean(one), 1)))
    return min(k, cap) if cap else k


ANSWER_TOKENS = 1200  # a baseline answer's cap, as a discussion's answer has one


def item_specs(prompts: Prompts, rule: str, item: Item, asked: Asked) -> list[CallSpec]:
    """The calls one item of a baseline arm makes (a member and sample each): what the run sends and the
    estimate prices."""
    user = "\n\n".join(x for x in (item.question, item.background, instruction(rule, item.kind)) if x)
    return [CallSpec(f"{m.id}#{k}", m, messages(m, prompts, user), "respond", ANSWER_TOKENS,
                     context={"title": item.question, "round": 1, "sample": k}) for m, k in asked]


def priced(prompts: Prompts, rule: str, item: Item, asked: Asked) -> Usage:
    """One item's baseline calls, each at the prompt the run sends (with the estimate's margin) and its cap."""
    total, unpriced = Usage(cost=0.0), False
    for spec in item_specs(prompts, rule, item, asked):
        prompt = sum(estimate_tokens(m["content"]) for m in spec.messages) + MARGIN_PER_CALL
        price = providers.price(spec.panelist, prompt, spec.max_tokens)
        unpriced = unpriced or price is None
        total.add(Usage(prompt, spec.max_tokens, price, 1))
    if unpriced:  # a cost not known is not nothing
        total.cost = None
    return total


async def _item_calls(gateway: Gateway, prompts: Prompts, rule: str, path: Path, item: Item, asked: Asked,
                      kept: list[dict[str, JSON]]) -> Usage:
    """One item of a baseline arm: the answers it still needs, written with those `kept` once all have come."""
    specs = item_specs(prompts, rule, item, asked)
    results = await gateway.run_phase(specs)
    answers: list[dict[str, JSON]] = kept + [{"member": r.spec.panelist.id, "sample": k, "text": r.text if r.ok else "",
                       "error": None if r.ok else r.error, "tokens": r.usage.total_tokens, "calls": r.usage.calls,
                       "cost": r.usage.cost} for (_, k), r in zip(asked, results, strict=True)]
    write_atomic(path, dump({"item": item.id, "answers": answers}))
    spent = Usage()
    for r in results:
        spent.add(r.usage)
    return spent
