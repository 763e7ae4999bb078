"""Commands through which people take a panelist's turn: reply and vote."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from .. import commands
from .base import app, content, handled

FAMILY = "Take a turn"  # the panel of `discuss --help` these commands are listed under


def _fill(question: str, person: str, ballot: bool, edit: bool | None) -> None:
    """A person's open form: filled from stdin, or in $EDITOR on a terminal; saved only when it passes."""
    import shlex
    import subprocess
    import tempfile

    form = commands.running.waiting_form(content(), question, person, ballot)
    text = commands.running.form_text(form)
    if sys.stdin.isatty() if edit is None else edit:
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as tmp:
            tmp.write(text)
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        subprocess.run([*shlex.split(editor), tmp.name], check=False)
        edited = Path(tmp.name).read_text(encoding="utf-8")
        Path(tmp.name).unlink()
    else:
        edited = commands.running.answered_form(form, sys.stdin.read())
    commands.running.save_form(form, edited)
    typer.echo(f"saved {form.path}; `discuss run {form.q.slug}` goes on")


@app.command(rich_help_panel=FAMILY)
@handled
def reply(question: str = typer.Argument(..., help="Slug of the question, or path to its file."),
          person: str = typer.Option(..., "--as", help="Your id in the panel."),
          edit: bool | None = typer.Option(None, "--edit/--stdin", help="Open $EDITOR, or read stdin "
                                           "(default: the editor on a terminal)."), ):
    """Answer as a person on the panel: opens your form in $EDITOR, or reads the answer from stdin."""
    _fill(question, person, False, edit)


@app.command(rich_help_panel=FAMILY)
@handled
def vote(question: str = typer.Argument(..., help="Slug of the question, or path to its file."),
         person: str = typer.Option(..., "--as", help="Your id in the panel."),
         edit: bool | None = typer.Option(None, "--edit/--stdin", help="Open $EDITOR, or read stdin "
                                          "(default: the editor on a terminal)."), ):
    """Vote as a person on the panel: opens your ballot in $EDITOR, or reads its YAML from stdin."""
    _fill(question, person, True, edit)

