"""The application layer: what each command does, as functions returning values.

The CLI (typer) and the MCP server both call these, so a command's logic
lives in one place; they only parse their inputs and present the results.

The front ends name a command's module as an attribute of this package
(`commands.running.ask_file(...)`), and a module is imported the first time
it is named. This is the one place the application layer loads late: every
family of commands is registered when `discuss` starts, and importing all
their modules would bring the engine, the providers and the archive into
`discuss --help` and `discuss status` (see BENCHMARKS.md, start-up).
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what a type checker and a reader see; at run time each is imported when first named
    from . import (
        asking,
        auditing,
        batch,
        checking,
        choices,
        ci,
        doctor,
        estimating,
        evalestimate,
        evalreport,
        evalrun,
        evaluating,
        exporting,
        finished,
        precedents,
        project,
        questions,
        reading,
        reference,
        remembering,
        repeating,
        results,
        running,
        scaffold,
        showing,
        sourcing,
        verifying,
    )

__all__ = [
    "asking", "auditing", "batch", "checking", "choices", "ci", "doctor", "estimating", "evalestimate",
    "evalreport", "evalrun", "evaluating", "exporting", "finished", "precedents", "project", "questions", "reading",
    "reference", "remembering", "repeating", "results", "running", "scaffold", "showing", "sourcing", "verifying",
]


def __getattr__(name: str) -> ModuleType:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return import_module(f"{__name__}.{name}")  # the import binds it here: the next use is a plain attribute
