"""Does a run wait only for the models? Whole `discuss run` processes against a server in its own process.

The fake server (tests/fakeserver.py) runs in a separate process with a
fixed latency and logs every request's start and end on its own clock. For
panels of 3 and 10, a 5-round vote discussion (ballots never conclude, so
every round is played, then the conclusion) is run as a user runs it:
`python -m discuss run q000 --auto -q`, a fresh process each time. Phases
are read from the server's log (a phase starts when a request starts after
every earlier one has ended); the provider's latency sum is phases x the
fixed latency. Printed, min / median / max over runs:
- server span (first request's start to last response's end) over the
  latency sum: what the client adds between and around the requests; target
  <= 1.05 for 3 panelists, <= 1.10 for 10 at 0.3 s;
- whole process over the latency sum: the above plus start-up and the
  files written after the last reply;
- the idle gap between phases, and start-up (process start to first request).
Each configuration runs through the light HTTP client and through litellm
(`DISCUSS_CLIENT`), runs interleaved.
Usage: python scripts/bench_orchestration.py [--latency 0.3] [--runs 5] [--clients http litellm]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchkit import HERE, make_project


def phases(log: list[dict]) -> list[tuple[float, float]]:
    """(start, end) of each phase: requests that overlap, or start before the last one ended."""
    found: list[tuple[float, float]] = []
    for r in sorted(log, key=lambda r: r["start"]):
        if found and r["start"] < found[-1][1]:
            found[-1] = (found[-1][0], max(found[-1][1], r["end"]))
        else:
            found.append((r["start"], r["end"]))
    return found


def one_run(url: str, panelists: int, latency: float, client: str) -> dict[str, float]:
    with urllib.request.urlopen(url.replace("/v1", "/log")) as reply:
        before = len(json.load(reply)["requests"])
    with tempfile.TemporaryDirectory() as tmp:
        root = make_project(Path(tmp), url, panelists, settings="{retryBaseDelay: 0.01, maxRounds: 5, "
                                                                   "convergenceRounds: 99, timeoutSeconds: 60}")
        env = {**os.environ, "BENCH_KEY": "bench", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "DISCUSS_CLIENT": client}
        began = time.time()
        subprocess.run([sys.executable, "-m", "discuss", "--root", str(root), "run", "q000", "--auto", "-q",
                        "--panel", "bench", "--yes"],
                       env=env, check=True, capture_output=True)
        whole = time.time() - began
    with urllib.request.urlopen(url.replace("/v1", "/log")) as reply:
        log = json.load(reply)
    spans = phases(log["requests"][before:])
    ideal = len(spans) * latency
    span = spans[-1][1] - spans[0][0]
    gaps = [b[0] - a[1] for a, b in zip(spans, spans[1:])]
    return {"phases": len(spans), "span": span / ideal, "whole": whole / ideal,
            "gap_ms": 1000 * statistics.mean(gaps), "max_gap_ms": 1000 * max(gaps),
            "outside_s": whole - span}


def min_median_max(runs: list[dict[str, float]], key: str, form: str = "{:.3f}") -> str:
    values = sorted(r[key] for r in runs)
    return " / ".join(form.format(v) for v in (values[0], statistics.median(values), values[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--clients", nargs="+", default=["http", "litellm"],
                        help="how members on an OpenAI-compatible server are reached (DISCUSS_CLIENT)")
    args = parser.parse_args()
    server = subprocess.Popen([sys.executable, str(HERE.parent / "tests" / "fakeserver.py"), str(args.latency),
                               "CONTINUE"], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        for n in (3, 10):
            by_client: dict[str, list[dict[str, float]]] = {c: [] for c in args.clients}
            for _ in range(args.runs):
                for client in args.clients:  # interleaved, so that the machine's load falls on each alike
                    by_client[client].append(one_run(url, n, args.latency, client))
            for client, runs in by_client.items():
                report(n, client, runs, args)
    finally:
        server.terminate()


def report(n: int, client: str, runs: list[dict[str, float]], args: argparse.Namespace) -> None:
    spread = functools.partial(min_median_max, runs)

    print(f"{n:2d} panelists through {client}, {runs[0]['phases']:.0f} phases at {args.latency}s, "
          f"{args.runs} runs (min / median / max):")
    print(f"  server span over the latency sum   {spread('span')}")
    print(f"  whole process over the latency sum {spread('whole')}")
    print(f"  idle between phases, mean (ms)     {spread('gap_ms', '{:.0f}')}; "
          f"longest {spread('max_gap_ms', '{:.0f}')}")
    print(f"  outside the span (start-up, last writes) (s) {spread('outside_s', '{:.2f}')}")


if __name__ == "__main__":
    main()
