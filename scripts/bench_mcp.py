"""An agent's status over a large archive, as a ratio in one run (the machine is shared):

the MCP server's `status` tool (a page of rows and the total, asked through the official client of a server
already serving) over `discuss status --json` as a process (goal: at most 2), both after a first status
kept what it read.

Usage: python scripts/bench_mcp.py [--count 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_archive import project

SRC = str(Path(__file__).resolve().parent.parent / "src")


def cli_status(root: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "discuss", "--root", str(root), "status", "--json"],
                   env={**os.environ, "PYTHONPATH": SRC}, capture_output=True, check=True)
    return time.perf_counter() - start


def mcp_status(root: Path, calls: int) -> list[float]:
    """Seconds each of `calls` status calls took, the server started before the first."""
    from mcp import Client

    from discuss.mcp_server.server import build

    async def go() -> list[float]:
        took = []
        async with Client(build(root)) as client:
            for _ in range(calls):
                start = time.perf_counter()
                found = await client.call_tool("status", {})
                took.append(time.perf_counter() - start)
                assert not found.is_error and found.structured_content["total"] > 0, found
        return took

    return asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp), args.count)
        cli_status(root)  # the first: it keeps what it read
        cli = min(cli_status(root) for _ in range(3))
        first, *rest = mcp_status(root, 4)
    mcp = min(rest)
    print(f"over {args.count} discussions: MCP status {mcp:.3f}s (its first call {first:.3f}s), "
          f"CLI status --json {cli:.3f}s: {mcp / cli:.2f} (goal <= 2), first call {first / cli:.2f}")


if __name__ == "__main__":
    main()
