"""Every shell example in the docs runs as pasted against the demo project and prints what the page shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from docexamples import Command, blocks, demo_project, mismatch, pages, run_page


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_page_examples_run_as_shown(page: Path, tmp_path: Path) -> None:
    ran = run_page(page, demo_project(tmp_path))
    problems = [why for block in ran for command in block.commands if (why := mismatch(command, block.lang))]
    assert not problems, f"{page.name}:\n" + "\n\n".join(problems)


def test_most_examples_run() -> None:
    found = [b for page in pages() for b in blocks(page.read_text(encoding="utf-8"))]
    skipped = [b for b in found if b.skipped is not None]
    assert all(b.skipped and b.skipped.strip() for b in skipped)  # every skip says why
    assert len(skipped) * 2 < len(found), "most of the docs' shell examples must run"


def test_a_wrong_line_or_exit_is_caught() -> None:
    shown = ["a: concluded, ... round(s)", "...", "done"]
    right = Command("discuss status", expected=shown, printed="a: concluded, 3 round(s)\nx\ny\ndone\n")
    assert mismatch(right) is None
    assert mismatch(Command("x", expected=["a: waiting"], printed="a: concluded\n"))
    assert mismatch(Command("x", expected=["done"], printed="done\nand more\n"))
    assert mismatch(Command("x", printed="", status=1))
    assert mismatch(Command("x  # exits 1", exits=1, printed="", status=1)) is None
    assert mismatch(Command("x", printed="anything"), "bash") is None
