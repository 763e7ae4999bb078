"""`discuss eval` at scale: 200 items by 4 arms on a fake server, against the ideal the provider limit allows.

Every member shares one provider limited to `--limit` requests at once; the fake server (a process of its
own, as a provider is) answers after `--latency` seconds, the arithmetic right. The ideal wall time is the
number of calls times the latency over the limit (the limit binds: the eval runs enough items at once to
fill it). The figure is the measured wall time over that ideal (goal: at most 1.3).

Usage: python scripts/bench_eval.py [--items 200] [--limit 64] [--latency 0.3] [--concurrency N: default, as discuss eval chooses]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchkit import HERE, make_project
from discuss.commands.evaluating import evaluate
from discuss.store.layout import Layout


def logged(url: str) -> dict:
    with urllib.request.urlopen(url.removesuffix("/v1") + "/log") as answer:
        return json.loads(answer.read())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--limit", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=None)
    args = parser.parse_args()
    os.environ.setdefault("BENCH_KEY", "bench")
    arms = "vote,majority,single:p0,self-consistency:p0"
    server = subprocess.Popen([sys.executable, str(HERE.parent / "tests" / "fakeserver.py"), str(args.latency),
                               "CONCLUDE", "arithmetic"], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()  # type: ignore[union-attr]
        with tempfile.TemporaryDirectory() as tmp:
            root = make_project(Path(tmp), url, 3, questions=0, limits=f"{{openai: {args.limit}}}")
            layout = Layout(root)
            # warm-up (imports, connections) in a folder of its own: another seed's answers are refused in one
            evaluate(layout, "arithmetic", "bench", "single:p1", 2, seed=99, name="warm-up")
            before = len(logged(url)["requests"])
            began, cpu = time.perf_counter(), time.process_time()
            found = evaluate(layout, "arithmetic", "bench", arms, args.items, seed=1, concurrency=args.concurrency)
            wall, cpu = time.perf_counter() - began, time.process_time() - cpu
            log = logged(url)
    finally:
        server.kill()
    calls = len(log["requests"]) - before
    ideal = calls * args.latency / args.limit
    accuracy = ", ".join(f"{name} {arm.accuracy.estimate:.2f}" for name, arm in found.arms.items())
    print(f"{args.items} items x 4 arms: {calls} calls, limit {args.limit}, latency {args.latency}s, "
          f"peak in flight {log['peak']}; accuracy {accuracy}")
    print(f"wall {wall:.1f}s (CPU of discuss {cpu:.1f}s), ideal {ideal:.1f}s: wall over ideal {wall / ideal:.2f} "
          "(goal <= 1.3)")


if __name__ == "__main__":
    main()
