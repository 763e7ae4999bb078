"""An eval started over MCP reports how far it has got while it runs: the same call returns `running: true` with
items and calls done of the total, growing as it goes, never `started: false` with an estimate that shrinks."""

from __future__ import annotations

import asyncio
import re
import time

from conftest import fake_panel
from test_eval import responder


def test_an_eval_started_over_mcp_reports_its_progress_as_it_goes(project, fake):
    from mcp import Client

    from discuss.mcp_server.server import build

    fake.responder = responder
    fake.latency = 0.25
    project.write_panels(fake_panel(fake.url))
    panels = project.root / "discussions" / "panels.yaml"
    panels.write_text(re.sub(r"': 64", "': 1", panels.read_text()))  # one request at a time: items end in turn

    def call(arguments):
        async def go():
            async with Client(build(project.root)) as client:
                return await client.call_tool("eval", arguments)
        return asyncio.run(go()).structured_content

    args = {"labelled": "arithmetic", "panel": "fake", "arms": "single:alpha,single:beta", "items": 8,
            "estimate": False}
    started = call(args)
    assert started["started"] is True and started["running"] is True
    assert started["calls"]["planned"] == started["estimate"]["calls"] == 16
    seen = []
    for _ in range(300):
        found = call(args)
        if "arms" in found:
            break
        assert found["running"] is True and "started" not in found and "estimate" not in found, found
        seen.append(found)
        time.sleep(0.1)
    assert found["arms"]["single:alpha"]["correct"] == 8  # and once done, the figures
    going = [s for s in seen if s["state"] == "running" and s["items"]["total"] == 16]
    assert going, seen
    done = [s["items"]["done"] for s in going]
    calls = [s["calls"]["done"] for s in going]
    assert done == sorted(done) and calls == sorted(calls)  # it only grows
    assert any(0 < d < 16 for d in done), done  # seen part way, not only at the ends
    assert all(s["calls"]["planned"] == 16 for s in going)
    progress = (project.root / "evals" / "arithmetic" / "progress.yaml").read_text()
    assert "state: finished" in progress and "done: 16" in progress and "calls: 16" in progress
