"""The protocols, by name: the one place that maps a name to a protocol.

Protocols are plugins: each is named in the entry-point group
`discuss.protocols` ("name = package.module:Factory"), the nine built-in
ones by discuss's own package metadata, and a package installed beside
discuss adds one the same way, with its prompts beside its module and its
settings in its `settings_model`. `BUILT_IN` repeats the built-in entries so
a run of a built-in protocol needs no scan of every installed package's
metadata (a tenth of a second); a test checks the two agree. `register`
adds one at run time (a test's toy protocol).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..text.naming import did_you_mean

if TYPE_CHECKING:  # a status over the archive needs DEFAULT alone, not the base class's imports (15 ms)
    from .base import Protocol

DEFAULT = "vote"
GROUP = "discuss.protocols"
# name -> "module:factory", as pyproject.toml's entry points say; the module is imported only when used.
BUILT_IN: dict[str, str] = {
    "vote": "discuss.protocols.vote:VoteProtocol",
    "critique": "discuss.protocols.critique:Critique",
    "council": "discuss.protocols.council:Council",
    "debate": "discuss.protocols.council:Debate",
    "adversarial": "discuss.protocols.council:Adversarial",
    "auto": "discuss.protocols.council:Auto",
    "tournament": "discuss.protocols.tournament:Tournament",
    "decompose": "discuss.protocols.decompose:Decompose",
    "deliberate": "discuss.protocols.deliberate:Deliberate",
}
_EXTRA: dict[str, Callable[[], Protocol]] = {}


@cache
def plugins() -> dict[str, str]:
    """Every protocol the entry-point group names, the built-in ones first."""
    from importlib.metadata import entry_points

    found = {ep.name: ep.value for ep in entry_points(group=GROUP)}
    return {**BUILT_IN, **{name: found[name] for name in sorted(found) if name not in BUILT_IN}}


def names() -> list[str]:
    return [*plugins(), *_EXTRA]


def register(name: str, factory: Callable[[], Protocol]) -> None:
    _EXTRA[name] = factory


def unregister(name: str) -> None:
    _EXTRA.pop(name, None)


def settings_names(protocol: Protocol) -> set[str]:
    """The names of a protocol's own settings (camelCase), as `--set` takes them."""
    return set(protocol.settings_model.names()) if protocol.settings_model is not None else set()


def own_settings(protocol: Protocol, raw: dict[str, Any], where: str) -> dict[str, Any]:
    """A protocol's own settings among `raw` (camelCase), checked and with defaults, in the order it declares
    them."""
    if protocol.settings_model is None:
        return {}
    # pydantic's checks of a protocol's own settings load when a protocol with settings is asked for, never
    # with `discuss --help`, which names the protocols.
    from ..schema import validated

    mine = {k: v for k, v in raw.items() if k in protocol.settings_model.names()}
    return validated(protocol.settings_model, mine, where, noun="setting").model_dump(by_alias=True)


def refuse_strangers(protocol: Protocol, given: Iterable[str]) -> None:
    """InputError naming each of `given` that is no setting of the protocol's own (`--set`, an ask's), with
    the settings it has."""
    from ..schema.settings import refuse_shared

    refuse_shared(given)
    known = settings_names(protocol)
    if strange := sorted(set(given) - known):
        hint = did_you_mean(strange[0], sorted(known))
        mine = f"its settings: {', '.join(sorted(known))}" if known else "it has no settings of its own"
        raise InputError(f"{', '.join(strange)}: not a setting of the {protocol.name} protocol{hint} ({mine}; "
                         "shared ones such as maxRounds have options of their own)")


def own_settings_in(raw: dict[str, Any], where: str) -> dict[str, Any]:
    """Of `raw`, the settings some protocol declares as its own, as given; each checked by every protocol
    that declares it, so a wrong value is refused where it is written, not when that protocol first runs."""
    found: dict[str, Any] = {}
    if not raw:
        return found  # without loading every protocol to ask it
    for name in names():
        protocol = get_protocol(name)
        if protocol.settings_model is not None:
            if mine := {k: v for k, v in raw.items() if k in protocol.settings_model.names()}:
                own_settings(protocol, mine, where)
                found.update(mine)
    return found


def get_protocol(name: str) -> Protocol:
    """The protocol of that name; an empty name is the default."""
    name = name or DEFAULT
    if name in _EXTRA:
        extra = _EXTRA[name]()
        extra.name = name
        return extra
    target = BUILT_IN.get(name) or plugins().get(name)
    if target is None:
        raise InputError(f"unknown protocol {name!r} (protocols: {', '.join(names())})" + did_you_mean(name, names()))
    module, factory = target.split(":")
    try:
        protocol: Protocol = getattr(import_module(module), factory)()
    except (ImportError, AttributeError) as exc:
        raise InputError(f"protocol {name!r} ({target}) cannot be loaded: {exc}") from None
    protocol.name = name
    return protocol

