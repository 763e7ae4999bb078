"""The status listing: a row and a JSON object per discussion, printed as a table (text/tables.py).

Light on purpose (no ruamel, pydantic or protocols): `discuss status` over
a large archive imports this and the store's summary reader, nothing more.
"""

from __future__ import annotations

from typing import Any

from ..domain import Usage
from ..store.summary import Summary
from ..text.tables import money, table

STATUS_HEADER = ["question", "status", "rounds", "leader", "termination", "tokens", "cost", "protocol",
                 "waiting for"]


def usage_json(u: Usage) -> dict[str, Any]:
    return {"calls": u.calls, "promptTokens": u.prompt_tokens, "completionTokens": u.completion_tokens,
            "totalTokens": u.total_tokens, "cost": u.cost, "cachedTokens": u.cached_tokens}


def status_row(slug: str, s: Summary | None) -> list[str]:
    """A row of `discuss status` (None: not started)."""
    return status_cells(status_json(slug, s))


def status_cells(row: dict[str, Any]) -> list[str]:
    """A `status --json` row as the table prints it."""
    budget = row["status"] == "closed" and row["terminationReason"] == "budget"
    spent = row.get("spent") or row["usage"]  # the discussion's calls and its audits' re-asks
    shown = ("stopped (budget)" if budget else row["status"]) + (" (Dyson)" if row["dyson"] else "") \
        + (" (does not hold)" if row.get("verified") is False else "")  # `discuss verify` names why
    return [row["slug"], shown, str(row["rounds"]), row["leader"] or "-", row["terminationReason"] or "-",
            str(spent["totalTokens"]), money(spent["cost"]), row["protocol"] or "-",
            ", ".join(row["waitingFor"]) or "-"]


def status_output(rows: list[dict[str, Any]], as_json: bool, where: str, left_out: int = 0) -> str:
    """What `discuss status` prints on stdout for these rows (`where`: the content folder, for an empty one;
    `left_out`: how many files could not be read, each a warning on stderr)."""
    import json

    if as_json:
        return json.dumps(rows, indent=2) + "\n"
    if rows:
        return table(STATUS_HEADER, [status_cells(r) for r in rows]) + "\n"
    if left_out:
        return f"no question under {where} could be read ({left_out} left out: see the warnings)\n"
    return f"no questions under {where}\n"


def status_json(slug: str, s: Summary | None) -> dict[str, Any]:
    """A `discuss status --json` row: its shape is documented in docs/commands.md and kept stable."""
    if s is None:
        return {"slug": slug, "status": "not started", "dyson": False, "rounds": 0, "leader": None,
                "terminationReason": None, "usage": usage_json(Usage()), "protocol": None, "waitingFor": [],
                "verified": None}
    return {"slug": slug, "status": s.status, "dyson": s.legacy, "rounds": s.rounds, "leader": s.leader,
            "terminationReason": s.termination_reason, "usage": usage_json(s.usage), "protocol": s.protocol,
            "waitingFor": list(s.waiting_for), "verified": s.verified, **_spent(s)}


def _spent(s: Summary) -> dict[str, Any]:
    """Where audits re-asked ballots, what they spent and the sum: the table shows the sum."""
    if s.audits is None:
        return {}
    total = Usage()
    total.add(s.usage)
    total.add(s.audits)
    return {"audits": usage_json(s.audits), "spent": usage_json(total)}
