"""Deliberation protocols: each decides the next calls from the state on disk.

A protocol is what `base.next_step` drives: `new_round`, `round_step`,
`finished_rounds` and `conclusion_spec`, and optionally `runs_to_end`
(one `discuss run` runs it whole). A module is a protocol itself, or offers
`protocol(name)` when it serves several names with one class.
"""

from __future__ import annotations

from importlib import import_module

from ..errors import InputError

# name -> module
MODULES = {
    "vote": "vote", "critique": "critique", "deliberate": "deliberate",
    "tournament": "tournament", "decompose": "tournament",
    "council": "staged", "debate": "staged", "adversarial": "staged", "auto": "staged",
}
PROTOCOLS = tuple(MODULES)


def get_protocol(name: str):
    if name not in MODULES:
        raise InputError(f"unknown protocol {name!r} (protocols: {', '.join(PROTOCOLS)})")
    module = import_module(f"{__name__}.{MODULES[name]}")
    factory = getattr(module, "protocol", None)
    return factory(name) if factory else module
