"""The deliberate protocol's stages and who takes part in each."""

from __future__ import annotations

from collections.abc import Iterable

from discuss.plugin import Discussion, Panelist, Round

from .settings import DeliberateSettings

STAGES = ("research", "alternatives", "ranking")
ROLES = {"triage": "triage", "research": "researcher", "alternatives": "proposer", "ranking": "ranker"}


def stages(d: Discussion) -> tuple[str, ...]:
    return ("triage", *STAGES) if DeliberateSettings.of(d.settings).triage else STAGES


def stage(d: Discussion, name: str) -> Round:
    return next(r for r in d.rounds if r.stage == name)


def participants(d: Discussion, rnd: Round) -> list[Panelist]:
    if rnd.stage in ("triage", "alternatives"):
        return [d.panel.chair]
    if rnd.stage == "ranking":
        return [m for m in d.panel.members if m.id in stage(d, "research").replies]
    return list(d.panel.members)


def mean(found: Iterable[float]) -> float | None:
    values = list(found)
    return round(sum(values) / len(values), 4) if values else None
