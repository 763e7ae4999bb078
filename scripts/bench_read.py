"""What checking every YAML text's shape (size, nesting, aliases) costs when the site reads an archive.

The check scans a text's events with libyaml only where it could hold an
alias or deep nesting (an `&` or `*`, 64 brackets, a deeply indented
line). The worst case is measured: every vote's reason has Markdown
emphasis, so every votes.yaml is scanned before it is parsed. The figure
is the time to read 200 discussions (5 rounds of 2 panelists each) with
the check over the time without it, interleaved, median of 3.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchkit import HERE  # noqa: F401  (puts the tests' helpers on the path)
from discuss.domain import Discussion, Settings
from discuss.site import collect
from discuss.store import discussions as store
from discuss.store import yamlio, yamlshape
from sitekit import PANEL, make_round, question


def generate(root: Path, count: int) -> None:
    for n in range(count):
        path = question(root, f"q{n:04d}", f"Question {n}?")
        rounds = [make_round(r, r, {p: f"Answer of {p} in round {r}, with *emphasis*.\n" for p in PANEL.ids},
                             [(v, t, "APPROVE", "The *first* point holds [S1]; the second does not.")
                              for v in PANEL.ids for t in PANEL.ids], [(p, "CONTINUE", "more") for p in PANEL.ids])
                  for r in range(1, 6)]
        store.save(Discussion(f"q-{n}", f"q{n:04d}", f"Question {n}?", PANEL, Settings(), rounds=rounds,
                              status="active"), path.with_suffix(""))


def read(docs: Path) -> float:
    collect.forget()
    started = time.perf_counter()
    entries, _ = collect.collect(docs)
    assert all(e.discussion for e in entries)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    real = yamlshape.check_shape
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), args.questions)
        checked, unchecked = [], []
        for _ in range(args.runs):
            yamlio.check_shape = real
            checked.append(read(Path(tmp) / "content"))
            yamlio.check_shape = lambda text: None
            unchecked.append(read(Path(tmp) / "content"))
        yamlio.check_shape = real
    a, b = statistics.median(checked), statistics.median(unchecked)
    print(f"reading {args.questions} discussions, every votes.yaml scanned: {a:.2f} s with the shape check, "
          f"{b:.2f} s without; ratio {a / b:.3f}")


if __name__ == "__main__":
    main()
