"""`run --all --estimate` at scale: seconds per 1,000 open questions, as a ratio to `import litellm` in the
same run (the machine is shared; only ratios compare).

Usage: python scripts/bench_estimate_all.py [QUESTIONS]   (10,000 by default, the scale the goal is set at)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchkit import make_project

SRC = str(Path(__file__).resolve().parent.parent / "src")


def timed(argv: list[str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env={**os.environ, "PYTHONPATH": SRC, "BENCH_KEY": "bench"},
                   capture_output=True, check=True)
    return time.perf_counter() - start


def main(questions: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = make_project(Path(folder), "http://127.0.0.1:9/v1", 3, questions)
        litellm = min(timed([sys.executable, "-c", "import litellm"]) for _ in range(3))
        priced = timed([sys.executable, "-m", "discuss", "--root", str(root), "run", "--all", "--estimate"])
    per_thousand = priced / questions * 1000
    print(f"{questions} questions priced in {priced:.2f} s: {per_thousand:.1f} s per 1,000; import litellm "
          f"{litellm:.2f} s; ratio per 1,000 questions: {per_thousand / litellm:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
