"""How much a council's whole process gains by leaving once its files are written.

`python -m discuss` leaves with os._exit after the last file and the
output are flushed; `python -m discuss.cli.app` is the same command ending the
usual way, through the interpreter's teardown. Both run a one-shot council
(3 members, one of them in the chair: 4 calls) against the fake server at 0.3 s latency,
interleaved, 5 runs each; the figure is the ratio of the medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchkit import FakeLLM, make_project

SRC = str(Path(__file__).resolve().parent.parent / "src")


def once(module: str, root: Path, n: int) -> float:
    question = root / "content" / "questions" / f"q{n:03d}.md"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", module, "--root", str(root), "run", str(question), "--panel", "bench",
                           "--protocol", "council", "-q"], env={**os.environ, "PYTHONPATH": SRC, "BENCH_KEY": "k"},
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeLLM(latency=args.latency) as fake:
        root = make_project(Path(tmp), fake.url, 3, questions=2 * args.runs)
        times: dict[str, list[float]] = {"discuss": [], "discuss.cli.app": []}
        for n in range(args.runs):
            for k, module in enumerate(times):
                times[module].append(once(module, root, 2 * n + k))
    fast, usual = statistics.median(times["discuss"]), statistics.median(times["discuss.cli.app"])
    print(f"council of 3 (one in the chair), {args.latency} s latency, median of {args.runs} runs each")
    print(f"  leaving at once: {fast:.2f} s; through the interpreter's teardown: {usual:.2f} s; ratio {fast / usual:.3f}")


if __name__ == "__main__":
    main()
