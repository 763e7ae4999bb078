"""Who answers a panelist's calls: providers are plugins, found by the entry-point group `discuss.providers`.

Each entry names a `ProviderPlugin`: whether it claims a panelist, and the
provider that answers for it. The built-in ones (people, scripted,
offline, coding agents' tools, the light OpenAI-compatible client,
litellm) are registered the way another package adds one; `BUILT_IN`
repeats them, in the order they are asked, so routing a built-in model
scans no installed package's metadata. Another package's providers are asked after the built-in ones
that claim by prefix and before litellm, which takes whatever is left.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

from ..domain import Panelist
from .base import ProviderPlugin

GROUP = "discuss.providers"
# name -> "module:object", in the order asked; litellm, which takes every model, last.
BUILT_IN: dict[str, str] = {
    "people": "discuss.providers.builtin:PEOPLE",
    "scripted": "discuss.providers.builtin:SCRIPTED",
    "offline": "discuss.providers.builtin:OFFLINE",
    "agents": "discuss.providers.builtin:AGENTS",
    "openai-http": "discuss.providers.builtin:OPENAI_HTTP",
    "litellm": "discuss.providers.builtin:LITELLM",
}
FALLBACK = "litellm"


def _load(target: str) -> ProviderPlugin:
    module, name = target.split(":")
    found: ProviderPlugin = getattr(import_module(module), name)
    return found


@cache
def _built_in() -> tuple[ProviderPlugin, ...]:
    return tuple(_load(target) for name, target in BUILT_IN.items() if name != FALLBACK)


@cache
def _others() -> tuple[ProviderPlugin, ...]:
    """Providers other packages register, read once per process and only when no built-in one claims."""
    from importlib.metadata import entry_points

    return tuple(_load(ep.value) for ep in sorted(entry_points(group=GROUP), key=lambda ep: ep.name)
                 if ep.name not in BUILT_IN)


def plugin_for(p: Panelist) -> ProviderPlugin:
    """The plugin that answers for `p`: the first that claims it, else litellm."""
    for plugin in _built_in():
        if plugin.claims(p):
            return plugin
    for plugin in _others():
        if plugin.claims(p):
            return plugin
    return _load(BUILT_IN[FALLBACK])
