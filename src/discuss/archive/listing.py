"""The status listing: a typed row per discussion (its JSON is the application layer's to give), printed as a table.

Light on purpose (no ruamel, pydantic or protocols): `discuss status` over
a large archive imports this and the store's summary reader, nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..domain import Usage
from ..store.summary import Summary
from ..text.tables import money, table

STATUS_HEADER = ["question", "status", "rounds", "leader", "termination", "tokens", "cost", "protocol",
                 "waiting for"]


def usage_json(u: Usage) -> dict[str, Any]:
    return {"calls": u.calls, "promptTokens": u.prompt_tokens, "completionTokens": u.completion_tokens,
            "totalTokens": u.total_tokens, "cost": u.cost, "cachedTokens": u.cached_tokens}


LEFT_OUT = {"omit_none": True}  # no key while None: the convention of the application layer's serialiser


@dataclass
class Spent:
    """What calls spent, as a status row gives it."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cost: float | None
    cached_tokens: int

    @classmethod
    def of(cls, u: Usage) -> Spent:
        return cls(u.calls, u.prompt_tokens, u.completion_tokens, u.total_tokens, u.cost, u.cached_tokens)


@dataclass
class StatusRow:
    """A `discuss status --json` row: its shape is documented in docs/commands.md and kept stable. `audits` and
    `spent` (the discussion's calls and its audits' re-asks) appear where audits re-asked ballots; `running`
    and `lastOutput` where an agent's status asks whether a run is going."""

    slug: str
    status: str
    dyson: bool
    rounds: int
    leader: str | None
    termination_reason: str | None
    usage: Spent
    protocol: str | None
    waiting_for: list[str]
    verified: bool | None
    audits: Spent | None = field(default=None, metadata=LEFT_OUT)
    spent: Spent | None = field(default=None, metadata=LEFT_OUT)
    running: bool | None = field(default=None, metadata=LEFT_OUT)
    last_output: str | None = field(default=None, metadata=LEFT_OUT)


def status_row(slug: str, s: Summary | None) -> list[str]:
    """A row of `discuss status` (None: not started)."""
    return status_cells(status_of(slug, s))


def status_cells(row: StatusRow) -> list[str]:
    """A status row as the table prints it."""
    budget = row.status == "closed" and row.termination_reason == "budget"
    spent = row.spent or row.usage  # the discussion's calls and its audits' re-asks
    shown = ("stopped (budget)" if budget else row.status) + (" (Dyson)" if row.dyson else "") \
        + (" (does not hold)" if row.verified is False else "")  # `discuss verify` names why
    return [row.slug, shown, str(row.rounds), row.leader or "-", row.termination_reason or "-",
            str(spent.total_tokens), money(spent.cost), row.protocol or "-", ", ".join(row.waiting_for) or "-"]


def status_table(rows: list[StatusRow], where: str, left_out: int = 0) -> str:
    """What `discuss status` prints on stdout for these rows as a table (`where`: the content folder, for an
    empty one; `left_out`: how many files could not be read, each a warning on stderr)."""
    if rows:
        return table(STATUS_HEADER, [status_cells(r) for r in rows]) + "\n"
    if left_out:
        return f"no question under {where} could be read ({left_out} left out: see the warnings)\n"
    return f"no questions under {where}\n"


def status_of(slug: str, s: Summary | None) -> StatusRow:
    """The status row of the discussion `slug` (None: not started)."""
    if s is None:
        return StatusRow(slug, "not started", False, 0, None, None, Spent.of(Usage()), None, [], None)
    row = StatusRow(slug, s.status, s.legacy, s.rounds, s.leader, s.termination_reason, Spent.of(s.usage),
                    s.protocol, list(s.waiting_for), s.verified)
    if s.audits is not None:  # what audits re-asked, and the sum: the table shows the sum
        total = Usage()
        total.add(s.usage)
        total.add(s.audits)
        row.audits, row.spent = Spent.of(s.audits), Spent.of(total)
    return row
