"""`discuss eval` at scale: 200 items by 4 arms on a fake server, against the ideal the provider limit allows.

Every member shares one provider limited to `--limit` requests at once; the fake server answers after
`--latency` seconds, the arithmetic right. The ideal wall time is the number of calls times the latency
over the limit (the limit binds: the eval runs enough items at once to fill it). The figure is the
measured wall time over that ideal (goal: at most 1.3).

Usage: python scripts/bench_eval.py [--items 200] [--limit 64] [--latency 0.3] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import time
from pathlib import Path

from benchkit import FakeLLM, make_project
from discuss.commands.evaluating import evaluate
from discuss.store.layout import Layout

ITEM = re.compile(r"What is the result of (\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+)\?")


def right(model: str, messages: list[dict]) -> str | None:
    """Answers an item's question with its value; anything else (ballots, conclusions) the fake's way."""
    prompt = messages[-1]["content"] if isinstance(messages[-1]["content"], str) else ""
    found = ITEM.search(prompt)
    if not found or '"votes"' in prompt or "conclusion" in prompt.lower():
        return None
    a, b, c, d, e, f = map(int, found.groups())
    return f"Worked through it.\n\nAnswer: {a + b * c + d - e * f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--limit", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    os.environ.setdefault("BENCH_KEY", "bench")
    arms = "vote,majority,single:p0,self-consistency:p0"
    with FakeLLM(latency=args.latency) as fake, tempfile.TemporaryDirectory() as tmp:
        fake.responder = right
        root = make_project(Path(tmp), fake.url, 3, questions=0, limits=f"{{openai: {args.limit}}}")
        layout = Layout(root)
        evaluate(layout, "arithmetic", "bench", "single:p1", 2, seed=99)  # warm-up: imports, first connection
        before = len(fake.requests)
        began = time.perf_counter()
        found = evaluate(layout, "arithmetic", "bench", arms, args.items, seed=1, concurrency=args.concurrency)
        wall = time.perf_counter() - began
        calls = len(fake.requests) - before
        peak = fake.peak
    ideal = calls * args.latency / args.limit
    accuracy = ", ".join(f"{name} {arm['accuracy']['estimate']:.2f}" for name, arm in found["arms"].items())
    print(f"{args.items} items x 4 arms: {calls} calls, limit {args.limit}, latency {args.latency}s, "
          f"peak in flight {peak}; accuracy {accuracy}")
    print(f"wall {wall:.1f}s, ideal {ideal:.1f}s: wall over ideal {wall / ideal:.2f} (goal <= 1.3)")


if __name__ == "__main__":
    main()
