"""What a run may choose from: the project's panels (with whether each member's key is set) and the protocols."""

from __future__ import annotations

from dataclasses import dataclass

from ..protocols import get_protocol
from ..protocols import names as protocol_names
from ..providers import key_names, missing_keys
from ..store.layout import Layout
from ..store.panels import load_panels
from .results import JSON, Result


def panel_rows(layout: Layout) -> list[dict[str, str]]:
    """Each panel's members and referees, with whether each key is set; no call is made."""
    rows = []
    for name, (panel, _) in load_panels(layout.panels).items():
        roles = {p.id: role for role, p in (("judge", panel.judge), ("synthesizer", panel.synthesizer),
                                             ("chairman", panel.chairman)) if p is not None}
        for p in panel.everyone:
            missing = missing_keys([p])
            key = ("missing " + ", ".join(m.split(" ")[0] for m in missing) if missing
                   else "set" if key_names([p]) else "not needed")  # a simulated, scripted or local member
            role = roles.get(p.id, "member") if p.id not in panel.ids else "member" + (
                f", {roles[p.id]}" if p.id in roles else "")
            rows.append({"panel": name, "id": p.id, "name": p.name, "model": p.model, "role": role,
                         "options": p.settings_line or "-", "key": key})
    return rows


@dataclass
class ProtocolRow(Result):
    """A protocol: its name, what it does, and the settings of its own (`run --set`, panels.yaml) with their
    defaults, by their camelCase names."""

    name: str
    summary: str
    settings: list[str]
    defaults: dict[str, JSON]


def protocol_rows() -> list[ProtocolRow]:
    """Each protocol a discussion can follow."""
    def defaults(name: str) -> dict[str, JSON]:
        model = get_protocol(name).settings_model
        return model().model_dump(by_alias=True) if model else {}

    return [ProtocolRow(name, get_protocol(name).summary, list(defaults(name)), defaults(name))
            for name in protocol_names()]
