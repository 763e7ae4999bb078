"""Getting runs ready: a question's discussion with its panel, protocol and settings,
and many discussions at once within each provider's concurrency limit.

Everything that can be wrong with the input is found here, before any call
is made and before any file is written.
"""

from __future__ import annotations

import asyncio
import fnmatch
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from .domain import Discussion, Question
from .errors import DiscussError, InputError
from .gateway import Gateway, ProviderLimits
from .providers import check_keys
from .protocols import get_protocol
from .runner import Plan, Runner, prompts_for, start, utc_now
from .store import discussions as store
from .store.panels import load_limits, pick_panel
from .store.questions import question_files, read_question


@dataclass
class Options:
    panel: str | None = None
    protocol: str | None = None
    overrides: dict | None = None  # Settings fields given on the command line


def _panel(root: Path, q: Question, existing: Discussion | None, wanted: str | None):
    name = wanted or (existing.panel.name if existing else None) or q.panel or "default"
    if existing and existing.panel.name and name != existing.panel.name:
        raise InputError(f"{q.folder}: this discussion was started with panel "
                         f"{existing.panel.name!r}; it cannot go on with {name!r}")
    panel, settings = pick_panel(root / "discussions" / "panels.yaml", name)
    if existing and existing.panel.ids and existing.panel.ids != panel.ids:
        raise InputError(f"panel {name!r} has changed members since this discussion started "
                         f"({', '.join(existing.panel.ids)})")
    return panel, settings


def _protocol(q: Question, existing: Discussion | None, panel, wanted: str | None) -> str:
    name = wanted or (existing.protocol if existing else None) or q.protocol or panel.protocol or "vote"
    get_protocol(name)  # an unknown name is bad input
    if existing and name != existing.protocol:
        raise InputError(f"{q.folder}: this discussion runs the {existing.protocol!r} protocol, not {name!r}")
    return name


def prepare(root: Path, q: Question, options: Options) -> Discussion:
    """The discussion to run on `q`, new or resumed; InputError for anything unusable."""
    existing = store.load(q.folder)
    if existing and existing.legacy:
        raise InputError(f"{q.folder}: written by Project Dyson's tool; `discuss show` reads it, "
                         "but runs go on only in discussions started by discuss")
    panel, settings = _panel(root, q, existing, options.panel)
    name = _protocol(q, existing, panel, options.protocol)
    d = existing or start(q, panel, settings, utc_now(), name)
    d.panel = panel
    if name == "deliberate" and not d.personas:
        from .store.personas import assign, load_personas

        d.personas = assign(load_personas(root / "discussions" / "personas"), panel.ids, d.settings.personas)
    overrides = {k: v for k, v in (options.overrides or {}).items() if v is not None}
    d.settings = replace(d.settings, **overrides)
    return d


def check_ready(d: Discussion) -> None:
    """What must hold before spending: keys present, the agreement measure available."""
    check_keys(d.panel.everyone)
    if d.protocol != "vote":
        from .agreement import measure

        try:
            measure(d.settings.agreement_measure)
        except ValueError as exc:
            raise InputError(f"agreementMeasure: {exc}") from None


def gateway_for(d: Discussion, on_event=None, limits: ProviderLimits | None = None) -> Gateway:
    s = d.settings
    return Gateway(timeout=s.timeout_seconds, attempts=s.attempts, base_delay=s.retry_base_delay,
                   asks=s.vote_attempts, on_event=on_event, limits=limits)


# ---- many at once -----------------------------------------------------------

def select(content: Path, tags: list[str], pattern: str | None, shard: tuple[int, int] | None) -> list[Question]:
    """Open questions (not concluded), by tag and glob, this shard's share of them."""
    matching = []
    for path in question_files(content) if content.is_dir() else []:
        rel = path.relative_to(content).as_posix()
        if pattern and not (fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(path.stem, pattern)):
            continue
        q = read_question(path)
        if not tags or set(tags) & set(q.tags):
            matching.append(q)
    if shard:
        index, count = shard
        # A stride over all matching questions in slug order, open or not: every machine
        # computes the same split however far the others have got, and none runs a question twice.
        matching = [q for n, q in enumerate(sorted(matching, key=lambda q: q.slug)) if n % count == index - 1]
    return [q for q in matching if (d := store.load(q.folder)) is None or not (d.concluded or d.legacy)]


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        index, count = (int(x) for x in text.split("/"))
    except ValueError:
        raise InputError(f"--shard {text!r}: write it as i/n, e.g. 2/4") from None
    if not 1 <= index <= count:
        raise InputError(f"--shard {text!r}: i must be from 1 to n")
    return index, count


async def run_many(root: Path, prepared: list[tuple[Question, Discussion]], concurrency: int,
                   report: Callable[[str], None]) -> dict[str, str]:
    """Run every prepared discussion to its end, `concurrency` at a time; slug -> outcome."""
    limits = ProviderLimits(load_limits(root / "discussions" / "panels.yaml"))
    gate = asyncio.Semaphore(max(1, concurrency))
    prompts = prompts_for(root)

    async def one(q: Question, d: Discussion) -> tuple[str, str]:
        async with gate:
            try:
                done = await Runner(gateway_for(d, limits=limits), prompts).run(q, d, Plan(auto=True))
            except DiscussError as exc:
                outcome = f"failed: {exc}"
            else:
                outcome = f"{done.status} ({done.termination_reason or 'open'})"
            report(f"{q.slug}: {outcome}")
            return q.slug, outcome

    return dict(await asyncio.gather(*(one(q, d) for q, d in prepared)))
