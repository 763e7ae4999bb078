"""Getting a run ready: a question's discussion with its panel, protocol and settings.

Everything that can be wrong with the input is found here, before any call
is made and before any file is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ..domain import SCRIPTED_PREFIX, Discussion, Question, Settings
from ..errors import InputError
from ..protocols import DEFAULT, get_protocol, own_settings, refuse_strangers
from ..protocols.base import Setup
from ..providers import check_keys, unroutable
from ..providers.agents import ready
from ..providers.litellm import KEY_VARIABLES
from ..providers.scripted import ScriptedProvider
from ..schema.settings import updated
from ..store import discussions as store
from ..store.chain import question_changed
from ..store.formats import for_protocol, legacy
from ..store.layout import Layout, confined, portable
from ..store.panels import ADHOC, adhoc_panel, load_panels, load_source_folders, pick_panel
from ..store.personas import load_personas
from ..store.sources import changed, read_sources, sources_block, unfrozen
from .runner import start, utc_now


@dataclass
class Options:
    panel: str | None = None
    protocol: str | None = None
    overrides: dict | None = None  # Settings fields given on the command line
    models: list[str] | None = None  # an ad-hoc panel of these models instead of a named one
    own: dict | None = None  # the protocol's own settings given on the command line (`--set`), camelCase
    flags: dict | None = None  # options the command line names for a protocol (`--method`), its to read


def default_panel(path) -> str:
    """The panel a run takes when none is named: `default`, else the project's only panel."""
    panels = load_panels(path)
    if "default" in panels or len(panels) != 1:
        if "default" not in panels:
            raise InputError(f"{path}: no panel is named; add --panel with one of {', '.join(sorted(panels))} "
                             "(or name one of them `default`)")
        return "default"
    return next(iter(panels))


def _panel(layout: Layout, q: Question, existing: Discussion | None, wanted: str | None,
           models: list[str] | None = None):
    if models and wanted:
        raise InputError("give --panel or -m/--model, not both")
    chosen = ADHOC if models else wanted or (existing.panel.name if existing else None) or q.panel
    name = chosen or default_panel(layout.panels)
    if existing and existing.panel.name and name != existing.panel.name:
        raise InputError(f"{q.folder}: this discussion was started with panel "
                         f"{existing.panel.name!r}; it cannot go on with {name!r}")
    if name == ADHOC and not models:
        if existing is None:
            raise InputError(f"{q.folder}: an ad-hoc panel is given with -m/--model")
        return existing.panel, existing.settings  # an ad-hoc discussion goes on with its own panel
    panel, settings = adhoc_panel(models) if models else pick_panel(layout.panels, name)
    if existing and existing.legacy and existing.panel.ids and set(existing.panel.ids) != set(panel.ids):
        raise InputError(f"{q.folder}: this Project Dyson thread's panel is {', '.join(existing.panel.ids)}; "
                         f"panel {name!r} has {', '.join(panel.ids)}: name a panel whose member ids are the thread's")
    if existing and not existing.legacy and existing.panel.ids and existing.panel.ids != panel.ids:
        raise InputError(f"panel {name!r} has changed members since this discussion started "
                         f"({', '.join(existing.panel.ids)})")
    return panel, settings


def _protocol(q: Question, existing: Discussion | None, panel, wanted: str | None) -> str:
    name = wanted or (existing.protocol if existing else None) or q.protocol or panel.protocol or DEFAULT
    get_protocol(name)  # an unknown name is bad input
    if existing and name != existing.protocol:
        raise InputError(f"{q.folder}: this discussion runs the {existing.protocol!r} protocol, not {name!r}. To "
                         f"put the same question to the {name} protocol, run it as trials of their own "
                         f"(`discuss trials {q.slug} --runs 1 --protocol {name} --into comparisons/{q.slug}-{name}`), or ask it "
                         "again as a new question in other words")
    return name


def inside_project(root: Path, q: Question) -> None:
    """A question's file and discussion folder, and every round folder, must resolve inside the project."""
    portable(q.path)
    for path in [q.path, q.folder, *(q.folder.iterdir() if q.folder.is_dir() else [])]:
        confined(path, root, what=str(path))


def prepare(root: Path, q: Question, options: Options) -> Discussion:
    """The discussion to run on `q`, new or resumed; InputError for anything unusable."""
    inside_project(root, q)
    existing = store.load(q.folder)
    if existing is not None and existing.status == "concluded" and not existing.rounds and existing.conclusion is None:
        raise InputError(f"{q.folder}: damaged: discussion.yaml says it concluded, with no round and no conclusion; "
                         "restore it from git (`discuss verify --base` names what changed) before going on")
    if existing and existing.concluded:
        _protocol(q, existing, existing.panel, options.protocol)  # a wrong --protocol is still wrong
        if not reopened(existing, options.overrides or {}):
            return existing  # nothing will be asked of a panel
    layout = Layout(root)
    panel, settings = _panel(layout, q, existing, options.panel, options.models)
    if existing and existing.legacy:
        # A Dyson thread goes on under this panel's settings, with the thread's own config on top.

        settings, panel = legacy().continued(existing, settings, panel)
        existing.settings = settings
        existing.settings.own = own_settings(get_protocol(existing.protocol), settings.own, "the panel's settings")
    name = _protocol(q, existing, panel, options.protocol)
    d = existing or start(q, panel, settings, utc_now(), name)

    if not existing and q.phase and (threads := for_protocol(name)):
        threads.adopt(d, q.phase)  # a Project Dyson question: its discussion in the shape Dyson's site reads
    d.panel = panel
    get_protocol(name).prepare(d, Setup(personas=partial(load_personas, layout.personas)))
    overrides = {k: v for k, v in (options.overrides or {}).items() if v is not None}
    if overrides:
        d.settings = updated(d.settings, overrides, "the command line's settings")
    given = {**get_protocol(d.protocol).presentation.own_from_flags(d.protocol, options.flags or {}), **(options.own or {})}
    if own := {k: v for k, v in given.items() if v is not None}:
        d.settings = own_updated(d, own)
    return d


def own_updated(d: Discussion, own: dict) -> Settings:
    """`d`'s settings with its protocol's own settings changed; InputError for one its protocol lacks."""
    import dataclasses

    protocol = get_protocol(d.protocol)
    refuse_strangers(protocol, own)
    return dataclasses.replace(d.settings, own=own_settings(protocol,
        {**d.settings.own, **own}, "the command line's settings"))


BUDGET_SETTINGS = {"calls": "max_calls", "tokens": "max_tokens", "cost": "max_cost"}


def reopened(d: Discussion, overrides: dict) -> bool:
    """A discussion its budget stopped without a conclusion goes on once that budget is raised."""
    stop = d.budget_stop
    if not (d.status == "closed" and d.termination_reason == "budget" and stop and d.conclusion is None):
        return False
    raised = overrides.get(BUDGET_SETTINGS.get(str(stop.get("limit")), ""))
    if raised is None or raised <= stop.get("max", 0):
        return False
    d.status, d.termination_reason, d.concluded_at, d.budget_stop = "active", None, None, None
    return True


def ground(root: Path, q: Question, d: Discussion) -> tuple[Question, list[str]]:
    """The question as the panel reads it, with its sources, and warnings about changed sources.

    A new discussion records each source's hash; InputError, before any
    call, for a source that is missing or unreadable.
    """
    from dataclasses import replace


    sources = read_sources(q, root, load_source_folders(Layout(root).panels)) if q.sources else []
    warnings = changed(d.sources, sources) + unfrozen(sources, q.slug)
    if d.record is not None and (edited := question_changed(d.record, q.title, q.background, len(d.rounds))):
        warnings.append(edited)
    if sources and not d.rounds:
        d.sources = [s.record() for s in sources]
    block = sources_block(sources, d.settings.source_tokens, f"{q.title}\n{q.background}")
    return (replace(q, background=f"{q.background.rstrip()}\n\n{block}") if block else q), warnings


def check_routes(d: Discussion) -> None:
    """Every member's model one a provider can reach: else InputError naming each, and the ways there are."""
    if lost := unroutable(d.panel.everyone):
        names = ", ".join(f"{p.model} ({p.id})" for p in lost)
        raise InputError(f"{names}: no provider knows this model; name it with a provider's prefix litellm "
                         f"knows ({', '.join(f'{k}/' for k in KEY_VARIABLES)}, ...), give its server's api_base "
                         "in discussions/panels.yaml, or use a panel there (`discuss panels` lists them); "
                         "nothing was written")


def check_ready(d: Discussion, root: Path) -> None:
    """What must hold before spending: every model reachable, keys present, scripts readable, the agreement
    measure available."""
    check_routes(d)
    check_keys(d.panel.everyone)

    d.panel = ready(d.panel, root)  # coding agents' tools found, new enough, logged in; what answers recorded
    scripted = [p for p in d.panel.everyone if p.model.startswith(SCRIPTED_PREFIX)]
    if scripted:
        ScriptedProvider(Layout(root).scripts).check(scripted)
    get_protocol(d.protocol).check_ready(d)
