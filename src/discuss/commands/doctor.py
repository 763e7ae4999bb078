"""Checks before spending: keys present, models known, endpoints answering.

One row per panelist of each panel: `ok`, `warn` (the run will work, but
something is missing, like a price) or `fail` (the run would fail). Each
panelist's provider does its own checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..domain import Panel
from ..errors import InputError
from ..providers import route
from ..store.panels import load_panels
from ..text.naming import did_you_mean


@dataclass
class Row:
    panel: str
    member: str
    model: str
    key: str
    price: str
    endpoint: str

    @property
    def failed(self) -> bool:
        return any(v.startswith("fail") for v in (self.key, self.price, self.endpoint))


def check(panels: dict[str, Panel], timeout: float = 3.0, scripts: Path | None = None) -> list[Row]:
    rows = []
    for name, panel in panels.items():
        for p in panel.everyone:
            found = route(p, scripts).diagnose(p, timeout)
            rows.append(Row(name, p.id, p.model, found.key, found.price, found.endpoint))
    return rows


def panels_of(panels_file: Path, panel: str | None = None) -> dict[str, Panel]:
    """The project's panels by name (only `panel`, where one is named), as `doctor` checks them."""
    panels = {name: p for name, (p, _) in load_panels(panels_file).items()}
    if panel is None:
        return panels
    if panel not in panels:
        raise InputError(f"no panel {panel!r} (panels: {', '.join(sorted(panels))})" + did_you_mean(panel, list(panels)))
    return {panel: panels[panel]}
