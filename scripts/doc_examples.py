"""Run the docs' shell examples against a copy of the demo project; --update writes what they printed.

    python scripts/doc_examples.py [--update] [PAGE.md ...]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from docexamples import DOCS, demo_project, mismatch, pages, rewrite, run_page  # noqa: E402


def main(argv: list[str]) -> int:
    update = "--update" in argv
    chosen = [DOCS / Path(a).name for a in argv if a != "--update"] or pages()
    failures = 0
    for page in chosen:
        with tempfile.TemporaryDirectory() as folder:
            ran = run_page(page, demo_project(Path(folder)))
        if update:
            rewrite(page, ran)
        for block in ran:
            for command in block.commands:
                why = mismatch(command, block.lang)
                if why and not update:
                    failures += 1
                    print(f"{page.name}: {why}\n")
        print(f"{page.name}: {sum(len(b.commands) for b in ran)} command(s)" + (" rewritten" if update else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
