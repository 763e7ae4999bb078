"""Deliberation protocols: each decides the next calls from the state on disk."""

from __future__ import annotations

from importlib import import_module

from ..errors import InputError

# name -> module; a module may serve several names (see `staged`).
MODULES = {"vote": "vote", "critique": "critique", "tournament": "tournament", "decompose": "tournament",
           "deliberate": "deliberate",
           **{n: "staged" for n in ("council", "debate", "adversarial", "auto")}}
PROTOCOLS = tuple(MODULES)


def get_protocol(name: str):
    if name not in MODULES:
        raise InputError(f"unknown protocol {name!r} (protocols: {', '.join(PROTOCOLS)})")
    module = import_module(f"{__name__}.{MODULES[name]}")
    return getattr(module, "protocol", lambda n: module)(name)
