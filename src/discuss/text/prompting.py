"""Prompt templates: jinja2 files shipped with the package, overridable per project.

Shared templates (`system`, `respond`) live in `discuss/text/prompts/`; a
protocol's own live in its package's `prompts/` folder, and only that
protocol sees them, so two protocols may each have a `conclude.j2`. A
registered protocol from outside this package ships its prompts the same
way, beside its module. A project overrides a template with a file of the
same name in its prompt folder, or in a sub-folder named after the protocol
to change it for that protocol alone; teams tune prompts in review like
any other change.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path
from typing import Any
from typing import Protocol as Structural

import jinja2

from ..calls import CACHE_BREAK
from ..errors import InputError
from .compiled import compiled_templates
from .naming import LeadsOut, read_in_project
from .placeholders import TEMPLATE_BYTES
from .tokens import count


class Protocol(Structural):
    """What prompts need of a protocol: its name (a project's override folder), its class's module (its own)."""

    name: str


SHARED = Path(__file__).parent / "prompts"


def prompt_folder(protocol: Protocol) -> Path:
    """The `prompts/` folder beside the module that defines the protocol's class."""
    module = sys.modules[type(protocol).__module__]
    return Path(module.__file__ or ".").parent / "prompts"


class _Mark(str):
    """The template's own cache mark: the one `{{ cache_break }}` puts, told apart from a typed copy."""


BREAK = _Mark(CACHE_BREAK)


def _finalize(value: object) -> object:
    """Every value a template prints, with any copy of the cache mark in it (a background, a model's
    answer) taken out: the only mark in a prompt is the template's. A value of more than one line, or one
    that would begin a heading, is quoted as data (see `as_data`)."""
    if isinstance(value, str) and value is not BREAK:
        value = value.replace(CACHE_BREAK, "")
        return as_data(value) if "\n" in value.strip() or value.lstrip().startswith("#") else value
    return value


def as_data(text: str) -> str:
    """`text` fenced so nothing in it reads as the prompt's own structure.

    The structure of a prompt (answer labels, "How to vote", who won, the
    scores) is the template's alone. Another panelist's answer that writes
    `## Answer Z`, a second set of voting rules or "(the round's winner)"
    must reach the reader as quoted text: the fence is longer than any run
    of backticks inside, so the text cannot close it.
    """
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text.strip(chr(10))}\n{fence}"


@functools.lru_cache(maxsize=64)
def _environment(folders: tuple[str, ...]) -> jinja2.Environment:
    """One environment per search path, so a template is compiled once per process, not once per discussion
    (an eval runs hundreds); the loader still sees a template edited since (it checks the file's time).

    Sandboxed: a project's templates come with its files, from whoever opens a pull request, and fill in
    text; they may not reach past the values they are given (no attribute of Python's own, no changing a
    value). Compiled templates are kept in this user's cache, by their text: a run compiles none again."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(
        loader=_Templates(list(folders)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # prompts are plain text for a model, not HTML
        finalize=_finalize,
    )
    env.globals["cache_break"] = BREAK
    env.bytecode_cache = compiled_templates(env, "prompts")
    return env


class _Templates(jinja2.FileSystemLoader):
    """The templates' folders, where a project's template that is a link out of the project is refused
    before it is read (its text would be sent to every model: a key of the machine's, say)."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Any]:
        from jinja2.loaders import split_template_path


        for folder in self.searchpath:
            path = os.path.join(folder, *split_template_path(template))
            if not os.path.isfile(path):
                continue
            # Read as opened and judged by the file it opened, as jinja itself would read it: the first found.
            try:
                data, mtime = read_in_project(path, TEMPLATE_BYTES), os.path.getmtime(path)
            except LeadsOut as exc:
                raise jinja2.TemplateError(f"a link out of the project (to {exc.target}); discuss reads nothing "
                                           "through one") from None
            except OSError:
                continue
            return data.decode("utf-8"), os.path.normpath(path), functools.partial(_unchanged, path, mtime)
        raise jinja2.TemplateNotFound(template)


def _unchanged(path: str, mtime: float) -> bool:
    try:
        return os.path.getmtime(path) == mtime
    except OSError:
        return False


class Prompts:
    def __init__(self, override_dir: Path | None = None, protocol: Protocol | None = None):
        self.override_dir, self.protocol = override_dir, protocol
        folders: list[Path] = []
        if override_dir and override_dir.is_dir():
            folders += [override_dir / protocol.name] if protocol is not None and protocol.name else []
            folders.append(override_dir)
        folders += [prompt_folder(protocol)] if protocol is not None else []
        self.folders = [*folders, SHARED]
        self.env = _environment(tuple(str(f) for f in self.folders))

    def scoped(self, protocol: Protocol) -> Prompts:
        """These prompts as `protocol` sees them: its own templates, then the shared ones."""
        return Prompts(self.override_dir, protocol)

    def render(self, name: str, **context) -> str:
        try:
            template = self.env.get_template(f"{name}.j2")
            return template.render(**context).strip() + "\n"
        except jinja2.TemplateNotFound:
            where = ", ".join(str(f) for f in self.folders)
            raise InputError(f"prompt template {name}.j2 not found (looked in {where})") from None
        except jinja2.TemplateError as exc:  # a project's template that is not valid, or reaches too far
            where = getattr(exc, "filename", None) or f"{name}.j2"
            raise InputError(f"prompt template {where}: {exc.message or type(exc).__name__}") from None


def estimate_tokens(text: str) -> int:
    """An upper bound of the tokens `text` costs, whatever its script (see `tokens`)."""
    return count(text)
