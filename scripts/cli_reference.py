"""Write docs/cli.md from the commands (a test fails while it is out of date)."""

from pathlib import Path

from discuss.cli.app import app
from discuss.commands.reference import cli_reference

Path(__file__).resolve().parent.parent.joinpath("docs", "cli.md").write_text(cli_reference(app), encoding="utf-8")
