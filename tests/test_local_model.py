"""Every protocol against a real small model: SmolLM2-135M-Instruct served by llama-cpp-python.

Marked `local_model`, left out of the default run: start the server with
`bash scripts/local_model.sh serve` (it installs it the first time), then
`.venv/bin/python -m pytest -m local_model`. Each protocol must end with
exit 0, concluded or honestly closed: no winner of a round nobody validly
voted in, no conclusion that copies the prompt's examples. Figures per
protocol (calls, refused replies, re-asks, wall time) go to
`local-model-figures.json` in pytest's temporary folder for BENCHMARKS.md.
"""

from __future__ import annotations

import json
import os
import time
import urllib.request

import pytest

from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from discuss.text.placeholders import is_echo

pytestmark = pytest.mark.local_model
URL = os.environ.get("DISCUSS_LOCAL_URL", "http://127.0.0.1:8765/v1")
PROTOCOLS = ["vote", "council", "debate", "critique", "adversarial", "tournament", "deliberate", "decompose"]
FIGURES: dict[str, dict] = {}


@pytest.fixture(scope="module")
def server() -> str:
    try:
        with urllib.request.urlopen(URL + "/models", timeout=30):
            pass
    except OSError:
        pytest.skip(f"no local model server at {URL}: start one with `bash scripts/local_model.sh serve`")
    return URL


def member(pid: str, persona: str, seed: int, form: str) -> str:
    return (f"        - {{id: {pid}, model: openai/smollm2, name: {pid}, persona: '{persona}', api_base: '{URL}', "
            f"responseFormat: {form}, options: {{temperature: 0.7, seed: {seed}, max_tokens: 400}}}}\n")


def panel(form: str) -> str:
    members = member("careful", "Careful and precise.", 1, form) + member("bold", "Bold and practical.", 2, form) \
        + member("plain", "Plain and brief.", 3, form)
    return ("panels:\n  local:\n    members:\n" + members
            + "    settings: {maxRounds: 2, maxResponseWords: 120, timeoutSeconds: 900, retryBaseDelay: 1.0}\n")


@pytest.mark.parametrize("stream", ["--no-stream", "--stream"])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_protocol_ends_honestly_with_a_small_model(project, server, protocol, stream, tmp_path_factory):
    (project.root / "discussions" / "panels.yaml").write_text(panel("json_object"))
    started = time.monotonic()
    result = project.cli("run", "swarm-power", "--panel", "local", "--protocol", protocol, "--auto", "--yes", stream)
    wall = time.monotonic() - started
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.status in ("concluded", "closed"), d.status
    for r in d.rounds:
        if ballot_box(r).winner_id is not None and d.protocol == "vote":
            assert ballot_box(r).ballots, f"round {r.number} has a winner and no valid ballot"
    if d.conclusion is not None:
        assert not is_echo(d.conclusion.summary)
        assert not any(is_echo(x) for x in d.conclusion.key_points)
    FIGURES[f"{protocol} {stream}"] = {
        "status": d.status, "reason": d.termination_reason, "calls": d.usage.calls,
        "failures": sum(len(r.failures) for r in d.rounds), "abstentions": sum(len(ballot_box(r).abstentions) for r in d.rounds),
        "reasks": sum(b.attempts - 1 for r in d.rounds for b in ballot_box(r).ballots),
        "wallSeconds": round(wall, 1)}
    out = tmp_path_factory.getbasetemp() / "local-model-figures.json"
    out.write_text(json.dumps(FIGURES, indent=1))
