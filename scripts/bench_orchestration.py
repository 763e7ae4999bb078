"""Orchestration overhead and the gain over one call at a time, for vote discussions.

For panels of 3 and 10 against the fake server at a fixed latency, runs a
5-round vote discussion (ballots never conclude) and prints:
- wall time over the critical path (the sum over phases of each phase's
  slowest call): target at most 1.10;
- the speed-up over a sequential run (one call at a time, as the reference
  implementation does): expected near the panel size.
Usage: python scripts/bench_orchestration.py [--latency 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from benchkit import FakeLLM, make_project
from discuss.gateway import Gateway
from discuss.runner import Plan, Runner, prompts_for, start
from discuss.store.panels import pick_panel
from discuss.store.questions import read_question


class Measured(Gateway):
    """Records each phase's slowest call; runs calls at once or one by one."""

    def __init__(self, sequential: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.sequential, self.slowest = sequential, []

    async def run_phase(self, specs, on_result=None):
        if not self.sequential:
            results = await super().run_phase(specs, on_result)
        else:
            results = []
            for spec in specs:
                results.append(await self.call(spec))
                if on_result:
                    on_result(results[-1])
        self.slowest.append(max(r.latency_ms for r in results) / 1000)
        return results


def discussion(url: str, panelists: int, sequential: bool) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = make_project(Path(tmp), url, panelists)
        q = read_question(root / "content" / "questions" / "q000.md")
        panel, settings = pick_panel(root / "discussions" / "panels.yaml", "bench")
        gateway = Measured(sequential=sequential, attempts=1, timeout=60)
        runner = Runner(gateway, prompts_for(root))
        began = time.perf_counter()
        asyncio.run(runner.run(q, start(q, panel, settings, "t"), Plan(auto=True)))
        return time.perf_counter() - began, sum(gateway.slowest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    os.environ.setdefault("BENCH_KEY", "bench")
    with FakeLLM(latency=args.latency, termination="CONTINUE") as fake:
        discussion(fake.url, 1, False)  # warm-up: litellm's import and first connection
        for n in (3, 10):
            wall, critical = discussion(fake.url, n, False)
            seq_wall, _ = discussion(fake.url, n, True)
            print(f"{n:2d} panelists, 5 rounds: wall {wall:.2f}s, critical path {critical:.2f}s, "
                  f"ratio {wall / critical:.3f} (target <= 1.10); sequential {seq_wall:.2f}s, "
                  f"speed-up {seq_wall / wall:.1f}x")


if __name__ == "__main__":
    main()
