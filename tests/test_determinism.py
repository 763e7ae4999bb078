"""Two runs against the same server with random latency write the same files, apart from clocks."""

from __future__ import annotations

import re

import pytest

from conftest import Project, fake_panel
from fakeserver import FakeLLM
from test_cli import files_of, without_stamps

LATENCY = re.compile(r"latencyMs: \d+")


def run_once(root, protocol: str, seed: int) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    project = Project(root)
    with FakeLLM(jitter=0.25, seed=seed) as fake:
        chair = f"      chairman: {{id: chair, model: openai/chair, api_base: '{fake.url}', api_key_env: FAKE_KEY}}\n"
        project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}") + chair)
        result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", protocol, "--auto", "-q")
        assert result.exit_code == 0, result.output
        prompts = sorted((r["model"], r["task"], r["messages"][-1]["content"]) for r in fake.requests)
    files = {k: LATENCY.sub("latencyMs: <ms>", v) for k, v in without_stamps(files_of(project.folder)).items()}
    return files, prompts


@pytest.mark.parametrize("protocol", ["vote", "debate"])
def test_arrival_order_leaves_no_trace(tmp_path, protocol):
    first = run_once(tmp_path / "one", protocol, seed=1)
    second = run_once(tmp_path / "two", protocol, seed=2)  # other delays, so other arrival orders
    assert first[0] == second[0]  # the files
    assert first[1] == second[1]  # and every prompt: the conclusion's lists objections in the same order
