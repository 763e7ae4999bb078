"""Streamed replies: tokens shown as they come, and the files exactly those of a plain run."""

from __future__ import annotations

import io
import re

import pytest

from conftest import Project, fake_panel
from fakeserver import FakeLLM
from test_cli import files_of, without_stamps

pytestmark = pytest.mark.usefixtures("client")  # through the light HTTP client and through litellm
LATENCY = re.compile(r"latencyMs: \d+")


def run_once(root, *flags: str, stream_usage: bool = True) -> tuple[dict[str, str], list[dict]]:
    project = Project(root)
    with FakeLLM() as fake:
        fake.stream_usage = stream_usage
        project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
        result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "2", "-q", *flags)
        assert result.exit_code == 0, result.output
        requests = fake.requests
    return {k: LATENCY.sub("latencyMs: <ms>", v) for k, v in without_stamps(files_of(project.folder)).items()}, requests


def test_a_streamed_run_saves_what_a_plain_run_saves(tmp_path):
    streamed, asked = run_once(tmp_path / "streamed", "--stream")
    plain, asked_plainly = run_once(tmp_path / "plain", "--no-stream")
    assert asked and all(r["stream"] for r in asked)  # every call streamed, answers and ballots alike
    assert not any(r["stream"] for r in asked_plainly)
    assert streamed == plain  # texts, usage and cost as the provider reported them, ballots read the same
    assert "completionTokens: 0" not in "".join(streamed.values())


def test_without_a_terminal_replies_are_not_streamed(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1").exit_code == 0
    assert fake.requests and not any(r["stream"] for r in fake.requests)


def test_the_live_board_counts_the_tokens_of_a_streamed_reply(tmp_path):
    import asyncio

    from discuss.calls import CallSpec
    from discuss.cli.progress import Progress
    from discuss.domain import Panelist
    from discuss.engine.gateway import Gateway

    out = io.StringIO()
    progress = Progress(out, live=True)
    with FakeLLM() as fake:
        fake.script("alpha", __import__("fakeserver").Action(text=" ".join(f"w{i}" for i in range(20))))
        member = Panelist("alpha", "openai/alpha", "Alpha", api_base=fake.url, api_key_env="FAKE_KEY")
        gateway = Gateway(timeout=5, on_event=progress.event, on_tokens=progress.streamed)
        result = asyncio.run(gateway.call(CallSpec("alpha", member, [{"role": "user", "content": "Hi"}], "respond")))
    assert result.text == " ".join(f"w{i}" for i in range(20))
    assert result.usage.completion_tokens == len(result.text) // 4  # the server's own count, not a guess
    shown = out.getvalue()
    assert "alpha [respond] writing, 1 tokens" in shown and "writing, 16 tokens" in shown
    assert "ok alpha [respond]" in shown  # the line ends as a plain run's does


def test_a_stream_without_usage_is_still_counted(tmp_path, monkeypatch):
    from discuss.providers.litellm import load

    litellm = load()
    build = litellm.stream_chunk_builder

    def without_usage(chunks, messages=None, **options):  # as when neither the provider nor litellm counted
        response = build(chunks, messages=messages)
        response.usage = litellm.Usage(prompt_tokens=0, completion_tokens=0, total_tokens=0)
        return response

    monkeypatch.setattr(litellm, "stream_chunk_builder", without_usage)
    files, asked = run_once(tmp_path / "p", "--stream", stream_usage=False)
    assert asked and all(r["stream"] for r in asked)
    answer = files["round-1/alpha.md"]
    completion = int(re.search(r"completionTokens: (\d+)", answer).group(1))
    prompt = int(re.search(r"promptTokens: (\d+)", answer).group(1))
    assert completion > 5 and prompt > 50  # counted here, never recorded as a free call
