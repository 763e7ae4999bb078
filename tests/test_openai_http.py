"""The light path to OpenAI-compatible servers: who takes it, that it never loads litellm, what it reports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import fake_panel
from discuss.domain import Panelist
from discuss.providers import route
from discuss.providers.http import endpoint_url
from discuss.providers.litellm import LITELLM
from discuss.providers.openai_http import OPENAI_HTTP
from discuss.store import discussions as store
from fakeserver import Action

SRC = str(Path(__file__).resolve().parent.parent / "src")
URL = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize("model,api_base,light", [
    ("openai/llama3.1:8b", URL, True),  # ollama's names, llama.cpp's aliases: unknown to litellm
    ("openai/Qwen/Qwen2.5-7B-Instruct", URL, True),
    ("openai/gpt-4o-mini", URL, True),  # one of OpenAI's chat models, behind a proxy
    ("openai/gpt-4o-mini", None, True),  # at OpenAI itself
    ("gpt-4o", None, True),  # a bare name is OpenAI's, as litellm reads it
    ("openai/o3-custom", URL, False),  # shaped like a reasoning model: litellm changes its parameters
    ("o3-mini", None, False),
    ("openai/text-embedding-3-small", None, False),  # not a chat model
    ("openai/llama3.1:8b", None, False),  # no server of its own
    ("anthropic/claude-sonnet-4-5", None, False),
])
def test_which_members_take_the_light_path(model, api_base, light):
    assert route(Panelist("m", model, "M", api_base=api_base)) is (OPENAI_HTTP if light else LITELLM)


def test_the_light_path_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("DISCUSS_CLIENT", "litellm")
    assert route(Panelist("m", "openai/llama3.1:8b", "M", api_base=URL)) is LITELLM


def test_the_servers_address_keeps_its_query():
    assert endpoint_url("http://h:1/v1/?key=x") == "http://h:1/v1/chat/completions?key=x"
    assert endpoint_url("http://h:1/v1") == "http://h:1/v1/chat/completions"


@pytest.mark.parametrize("protocol", ["vote", "council"])
def test_a_run_on_a_local_server_never_imports_litellm(project, fake, protocol):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxRounds: 2}"))
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "discuss", "--root", str(project.root), "run",
                           "swarm-power", "--panel", "fake", "--protocol", protocol, "-q"], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "httpx" in imported and "litellm" not in imported and "openai" not in imported
    # The tokenizer (40 MB) is loaded for a protocol that cuts texts by tokens, and only for one.
    assert ("tiktoken" in imported) == (protocol == "vote")
    assert store.load(project.folder).conclusion is not None  # and the discussion went to its end


def test_a_members_connection_is_kept_for_its_next_calls(project, fake, monkeypatch):
    import discuss.providers.openai_http as light

    monkeypatch.setattr(light, "KEEPALIVE_SECONDS", 60.0)  # a busy machine's pause between calls closes no connection
    fake.termination = "CONTINUE"
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxRounds: 3, convergenceRounds: 99}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "3").exit_code == 0
    for model in ("alpha", "beta", "gamma"):
        peers = [r["peer"] for r in fake.requests if r["model"] == model]
        assert len(peers) >= 6 and len(set(peers)) == 1, peers  # 3 answers, 3 ballots (a conclusion): one connection


def test_a_servers_refusal_is_named_with_what_it_said(project, fake):
    fake.script("beta", Action(status=404, text="model 'beta' not found, try pulling it first"))
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1").exit_code == 0
    (failure,) = store.load(project.folder).rounds[0].failures
    assert failure.error.startswith("NotFoundError: the server answered 404: model 'beta' not found, try pulling it first")
    assert failure.attempts == 1  # final: not asked again


@pytest.mark.parametrize("body", [b'data: 5\n\n', b'data: {"choices": "all"}\n\n',
                                  b'data: {"choices": [{"delta": {"content": ["a"]}}]}\n\n',
                                  b'data: {"choices": [{"delta": "x", "finish_reason": "stop"}]}\n\n'])
def test_a_hostile_stream_is_a_failed_attempt_in_words(project, fake, body):
    fake.script("alpha", *[Action(raw=body)] * 2)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, attempts: 2}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "--stream")
    assert result.exit_code == 0, result.output
    (failure,) = store.load(project.folder).rounds[0].failures
    assert failure.model_id == "alpha" and failure.attempts == 2  # asked again, then given up: never a crash
    assert "could not be read" in failure.error or "empty stream" in failure.error, failure.error


def test_a_reply_whose_usage_is_not_counts_is_counted_here(project, fake):
    body = ('{"choices": [{"message": {"content": "Run the bus at 48 V."}, "finish_reason": "stop"}],'
            ' "usage": {"prompt_tokens": "9e99", "completion_tokens": -5}}')
    fake.script("alpha", Action(raw=body.encode()))
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "--no-stream").exit_code == 0
    reply = store.load(project.folder).rounds[0].replies["alpha"]
    assert reply.text == "Run the bus at 48 V."
    assert reply.usage.prompt_tokens > 50 and 0 < reply.usage.completion_tokens <= 20  # never a free call


@pytest.mark.parametrize("stream", ["--no-stream", "--stream"])
def test_a_reply_past_the_size_limit_is_not_read_on(project, fake, monkeypatch, stream):
    """A server that sends without end (here one line that never ends) costs neither memory nor retries."""
    import discuss.providers.http as light_http

    monkeypatch.setattr(light_http, "MAX_REPLY_BYTES", 20_000)
    fake.script("alpha", *[Action(raw=b'data: {"choices": [' + b"0," * 50_000)] * 3)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, attempts: 3}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", stream)
    assert result.exit_code == 0, result.output
    (failure,) = [f for f in store.load(project.folder).rounds[0].failures if f.phase == "respond"]
    assert failure.model_id == "alpha" and failure.attempts == 1, failure  # refused at once, not asked again
    assert "OversizedReply: the provider's reply passed" in failure.error
    assert len(store.load(project.folder).rounds[0].replies) == 2  # the others answered as usual
