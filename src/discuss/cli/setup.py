"""Commands that set a project up: init, new, doctor, ci init and mcp."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..errors import InputError

if TYPE_CHECKING:
    pass
from .. import DISTRIBUTION, __version__, commands
from ..commands.project import PANELS_FILE, SETTINGS_DIR
from ..text.tables import table
from .base import app, content, handled, layout, root

FAMILY = "Set up"  # the panel of `discuss --help` these commands are listed under
CELL = 48  # characters of a finding in doctor's table; a longer one is written out under it


@app.command(rich_help_panel=FAMILY)
@handled(anywhere=True)
def init(folder: Path = typer.Argument(Path("."), help="The project folder (default: this one)."),
         git: bool = typer.Option(True, "--git/--no-git", help="Make the folder a git repository if it is in none "
                                  "(the discussions are reviewed in git).")):
    """Start a project (content/, a panel file with an offline panel and real ones to uncomment, mkdocs.yml), or
    add what an existing one lacks; in a Project Dyson checkout, only a panel file pointing at its questions."""
    target = folder.resolve()
    existed = (target / SETTINGS_DIR / PANELS_FILE).is_file()
    written = commands.scaffold.init(target)
    for path in written:
        typer.echo(f"wrote {path.relative_to(target)}")
    if existed and not written:
        typer.echo(f"{target}: already a discuss project with every file it needs; nothing to add")
    dyson = commands.scaffold.dyson_checkout(target)
    if dyson:
        typer.echo(f"a Project Dyson checkout: questions stay in {commands.scaffold.DYSON_CONTENT}, its own site publishes them, "
                   "and no file of it was changed")
    elif commands.scaffold.site_without_plugin(target):
        typer.echo("warning: mkdocs.yml is your own and does not list the discuss plugin: add `- discuss` under "
                   "`plugins:` to publish the discussions", err=True)
    if git and not (target / ".git").exists() and not _in_repository(target):
        _git_init(target)
    here = "" if target == Path.cwd().resolve() else f"cd {folder} && "
    typer.echo(f"next: {here}discuss ask \"Your research question?\" --panel offline   # a simulated panel"
               + ("" if dyson else "\n      then mkdocs build, and open site/index.html"))


def _in_repository(folder: Path) -> bool:
    return any((p / ".git").exists() for p in folder.parents)


def _git_init(folder: Path) -> None:
    import shutil
    import subprocess

    if shutil.which("git") is None:
        typer.echo("note: git is not installed; discussions are meant to be reviewed in git", err=True)
        return
    # `main`, the branch the workflow `ci init` writes runs on, whatever the machine's git defaults to.
    done = subprocess.run(["git", "init", "-q", "--initial-branch=main", str(folder)], capture_output=True, text=True)
    typer.echo("made it a git repository (git init)" if done.returncode == 0 else
               f"note: git init failed: {done.stderr.strip()[:200]}", err=done.returncode != 0)


@app.command(rich_help_panel=FAMILY)
@handled
def new(
    title: str = typer.Argument(..., help="The research question, in words."),
    section: str | None = typer.Option(None, help="Folder under content/ to put it in, such as questions or "
                                       "research-questions/phase-1 (default: questions).", show_default=False),
    tag: list[str] = typer.Option([], "--tag", help="A tag; repeat for more."),
    dyson: bool | None = typer.Option(None, "--dyson/--no-dyson", help="Name, number and place it as Project "
                                      "Dyson's site expects (default: when the content already holds Dyson "
                                      "questions).", show_default=False),
    bom_item: str | None = typer.Option(None, "--bom-item", help="Project Dyson: the BOM item the question "
                                        "comes from, such as bom-1-3 (default: the phase's latest question's)."),
    bom_slug: str | None = typer.Option(None, "--bom-slug", help="Project Dyson: that BOM item's slug."),
):
    """Create a question file under content/, ready for its background."""
    path, source = commands.scaffold.new_question(content(), title, section, tag, dyson, (bom_item, bom_slug))
    if source:
        typer.echo(f"source: {source}")
    typer.echo(f"created {path}")
    typer.echo(f"next: write the background in it, then `discuss run {path.stem} --auto`")


@app.command(rich_help_panel=FAMILY)
@handled
def doctor(panel: str | None = typer.Option(None, "--panel", help="Check one panel; default all."),
           as_json: bool = typer.Option(False, "--json", help="JSON: a row per panelist, with `failed`.")):
    """Check every panelist before spending: key, model known to litellm, endpoint answering."""
    rows = commands.doctor.check(commands.doctor.panels_of(layout().panels, panel), scripts=layout().scripts)
    header = ["panel", "member", "model", "key", "price", "endpoint"]
    if as_json:
        import json

        typer.echo(json.dumps([{k: getattr(r, k) for k in header} | {"failed": bool(r.failed)} for r in rows],
                              indent=2))
    else:
        notes: list[str] = []

        def cell(r, what: str) -> str:
            """A cell of the table short; a longer finding is written out in full under it."""
            text = getattr(r, what)
            if len(text) <= CELL:
                return text
            notes.append(f"[note {len(notes) + 1}] {r.panel}/{r.member} {what}: {text}")
            return text[:CELL - 12].rsplit(" ", 1)[0].rstrip(",;:(") + f" [note {len(notes)}]"

        cells = [[r.panel, r.member, r.model, cell(r, "key"), cell(r, "price"), cell(r, "endpoint")] for r in rows]
        typer.echo(table(header, cells))
        if notes:
            typer.echo("\n".join(notes))
    failed = [f"{r.panel}/{r.member}" for r in rows if r.failed]
    if failed:
        typer.echo(f"error: {len(failed)} panelist(s) would fail: {', '.join(failed)}", err=True)
        raise typer.Exit(1)


@app.command(rich_help_panel=FAMILY)
@handled
def mcp():
    """Serve this project to an agent over MCP (stdio): ask, follow_up, reply, sources_add, sources_search,
    status, show, verdict, verify, panels, protocols, estimate, audit, trials, eval, related, resolve."""
    try:
        # The MCP SDK (about 0.9 s) loads only for `discuss mcp`.
        from ..mcp_server.server import serve
    except ImportError as exc:
        raise InputError(f"the MCP server needs the mcp package ({exc}): pip install 'discuss-panel[mcp]'") from None
    serve(root())


ci_app = typer.Typer(help="Set up continuous runs of every open discussion.", no_args_is_help=True)
app.add_typer(ci_app, name="ci", rich_help_panel=FAMILY)


@ci_app.command("init")
@handled
def ci_init(
    shards: int = typer.Option(1, "--shards", min=1, max=256, help="Machines to share the questions among."),
    branch: str | None = typer.Option(None, "--branch", help="Push the new rounds to this branch instead of "
                                      "opening a pull request."),
    install: str | None = typer.Option(None, "--install", help="The command that installs discuss on the "
                                       "runner (default: the release or git commit running here)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing workflow file."),
):
    """Write a GitHub Actions workflow: N machines run their shards, one gathers the new rounds and the site."""
    (target, gate), secrets = commands.ci.init(layout(), shards, lambda: install or _install_line(), branch,
                                      _current_branch(), force)
    typer.echo(f"wrote {target}")
    typer.echo(f"wrote {gate} (pull requests that rewrite a recorded round fail it)")
    if secrets:
        typer.echo("add these repository secrets (Settings > Secrets and variables > Actions): "
                   + ", ".join(secrets))


def _current_branch() -> str:
    """The branch this repository is on (the one the workflow runs on pushes to), else main."""
    import subprocess

    try:
        done = subprocess.run(["git", "-C", str(root()), "symbolic-ref", "--short", "-q", "HEAD"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "main"
    return done.stdout.strip() or "main" if done.returncode == 0 else "main"


def _install_line() -> str:
    """How the runners install discuss: as it was installed here where a runner can do the same."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(DISTRIBUTION)
        line = commands.ci.install_line(dist.read_text("direct_url.json"), dist.version)
    except PackageNotFoundError:
        line = None
    if line is None:
        line = commands.ci.release_line(__version__)
        typer.echo(f"warning: discuss runs here from a folder on this machine, which a runner cannot reach; "
                   f"the workflow installs the release of this version, `{line}`: give --install to change it",
                   err=True)
    return line

