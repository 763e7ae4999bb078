"""The panel file, `discussions/panels.yaml`: who deliberates, with which settings.

Validated on load, because people edit it by hand: every error names the
file, the panel and the field.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace
from pathlib import Path

from ..rules.convergence import TESTS
from ..domain import Panel, Panelist, Settings
from ..errors import InputError
from ..naming import camel, is_safe_id
from . import yamlio

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CHOICES = {"convergence_test": TESTS, "agreement_measure": ("lexical", "embedding")}


def _member(raw, where: str) -> Panelist:
    if isinstance(raw, str):
        raw = {"model": raw}
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a member must be a mapping with id and model")
    model = raw.get("model")
    if not isinstance(model, str) or not model.strip():
        raise InputError(f"{where}: 'model' is missing")
    pid = str(raw.get("id") or model.rsplit("/", 1)[-1]).strip()
    if not is_safe_id(pid):
        raise InputError(f"{where}: id {pid!r} must be lowercase letters, digits, '.', '_' or '-'")
    key_env = raw.get("api_key_env")
    if key_env is not None and not (isinstance(key_env, str) and ENV_NAME.match(key_env)):
        raise InputError(f"{where}: api_key_env must name an environment variable")
    return Panelist(
        id=pid,
        model=model.strip(),
        name=str(raw.get("name") or pid),
        persona=str(raw.get("persona") or "").strip(),
        api_base=raw.get("api_base"),
        api_key_env=key_env,
    )


def _special(raw, members: tuple[Panelist, ...], where: str, role: str) -> Panelist | None:
    """`chairman:`, `judge:` or `synthesizer:`: a member's id, or a model of its own given like a member."""
    if raw is None:
        return None
    if isinstance(raw, str):
        for m in members:
            if m.id == raw:
                return m
        raise InputError(f"{where}: {role} {raw!r} is not a member id; give a mapping with a model instead")
    other = _member(raw, f"{where}, {role}")
    if other.id in {m.id for m in members}:
        raise InputError(f"{where}: {role} id {other.id!r} is already a member's")
    return other


def _settings(raw, where: str) -> Settings:
    if raw is None:
        return Settings()
    if not isinstance(raw, dict):
        raise InputError(f"{where}: 'settings' must be a mapping")
    base = Settings()
    by_camel = {camel(f.name): f for f in fields(Settings)}
    changes = {}
    for key, value in raw.items():
        f = by_camel.get(key)
        if f is None:
            known = ", ".join(sorted(by_camel))
            raise InputError(f"{where}: unknown setting {key!r} (known: {known})")
        default = getattr(base, f.name)
        try:
            changes[f.name] = type(default)(value) if not isinstance(value, bool) else value
        except (TypeError, ValueError):
            raise InputError(f"{where}: setting {key!r} must be a {type(default).__name__}") from None
    for name, allowed in CHOICES.items():
        if name in changes and changes[name] not in allowed:
            raise InputError(f"{where}: setting {camel(name)!r} must be one of {', '.join(allowed)}")
    return replace(base, **changes)


def load_panels(path: Path) -> dict[str, tuple[Panel, Settings]]:
    if not path.is_file():
        raise InputError(f"{path}: panel file not found")
    try:
        data = yamlio.load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path}: cannot be read: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("panels"), dict):
        raise InputError(f"{path}: expected a mapping with a 'panels' mapping inside")
    panels = {}
    for name, spec in data["panels"].items():
        where = f"{path}: panel {name!r}"
        if not isinstance(spec, dict) or not isinstance(spec.get("members"), list) or not spec["members"]:
            raise InputError(f"{where}: needs a non-empty 'members' list")
        members = tuple(_member(m, f"{where}, member {i + 1}") for i, m in enumerate(spec["members"]))
        ids = [m.id for m in members]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise InputError(f"{where}: duplicate member id {', '.join(dupes)}")
        protocol = spec.get("protocol")
        if protocol is not None and not isinstance(protocol, str):
            raise InputError(f"{where}: 'protocol' must be a protocol's name")
        special = {role: _special(spec.get(role), members, where, role)
                   for role in ("chairman", "judge", "synthesizer")}
        ids = [p.id for p in special.values() if p is not None and p not in members]
        if len(ids) != len(set(ids)):
            raise InputError(f"{where}: chairman, judge and synthesizer that are not members need distinct ids")
        panel = Panel(str(name), members, protocol=protocol, **special)
        panels[str(name)] = (panel, _settings(spec.get("settings"), where))
    return panels


def load_limits(path: Path) -> dict[str, int]:
    """`limits:` in the panel file: most requests at once per provider, e.g. {anthropic: 4}."""
    data = yamlio.load(path.read_text(encoding="utf-8")) if path.is_file() else {}
    raw = (data or {}).get("limits") or {} if isinstance(data, dict) else {}
    if not isinstance(raw, dict) or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                                            for v in raw.values()):
        raise InputError(f"{path}: 'limits' must map providers to positive whole numbers")
    return {str(k): int(v) for k, v in raw.items()}


def pick_panel(path: Path, name: str) -> tuple[Panel, Settings]:
    panels = load_panels(path)
    if name not in panels:
        raise InputError(f"{path}: no panel {name!r} (panels: {', '.join(sorted(panels))})")
    return panels[name]
