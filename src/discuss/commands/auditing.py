"""`discuss audit`: a recorded round's voters asked again under new orders, to measure position and length bias.

The re-asked ballots are files of the discussion (`audit/round-N/<voter>--order-K[--padded].yaml`),
reviewable in a pull request, written as each arrives: a run stopped half way goes on where it
stopped and asks nothing twice. Their calls count against the discussion's budget with what it has
spent; `estimate` prices them first. The figures are the protocol's (`bias_experiment()`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import providers
from ..domain import Usage
from ..engine import budget
from ..engine.client import PanelClient
from ..engine.prepare import check_ready
from ..engine.runner import prompts_for
from ..errors import InputError
from ..protocols import get_protocol
from ..store import discussions as store
from ..store.audits import AUDIT, ballots, keep, recorded, usage_of
from ..store.files import check_writable
from ..store.layout import Layout
from ..store.panels import load_panels
from ..store.questions import find_question
from ..text.tokens import count
from .results import JSON, Result

if TYPE_CHECKING:
    from ..calls import CallResult, CallSpec


@dataclass
class AuditEstimate(Result):
    """The most the re-asks still to make on a round would take (`audit --estimate`)."""

    slug: str
    round: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None  # None: a voter's price is unknown


@dataclass
class Audited(Result):
    """The experiment on a round: how many ballots were asked again (this time), the figures and their lines."""

    slug: str
    round: int
    orders: int
    padding: bool
    kept: int = field(metadata={"key": "ballots"})  # the round's ballots asked again, over every run of it
    asked: int
    figures: dict[str, JSON]  # the protocol's own (`bias_experiment().figures`)
    lines: list[str]


def _experiment(d: Any) -> Any:
    found = get_protocol(d.protocol).figures.bias_experiment()
    if found is None:
        raise InputError(f"audit asks a round's voters again: the {d.protocol} protocol records no ballots to re-ask "
                         "(vote's rounds have them)")
    return found


def _panel(root: Path, d: Any, name: str | None) -> dict[str, Any]:
    """The voters as the panel file gives them now (address, options), by id; the recorded ones otherwise."""
    panels = load_panels(Layout(root).panels)
    chosen = panels.get(name or d.panel.name)
    if name and chosen is None:
        raise InputError(f"no panel {name!r} (panels: {', '.join(sorted(panels))})")
    live = {m.id: m for m in chosen[0].members} if chosen else {}
    return {m.id: live.get(m.id, m) for m in d.panel.members}


def _bound(pending: list[Any]) -> dict[str, Any]:
    """The most the re-asks still to make can take: each prompt as counted, each reply at its limit."""
    prompts = [sum(count(m["content"]) for m in s.messages if isinstance(m.get("content"), str)) for s in pending]
    costs = [providers.price(s.panelist, n, s.max_tokens) for s, n in zip(pending, prompts)]
    return {"calls": len(pending), "promptTokens": sum(prompts), "completionTokens": sum(s.max_tokens for s in pending),
            "cost": None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)}


MIN_ORDERS, MAX_ORDERS = 1, 50  # each order asks every voter again
LIMITS = {"calls": "{:g} calls (maxCalls)", "tokens": "{:g} tokens (maxTokens)", "cost": "${:g} (maxCost)"}


def _budget(d: Any, bound: dict[str, Any]) -> None:
    """Refuse re-asks that could take the discussion past a limit it has, with all it has spent (audits too)."""
    planned = Usage(bound["promptTokens"], bound["completionTokens"], bound["cost"], bound["calls"])
    if over := budget.overrun(d.spent, planned, d.settings):
        raise InputError(f"the audit's {bound['calls']} call(s) could pass the discussion's budget of "
                         f"{LIMITS[over['limit']].format(over['max'])} with what it has spent: raise it, or ask "
                         "fewer --orders")


def _keep(folder: Path, number: int, experiment: Any, kept: dict[str, dict[str, Any]], result: Any) -> None:
    """A re-asked ballot on disk as it arrives, with the usage of a failed ask before it (paid for, not lost)."""
    total = usage_of(kept.get(result.spec.key, {}))
    total.add(result.usage)
    used = {"prompt_tokens": total.prompt_tokens, "completion_tokens": total.completion_tokens, "calls": total.calls,
            **({"cost": total.cost} if total.cost is not None else {})}
    data = experiment.record(result.spec, result.value) if result.ok else {"error": result.error}
    keep(folder, number, result.spec.key, {**data, "usage": used})


def audit(root: Path, content: Path, question: str, round_number: int | None = None, orders: int = 4,
          padding: bool = False, estimate: bool = False, panel: str | None = None,
          on_event: Callable[[str, CallSpec, CallResult | None], None] | None = None,
          on_note: Callable[[str], None] | None = None) -> AuditEstimate | Audited:
    """Run (or price, with `estimate`) the experiment on a round; the figures over every ballot kept."""
    import dataclasses


    if not MIN_ORDERS <= orders <= MAX_ORDERS:
        raise InputError(f"orders: {orders}; give {MIN_ORDERS} to {MAX_ORDERS} new orders")
    q = find_question(content, question)
    d = store.load(q.folder)
    if d is None:
        raise InputError(f"{q.slug}: no discussion yet, so no round to audit")
    experiment = _experiment(d)
    rounds = experiment.rounds(d)
    number = round_number if round_number is not None else (rounds[-1] if rounds else None)
    if number is None or number not in rounds:
        raise InputError(f"{q.slug}: round {number} is not a finished round with ballots "
                         f"(those that are: {', '.join(map(str, rounds)) or 'none'})")
    rnd = next(r for r in d.rounds if r.number == number)
    d.panel = dataclasses.replace(d.panel, members=tuple(_panel(root, d, panel).values()))
    specs = experiment.calls(d, q, rnd, prompts_for(root).scoped(get_protocol(d.protocol)), orders, padding)
    kept = recorded(q.folder).get(number, {})
    pending = [s for s in specs if s.key not in kept or kept[s.key].get("error")]
    bound = _bound(pending)
    if estimate:
        return AuditEstimate(q.slug, number, bound["calls"], bound["promptTokens"], bound["completionTokens"],
                             bound["cost"])
    _budget(d, bound)
    if pending:
        check_writable(q.folder / AUDIT)  # the re-asked ballots are written there: refused before they are paid
        check_ready(d, root)
        gateway = PanelClient(root, d.settings, on_event=on_event, on_note=on_note).gateway(folder=q.folder)
        providers.run(gateway.run_phase(pending, on_result=lambda r: _keep(q.folder, number, experiment, kept, r)))
    usable = ballots(q.folder).get(number, [])
    names = {m.id: m.name for m in d.panel.members}
    found = experiment.figures(usable)
    return Audited(q.slug, number, orders, padding, len(usable), len(pending), found, experiment.lines(found, names))
