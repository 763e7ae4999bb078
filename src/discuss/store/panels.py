"""The panel file, `discussions/panels.yaml`: who deliberates, with which settings.

Validated on load, because people edit it by hand: every error names the
file, the panel and the field.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..domain import Panel, Panelist, Settings
from ..errors import InputError
from ..protocols import own_settings_in
from ..schema import validated
from ..schema.settings import SettingsModel, shared_settings
from ..text.naming import camel, did_you_mean
from ..text.secrets import remember_urls
from . import documents, yamlio

# The panel file's own pydantic models (`schema.panels`) are built where a panel file or a panel given on the
# command line is read, not by every command that imports the store's panels.


def _panelist(m) -> Panelist:
    pid = m.panelist_id
    return Panelist(id=pid, model=m.model, name=m.name or pid, persona=(m.persona or "").strip(),
                    api_base=m.api_base, api_key_env=m.api_key_env,
                    options=m.options.model_dump(exclude_none=True) if m.options else {},
                    response_format=m.response_format, price=(m.price.input, m.price.output) if m.price else None,
                    allow_unknown_model=m.allow_unknown_model, command=m.command, args=tuple(m.args or ()))


def _special(raw, members: tuple[Panelist, ...], where: str, role: str) -> Panelist | None:
    """`chairman:`, `judge:` or `synthesizer:`: a member's id, or a model of its own given like a member."""
    if raw is None:
        return None
    if isinstance(raw, str):
        for m in members:
            if m.id == raw:
                return m
        raise InputError(f"{where}: {role} {raw!r} is not a member id; give a mapping with a model instead")
    other = _panelist(raw)
    if other.id in {m.id for m in members}:
        raise InputError(f"{where}: {role} id {other.id!r} is already a member's")
    return other


def _read(path: Path):
    """The panel file, checked; read again only when it changes (a batch prepares thousands of questions)."""
    if not path.is_file():
        raise InputError(f"{path}: panel file not found")
    stat = path.stat()
    return _read_checked(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _read_checked(path: Path, mtime: int, size: int):
    from ..schema.panels import PanelFileModel

    try:
        data = yamlio.load(documents.read_text(path))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path}: cannot be read: {exc}") from None
    return validated(PanelFileModel, data, str(path))


def _unique(members: tuple[Panelist, ...], derived: list[bool]) -> tuple[Panelist, ...]:
    """Derived ids that collide (two sizes of one model) numbered in order: `qwen-7b`, `qwen-7b-2`."""
    taken = {m.id for m, d in zip(members, derived, strict=True) if not d}
    out = []
    for m, d in zip(members, derived, strict=True):
        if d:
            pid, n = m.id, 1
            while pid in taken:
                n += 1
                pid = f"{m.id}-{n}"
            taken.add(pid)
            m = replace(m, id=pid, name=m.name if m.name != m.id else pid)
        out.append(m)
    return tuple(out)


def load_panels(path: Path) -> dict[str, tuple[Panel, Settings]]:
    """Every panel of the file with its settings. Built once while the file is unchanged (a batch prepares
    thousands of questions); panels are frozen, and each caller gets settings of its own to change."""
    _read(path)  # the file's own errors first, in its words
    stat = path.stat()
    built = _built(path, stat.st_mtime_ns, stat.st_size)

    remember_urls([m.api_base for panel, _ in built.values() for m in panel.everyone])
    return {name: (panel, replace(settings, own=dict(settings.own))) for name, (panel, settings) in built.items()}


@lru_cache(maxsize=8)
def _built(path: Path, mtime: int, size: int) -> dict[str, tuple[Panel, Settings]]:
    panels = {}
    for name, spec in _read(path).panels.items():
        where = f"{path}: panel {name!r}"
        members = _unique(tuple(_panelist(m) for m in spec.members), [m.id is None for m in spec.members])
        ids = [m.id for m in members]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise InputError(f"{where}: duplicate member id {', '.join(dupes)}")
        special = {role: _special(getattr(spec, role), members, where, role)
                   for role in ("chairman", "judge", "synthesizer")}
        ids = [p.id for p in special.values() if p is not None and p not in members]
        if len(ids) != len(set(ids)):
            raise InputError(f"{where}: chairman, judge and synthesizer that are not members need distinct ids")
        panel = Panel(str(name), members, protocol=spec.protocol, **special)
        panels[str(name)] = (panel, _settings(spec.settings or {}, f"{path}: panels.{name}.settings"))
    return panels


def _settings(raw: dict[str, Any], where: str) -> Settings:
    """A panel's settings: the shared ones checked here, a protocol's own kept for when it starts."""
    shared = {camel(f) for f in SettingsModel.model_fields}
    own = own_settings_in({k: v for k, v in raw.items() if k not in shared}, where)
    return shared_settings({k: v for k, v in raw.items() if k not in own}, where, own)


ADHOC = "ad-hoc"  # the name of a panel given on the command line (`ask -m MODEL -m MODEL`)


def adhoc_panel(models: list[str]) -> tuple[Panel, Settings]:
    """A panel of these models, each as a member would be given in panels.yaml, with the default settings."""
    from ..schema.panels import PanelModel

    spec = validated(PanelModel, {"members": list(models)}, "-m/--model")
    members = _unique(tuple(_panelist(m) for m in spec.members), [m.id is None for m in spec.members])
    return Panel(ADHOC, members), Settings()


def load_limits(path: Path) -> dict[str, int]:
    """`limits:` in the panel file: most requests at once per provider, e.g. {anthropic: 4}."""
    return dict(_read(path).limits) if path.is_file() else {}


def load_search(path: Path) -> dict[str, str] | None:
    """`search:` in the panel file: the endpoint `sources search` asks ({url, kind, keyEnv}), or None."""
    found = _read(path).search if path.is_file() else None
    return None if found is None else {"url": found.url, "kind": found.kind, "keyEnv": found.key_env or ""}


def load_source_folders(path: Path) -> list[Path]:
    """`sourceFolders:` in the panel file: folders of the project, beside content/, that sources may come from."""
    return [path.parent.parent / f for f in _read(path).source_folders] if path.is_file() else []


def pick_panel(path: Path, name: str) -> tuple[Panel, Settings]:
    panels = load_panels(path)
    if name not in panels:
        raise InputError(f"{path}: no panel {name!r} (panels: {', '.join(sorted(panels))})"
                         + did_you_mean(name, list(panels)))
    return panels[name]
