"""The protocols, by name: the one place that maps a name to a protocol.

Each protocol is a package under `protocols/` with a `Protocol` subclass;
adding one is a package and a line in `REGISTRY`. `register` adds one at
run time (a plugin, or a test's toy protocol).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from ..errors import InputError
from .base import Protocol

DEFAULT = "vote"
# name -> "module:factory"; the module is imported only when the protocol is used.
REGISTRY: dict[str, str] = {
    "vote": "vote:VoteProtocol",
    "critique": "critique:Critique",
    "council": "council:Council",
    "debate": "council:Debate",
    "adversarial": "council:Adversarial",
    "auto": "council:Auto",
    "tournament": "tournament:Tournament",
    "decompose": "decompose:Decompose",
    "deliberate": "deliberate:Deliberate",
}
_EXTRA: dict[str, Callable[[], Protocol]] = {}


def names() -> list[str]:
    return [*REGISTRY, *_EXTRA]


def register(name: str, factory: Callable[[], Protocol]) -> None:
    _EXTRA[name] = factory


def unregister(name: str) -> None:
    _EXTRA.pop(name, None)


def own_setting_names() -> set[str]:
    """Every name of a setting some protocol declares as its own (each protocol is imported)."""
    found: set[str] = set()
    for name in names():
        model = get_protocol(name).settings_model
        found |= model.names() if model is not None else set()
    return found


def get_protocol(name: str) -> Protocol:
    """The protocol of that name; an empty name is the default."""
    name = name or DEFAULT
    if name in _EXTRA:
        extra = _EXTRA[name]()
        extra.name = name
        return extra
    if name not in REGISTRY:
        raise InputError(f"unknown protocol {name!r} (protocols: {', '.join(names())})")
    module, factory = REGISTRY[name].split(":")
    protocol: Protocol = getattr(import_module(f"{__name__}.{module}"), factory)()
    protocol.name = name
    return protocol

