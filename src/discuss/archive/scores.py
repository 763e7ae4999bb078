"""The track record: resolved questions graded, per panelist, and per panel and protocol.

A discussion counts once `discuss resolve` recorded its outcome. Its
forecasts are graded where the answer was yes or no: each member on its
probability in the last finished round (one that gave none there abstains and
is counted as such, never as 0.5), the panel on its recorded rule
(`rules.forecasts.PANEL_RULE`). Its decision, where the question asked for
one, is borne out or not as the outcome says. The arithmetic (Brier, log
score, intervals, calibration bins) is `rules/forecasts.py`'s; every figure
here is unrounded. One row per member and per panel of each graded question
is what `discuss export` writes (forecasts.csv).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..domain import Discussion, Question
from ..errors import InputError
from ..rules.forecasts import PANEL_RULE, brier, calibration, log_score, mean_interval, share_interval
from ..store import discussions as store
from ..store.layout import part_paths, question_files
from ..store.outcomes import Outcome, forecasts_by_round, panel_forecast, read_outcome
from ..store.questions import read_question

FORECASTS = "forecasts.csv"


@dataclass(frozen=True)
class Resolved:
    q: Question
    d: Discussion
    outcome: Outcome
    path: str  # the discussion's folder under the content folder


def resolved(content: Path) -> tuple[list[Resolved], list[str]]:
    """Every resolved discussion under `content` (each question's and each follow-up part's), with warnings for
    those that could not be read."""
    found, warnings = [], []
    for path in question_files(content):
        try:
            questions = [read_question(path)]
            questions += [read_question(part) for part in part_paths(questions[0].folder)]
        except InputError as exc:
            warnings.append(f"{path.relative_to(content).as_posix()}: left out: {exc}")
            continue
        for q in questions:
            outcome = read_outcome(q.folder)
            if outcome is None:
                continue
            try:
                d = store.load(q.folder)
            except InputError as exc:
                warnings.append(f"{q.folder.relative_to(content).as_posix()}: left out: {exc}")
                continue
            if d is not None:
                found.append(Resolved(q, d, outcome, q.folder.relative_to(content).as_posix()))
    return found, warnings


def rows(items: list[Resolved]) -> list[dict[str, Any]]:
    """One row per member and one for the panel of each question whose answer was yes or no and whose panel
    forecast: the probability graded (None: abstained), the outcome (1 yes, 0 no), its Brier and log terms."""
    out = []
    for x in items:
        answer = x.outcome.answer.casefold()
        rounds = forecasts_by_round(x.d)
        if answer not in ("yes", "no") or not rounds:
            continue
        y = int(answer == "yes")
        number, last = rounds[-1]
        models = {m.id: m.model for m in x.d.panel.members}
        panel = (panel_forecast(x.d) or {}).get("probability")
        graded = [("member", pid, models.get(pid, ""), p) for pid, p in last.items()] + [("panel", "", "", panel)]
        for kind, member, model, p in graded:
            out.append({"question": x.q.slug, "path": x.path, "panel": x.d.panel.name, "protocol": x.d.protocol,
                        "kind": kind, "member": member, "model": model, "round": number, "probability": p,
                        "answer": answer, "outcome": y,
                        "brier": None if p is None else brier([(p, y)])[0],
                        "log": None if p is None else log_score([(p, y)])[0]})
    return out


def _graded(group: list[dict[str, Any]]) -> dict[str, Any]:
    pairs = [(r["probability"], r["outcome"]) for r in group if r["probability"] is not None]
    return {"n": len(pairs), "abstained": len(group) - len(pairs), "brier": mean_interval(brier(pairs)),
            "log": mean_interval(log_score(pairs))}


def scores(items: list[Resolved]) -> dict[str, Any]:
    """{resolved, graded, members: [...], panels: [...], calibration: {members, panels}, rule, rows}."""
    table = rows(items)
    members: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    panels: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in table:
        (members[(r["member"], r["model"])] if r["kind"] == "member" else panels[(r["panel"], r["protocol"])]).append(r)
    decided: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for x in items:
        if x.outcome.born_out is not None:
            decided[(x.d.panel.name, x.d.protocol)].append(x.outcome.born_out)
    panel_rows = []
    for key in sorted(set(panels) | set(decided)):
        held = decided.get(key, [])
        panel_rows.append({"panel": key[0], "protocol": key[1], **_graded(panels.get(key, [])),
                           "decisions": {"n": len(held), "bornOut": sum(held), **share_interval(sum(held), len(held))}})

    def pairs(kind: str) -> list[tuple[float, int]]:
        return [(r["probability"], r["outcome"]) for r in table if r["kind"] == kind and r["probability"] is not None]

    return {"resolved": len(items), "graded": len({r["path"] for r in table}), "rule": PANEL_RULE,
            "members": [{"member": k[0], "model": k[1], **_graded(v)} for k, v in sorted(members.items())],
            "panels": panel_rows,
            "calibration": {"members": calibration(pairs("member")), "panels": calibration(pairs("panel"))},
            "rows": table}
