"""What a question's page shows of outcomes, forecasts and precedents: a resolved question's outcome at the top
(what happened, whether the decision was borne out, the panel's and each member's probability), each round's
forecasts, and a link to each precedent's page. The track record page is `record.py`'s."""

from __future__ import annotations

from typing import Any

from ..store.outcomes import forecasts_by_round, panel_forecast, read_outcome


def outcome_view(entry: Any) -> dict[str, Any] | None:
    """{outcome, rounds: [(number, [(name, p)])], panel, members: [(name, p)]} for an entry's page; None where
    its discussion has neither an outcome nor forecasts."""
    d = entry.discussion
    if d is None or entry.error:
        return None
    outcome = read_outcome(entry.question.folder)
    rounds = forecasts_by_round(d)
    if outcome is None and not rounds:
        return None
    names = {m.id: m.name for m in d.panel.members}
    panel = panel_forecast(d) or {}
    return {"outcome": outcome,
            "rounds": [(n, [(names.get(pid, pid), p) for pid, p in given.items()]) for n, given in rounds],
            "panel": panel.get("probability"), "rule": panel.get("rule"),
            "members": [(names.get(pid, pid), p) for pid, p in (panel.get("members") or {}).items()]}


def precedent_href(path: object) -> str:
    """The page of a precedent, from its recorded conclusion (relative to the citing question's file) to a link
    relative to the citing page (one folder below that file's, as MkDocs' directory URLs place it); a path
    that is not plain folder names is no link."""
    import posixpath
    import re

    folder = posixpath.dirname(str(path))
    return f"../{folder}/" if folder and re.fullmatch(r"[\w.-]+(/[\w.-]+)*", folder) else "#"

