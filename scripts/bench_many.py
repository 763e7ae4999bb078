"""Many questions: `run --all` over 50 questions within a per-provider concurrency limit.

All panelists share one provider, limited to `--limit` requests at once; the
fake server answers after `--latency` seconds. The ideal wall time is the
number of calls times the latency over the limit; the figure printed is that
ideal over the measured wall time (throughput over the ideal). Target: at
least 0.8. litellm spends about 50 ms of CPU on each call here, so at very
short latencies the client, not the provider, is the bottleneck.

Usage: python scripts/bench_many.py [--questions 50] [--limit 4] [--concurrency 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from benchkit import FakeLLM, make_project
from discuss.commands.batch import run_many, select
from discuss.engine.prepare import Options, prepare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--limit", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.5)
    args = parser.parse_args()
    os.environ.setdefault("BENCH_KEY", "bench")
    with FakeLLM(latency=args.latency) as fake, tempfile.TemporaryDirectory() as tmp:
        root = make_project(Path(tmp), fake.url, 3, questions=args.questions, limits=f"{{openai: {args.limit}}}")
        prepared = [(q, prepare(root, q, Options(panel="bench")))
                    for q in select(root / "content", [], None, None)]
        asyncio.run(run_many(root, prepared[:1], 1, lambda line: None))  # warm-up: imports, first connection
        calls_before = len(fake.requests)
        began = time.perf_counter()
        outcomes = asyncio.run(run_many(root, prepared[1:], args.concurrency, lambda line: None))
        wall = time.perf_counter() - began
        calls = len(fake.requests) - calls_before
        peak = fake.peak
    ideal = calls * args.latency / args.limit
    print(f"{len(outcomes)} discussions, {calls} calls, limit {args.limit} at once, concurrency {args.concurrency}, "
          f"latency {args.latency}s; peak in flight {peak}")
    print(f"wall {wall:.2f}s, ideal {ideal:.2f}s: throughput over ideal {ideal / wall:.2f} (target >= 0.8)")


if __name__ == "__main__":
    main()
