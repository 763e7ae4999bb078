"""How much a phase costs beyond its slowest call.

Runs one phase of three panelists through the gateway and litellm against
the fake OpenAI-compatible server (tests/fakeserver.py) answering after a
fixed latency, and prints wall time over the slowest call's latency.
Target: below 1.2. Usage: python scripts/bench_phase.py [--latency 0.5] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from discuss.calls import CallSpec
from discuss.domain import Panelist  # noqa: E402
from discuss.gateway import Gateway  # noqa: E402
from fakeserver import FakeLLM  # noqa: E402


def specs(url: str, n: int) -> list[CallSpec]:
    return [
        CallSpec(key=f"p{i}", panelist=Panelist(f"p{i}", f"openai/p{i}", f"P{i}", api_base=url),
                 messages=[{"role": "user", "content": "## Your task (round 1)\nAnswer."}], task="respond")
        for i in range(n)
    ]


async def one_phase(gateway: Gateway, url: str, n: int) -> tuple[float, float]:
    start = time.perf_counter()
    results = await gateway.run_phase(specs(url, n))
    wall = time.perf_counter() - start
    assert all(r.ok for r in results), [r.error for r in results]
    return wall, max(r.latency_ms for r in results) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--panelists", type=int, default=3)
    args = parser.parse_args()
    with FakeLLM(latency=args.latency) as fake:
        gateway = Gateway(timeout=30, attempts=1)

        async def measure():
            await one_phase(gateway, fake.url, 1)  # warm-up: litellm's import and first connection
            return [await one_phase(gateway, fake.url, args.panelists) for _ in range(args.runs)]

        runs = asyncio.run(measure())
    ratios = [wall / slowest for wall, slowest in runs]
    print(f"phase of {args.panelists} panelists at {args.latency}s latency, {args.runs} runs")
    print(f"wall / slowest call: median {statistics.median(ratios):.3f}, worst {max(ratios):.3f} (target < 1.2)")
    print(f"wall / server latency: median {statistics.median(w for w, _ in runs) / args.latency:.3f}")


if __name__ == "__main__":
    main()
