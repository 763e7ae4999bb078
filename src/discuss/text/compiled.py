"""Compiled jinja2 templates kept in this user's cache folder, so no process compiles the same template twice.

jinja2 checks each kept file against its template's source before using it,
so an edited template is compiled again; the folder is named for everything
else the compiled code depends on (the environment's class and syntax,
its extensions, jinja2's and Python's versions).
"""

from __future__ import annotations

import hashlib
import sys

import jinja2

from ..userdirs import user_cache


def compiled_templates(env: jinja2.Environment, kind: str) -> jinja2.BytecodeCache | None:
    """A folder of compiled templates for environments made as `env` is; none where this user's cache
    cannot be written."""
    made = repr((type(env).__qualname__, jinja2.__version__, sys.version_info[:2], env.block_start_string,
                 env.block_end_string, env.variable_start_string, env.variable_end_string, env.comment_start_string,
                 env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix, env.trim_blocks,
                 env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline, _named(env.autoescape),
                 env.finalize is not None, env.optimized, sorted(env.extensions)))
    folder = user_cache(kind, hashlib.sha256(made.encode()).hexdigest()[:24])
    return jinja2.FileSystemBytecodeCache(str(folder)) if folder is not None else None


def _named(value: object) -> object:
    """A setting as the same words in every process: a function (`select_autoescape()`'s) by its name, not by
    its address, which would name a new folder each time."""
    if not callable(value):
        return value
    return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__qualname__)}"
