"""A model server on this machine is used as wide as it says it goes: llama.cpp's slots at /props, vLLM's
batching from its model listing; one that says nothing takes one request at a time, and the run says so."""

from __future__ import annotations

import pytest

from conftest import fake_panel


def run_unnamed(project, fake, *flags: str):
    """The panel on the fake server, which `limits:` does not name (as a user's file would not)."""
    (project.root / "discussions" / "panels.yaml").write_text(
        "panels:\n" + fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    return project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "--no-stream", *flags)


@pytest.mark.parametrize("says", ["slots", "vllm"])
@pytest.mark.parametrize("through", ["plain", "httpx"])
def test_a_server_that_says_how_wide_it_is_gets_that_many_requests_at_once(project, fake, says, through, monkeypatch):
    if through == "httpx":
        monkeypatch.setenv("DISCUSS_CLIENT", "httpx")
    fake.latency = 0.3
    if says == "slots":
        fake.props = {"total_slots": 4, "default_generation_settings": {}}
    else:
        fake.models, fake.owned_by = ["alpha", "beta", "gamma"], "vllm"
    result = run_unnamed(project, fake)
    assert result.exit_code == 0, result.output
    assert fake.peak == 3  # the three answers at once
    assert "one request at a time" not in result.stderr


def test_a_server_that_says_nothing_takes_one_at_a_time_and_the_run_says_how_to_widen_it(project, fake):
    fake.latency = 0.1
    result = run_unnamed(project, fake)
    assert result.exit_code == 0, result.output
    assert fake.peak == 1 and fake.gets == ["/props", "/v1/models"]  # asked once, before the first request
    assert result.stderr.count("takes one request at a time") == 1  # said once, not per call
    assert "--parallel N" in result.stderr and "limits:" in result.stderr


def test_a_server_named_under_limits_is_not_asked(project, fake):
    fake.props = {"total_slots": 8}
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))  # names it: 64
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1").exit_code == 0
    assert fake.gets == []


def test_asking_a_local_server_its_width_loads_no_httpx(project, fake):
    """A run on a model server of this machine asks it over discuss's own connections, as it calls it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    fake.props = {"total_slots": 4}
    (project.root / "discussions" / "panels.yaml").write_text(
        "panels:\n" + fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    src = str(Path(__file__).resolve().parent.parent / "src")
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "discuss", "--root", str(project.root), "run",
                           "swarm-power", "--panel", "fake", "--rounds", "1", "-q"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": src}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert fake.gets == ["/props"] and "httpx" not in imported
