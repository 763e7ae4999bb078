"""The vote protocol (Project Dyson's): answer, vote anonymously, pick a winner, repeat.

The protocol itself is in `protocol.py`; its record in `record.py`, its files
in `files.py`, Project Dyson's format in `dyson.py`. This module stays light,
so reading a Dyson index (`discuss status`) does not load the protocol: its
names are found here only when asked for.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

_SUBMODULES = {p.stem for p in Path(__file__).parent.glob("*.py")}


def __getattr__(name: str) -> Any:
    if name.startswith("__") or name in _SUBMODULES:  # the import system asks for submodules this way
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.protocol"), name)
