"""Checks at the archive's scale, each a ratio in one run (the machine is shared):

- `discuss status` over 10,000 discussions, as a process, over `import litellm` (goal: at most 0.2), the
  first status (every file read: the median of three, what it keeps removed before each) and the next
  (what it kept reused);
- `discuss verify` over 1,000 discussions (5 rounds of 3 panelists and a conclusion each), as a process,
  over the time the site's plugin takes to collect the same archive in one (goal: at most 2).

Usage: python scripts/bench_archive.py [--status 10000] [--verify 1000]
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_site import generate

SRC = str(Path(__file__).resolve().parent.parent / "src")


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env={**os.environ, "PYTHONPATH": SRC}, capture_output=True, check=False)
    return time.perf_counter() - start


def first(argv: list[str], content: Path) -> float:
    """A first status: it reads every file (and keeps what it read, which is removed before each)."""
    from discuss.store.statuscache import _file

    _file(content).unlink(missing_ok=True)
    return timed(argv)


def project(root: Path, count: int) -> Path:
    """`count` discussions: a few generated whole, then copied under new names (status reads each head)."""
    generate(root, min(count, 50))
    (root / "discussions").mkdir(exist_ok=True)
    (root / "discussions" / "panels.yaml").write_text(
        "panels:\n  offline:\n    members: [offline/pragmatist, offline/skeptic]\n")
    questions = root / "content" / "questions"
    made = sorted(p for p in questions.glob("*.md"))
    for n in range(len(made), count):
        source = made[n % len(made)]
        text = source.read_text().replace(source.stem, f"q{n:05d}").replace("Question ", f"Question {n} of ")
        (questions / f"q{n:05d}.md").write_text(text)
        shutil.copytree(source.with_suffix(""), questions / f"q{n:05d}")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--status", type=int, default=10_000)
    parser.add_argument("--verify", type=int, default=1_000)
    parser.add_argument("--skip-verify", action="store_true")
    args = parser.parse_args()
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    litellm = min(timed([sys.executable, "-c", "import litellm"]) for _ in range(3))
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp), args.status)
        argv = [sys.executable, "-m", "discuss", "--root", str(root), "status"]
        cold = statistics.median(first(argv, root / "content") for _ in range(3))
        status = min(timed(argv) for _ in range(3))  # later ones read what changed: nothing here
    print(f"status over {args.status} discussions {status:.2f}s (the first, reading every file: {cold:.2f}s), "
          f"import litellm {litellm:.2f}s: {status / litellm:.2f}, first {cold / litellm:.2f} (goal <= 0.2)")
    if args.skip_verify:
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp), args.verify)
        from discuss.site.collect import collect, forget

        forget()
        start = time.perf_counter()
        collect(root / "content")
        collected = time.perf_counter() - start
        verify = timed([sys.executable, "-m", "discuss", "--root", str(root), "verify"])
    print(f"verify over {args.verify} discussions {verify:.2f}s, the site collecting them {collected:.2f}s: "
          f"{verify / collected:.2f} (goal <= 2)")


if __name__ == "__main__":
    main()
