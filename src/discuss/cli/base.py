"""What every command shares: the Typer app, the project it runs in, and how errors become exit codes."""
from __future__ import annotations

import functools
import inspect
from pathlib import Path

import typer

from .. import __version__
from ..commands.project import PANELS_FILE, SETTINGS_DIR, Layout
from ..errors import DiscussError, InputError, WaitingForPeople
from ..text import placeholders, secrets
from ..text.clean import clean
from .scrubbed import scrubbed_output


def _flags_without_type() -> None:
    """A flag takes no value, so `--help` shows no `<bool>` beside it (typer 0.29 prints a type for every option)."""
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "_discuss", False):
        return

    def display_type_rich(self, ctx):
        return None if self.is_flag else shown(self, ctx)

    display_type_rich._discuss = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flags_without_type()


app = typer.Typer(
    help="A panel of language models deliberates on a research question, in files.\n\n"
         "Start with: discuss init my-study; cd my-study; "
         "discuss ask \"Which unit goes first?\" --panel offline; discuss show (the conclusion first).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


# The project this invocation's `--root` names; the app's callback sets it afresh for every invocation.
STATE: dict[str, Path] = {}


BACKGROUND_BYTES = 1024 * 1024  # a background is read whole into every prompt: larger is a mistake


def layout() -> Layout:
    return Layout(STATE["root"]) if "root" in STATE else Layout.find(Path.cwd())


def root() -> Path:
    return layout().root


def content() -> Path:
    return layout().content


def handled(fn=None, *, anywhere: bool = False):
    """A command's errors as one line and an exit code; unless `anywhere`, it needs a project around it."""
    if fn is None:
        return functools.partial(handled, anywhere=anywhere)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            if not anywhere and not layout().panels.is_file():
                raise InputError(f"{layout().root}: not a discuss project (no {SETTINGS_DIR}/{PANELS_FILE} here or "
                                 "above); run `discuss init` to make one, or give --root")
            secrets.remember_project(layout().root)
            placeholders.remember_project(layout().prompts)
            with scrubbed_output():
                return fn(*args, **kwargs)
        except DiscussError as exc:  # its words may quote a server, a page or a file: scrubbed as all output is
            typer.echo(clean(f"{'waiting' if isinstance(exc, WaitingForPeople) else 'error'}: {exc}"), err=True)
            raise typer.Exit(exc.exit_code) from None
        except OSError as exc:
            typer.echo(clean(f"error: {disk_fault(exc)}"), err=True)
            raise typer.Exit(2 if isinstance(exc, (IsADirectoryError, NotADirectoryError, FileExistsError)) else 1) \
                from None
        except KeyboardInterrupt:
            typer.echo("interrupted; run the same command again to resume", err=True)
            raise typer.Exit(130) from None

    wrapper.__doc__ = one_line_summary(fn.__doc__)
    return wrapper


def one_line_summary(doc: str | None) -> str | None:
    """A docstring whose first paragraph (what `discuss --help` lists) is one line: the help's rich text keeps a
    docstring's line breaks, and a list of commands broke its sentences where the source's lines ended."""
    if not doc:
        return doc
    first, sep, rest = inspect.cleandoc(doc).partition("\n\n")
    return " ".join(first.split()) + sep + rest


def disk_fault(exc: OSError) -> str:
    """One line for a fault of the disk or the tree: what, where, and what was kept."""
    where = f"{exc.filename}: " if exc.filename else ""
    what = exc.strerror or str(exc) or type(exc).__name__
    return (f"{where}{what}; everything saved before this is on disk, and an answer that could not be written "
            "will be asked again when you run the same command")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"discuss {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    root_dir: Path | None = typer.Option(
        None, "--root", help="Project folder (default: nearest with discussions/panels.yaml).",
        envvar="DISCUSS_ROOT",
    ),
    _: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
):
    STATE.clear()
    if root_dir is not None:
        if not root_dir.is_dir():
            typer.echo(f"error: --root {root_dir}: no such folder", err=True)
            raise typer.Exit(2)
        STATE["root"] = root_dir.resolve()


def _unusable_line(slugs: list[str]) -> str:
    return f"{len(slugs)} could not start ({', '.join(slugs)}): see why above, mend and run again"


def _unusable(slugs: list[str]) -> None:
    if slugs:
        raise InputError(_unusable_line(slugs))
