"""The light path to OpenAI-compatible servers: who takes it, that it never loads litellm, what it reports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import fake_panel
from discuss.domain import Panelist
from discuss.providers import route
from discuss.providers.litellm import LITELLM
from discuss.providers.openai_http import OPENAI_HTTP
from discuss.providers.policy import endpoint_url
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
    assert "litellm" not in imported and "openai" not in imported
    assert "httpx" not in imported and "h11" in imported  # a plain http server: asyncio's streams and h11
    assert "importlib.metadata" not in imported  # pydantic's plugins are off: their entry points are not read
    # Neither the eval's figures nor the machinery for packages that are no folder: a run never uses them.
    assert not imported & {"discuss.archive.evaluation", "discuss.store.evalsets", "importlib.resources", "zipfile"}
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
    import discuss.providers.policy as light_http

    monkeypatch.setattr(light_http, "MAX_REPLY_BYTES", 20_000)
    fake.script("alpha", *[Action(raw=b'data: {"choices": [' + b"0," * 50_000)] * 3)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, attempts: 3}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", stream)
    assert result.exit_code == 0, result.output
    (failure,) = [f for f in store.load(project.folder).rounds[0].failures if f.phase == "respond"]
    assert failure.model_id == "alpha" and failure.attempts == 1, failure  # refused at once, not asked again
    assert "OversizedReply: the provider's reply passed" in failure.error
    assert len(store.load(project.folder).rounds[0].replies) == 2  # the others answered as usual


@pytest.fixture
def fresh_table(monkeypatch, tmp_path):
    """The price table's caches emptied before and after, and a cache folder of the test's own, so a test sees
    its own reading of the table."""
    from discuss.providers import openai_names, prices

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    caches = (prices.price_table, prices.listed, openai_names._openai_chat)

    def clear():
        for cached in caches:  # as they were before a test replaced any
            cached.cache_clear()

    clear()
    yield prices
    clear()


def test_the_names_kept_are_the_tables_and_are_read_back_without_it(fresh_table, monkeypatch):
    names = fresh_table.listed()
    assert len(names) > 1000 and names == set(fresh_table.price_table())
    assert "openai/llama3.1:8b" not in names and "llama3.1:8b" not in names
    fresh_table.listed.cache_clear()

    def parsed():
        raise AssertionError("the whole table was parsed")

    monkeypatch.setattr(fresh_table, "price_table", parsed)
    assert fresh_table.listed() == names  # the second process reads the names it kept


def test_a_model_of_ones_own_server_is_routed_and_priced_without_parsing_the_table(fresh_table, monkeypatch):
    fresh_table.listed()  # as an earlier run left them
    fresh_table.listed.cache_clear()

    def parsed():
        raise AssertionError("the whole table was parsed")

    monkeypatch.setattr(fresh_table, "price_table", parsed)
    p = Panelist("m", "openai/llama3.1:8b", "M", api_base=URL)
    assert route(p) is OPENAI_HTTP and OPENAI_HTTP.price(p, 100, 100) is None


def test_the_kept_names_follow_the_table_and_a_spoilt_file_is_made_again(fresh_table, monkeypatch, tmp_path):
    table = tmp_path / "table.json"
    monkeypatch.setattr(fresh_table, "_table_file", lambda: str(table))

    def listed(text: bytes) -> frozenset[str]:
        table.write_bytes(text)
        for cached in (fresh_table.price_table, fresh_table.listed):
            cached.cache_clear()
        return fresh_table.listed()

    rates = b'{"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}'
    assert listed(b'{"acme\\/model-x": ' + rates + b', "sample_spec": "not a model"}') == {"acme/model-x"}
    assert fresh_table.table_price("acme/model-x", 1000, 1000) == pytest.approx(0.003)
    assert listed(b'{"acme/model-y": ' + rates + b'}') == {"acme/model-y"}  # a new table: its names
    found = sorted((tmp_path / "cache" / "discuss" / "prices").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    assert len(found) == 2  # one a table: environments with litellms of their own share the folder
    kept = found[-1]
    for spoilt in (b"{not json", b'{"a": 1}', b"[1, 2]"):
        kept.write_bytes(spoilt)
        fresh_table.listed.cache_clear()
        assert fresh_table.listed() == {"acme/model-y"}


def test_a_plain_http_server_is_reached_without_reading_the_systems_certificates(project, fake, monkeypatch):
    from discuss.providers import http

    def certificates():
        raise AssertionError("the system's certificates were read for a plain http server")

    monkeypatch.setattr(http, "tls", certificates)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxRounds: 1}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "council").exit_code == 0
    assert store.load(project.folder).conclusion is not None


def test_an_https_server_is_reached_with_the_systems_certificates(monkeypatch):
    import asyncio
    import ssl

    from discuss.providers import http

    made: list[ssl.SSLContext] = []
    monkeypatch.setattr(http, "tls", lambda: made.append(ssl.create_default_context()) or made[-1])

    async def transports():
        guarded = http.GuardedAsyncTransport()
        secure, plain = guarded._inner("https"), guarded._inner("http")
        assert guarded._inner("https") is secure and secure is not plain
        await guarded.aclose()

    asyncio.run(transports())
    assert len(made) == 1 and made[0].verify_mode == ssl.CERT_REQUIRED


def test_pydantics_plugin_loader_stands_aside_only_while_plugins_are_off(monkeypatch):
    from discuss.cli.entry import _NoPlugins

    loader = _NoPlugins("pydantic.plugin._loader")
    monkeypatch.setitem(sys.modules, "pydantic.plugin._loader", loader)
    for off in ("__all__", "1", "true"):
        monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", off)
        assert tuple(loader.get_plugins()) == ()
    with pytest.raises(AttributeError):
        loader.__path__  # noqa: B018 - a module, not a package, to the import system
    assert loader.PYDANTIC_ENTRY_POINT_GROUP == "pydantic"  # any other name: the real module's
    real = sys.modules["pydantic.plugin._loader"]
    assert not isinstance(real, _NoPlugins) and real.get_plugins is not loader.get_plugins
    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "only-mine")  # plugins on: the real loader reads them
    monkeypatch.setattr(_NoPlugins, "_real", staticmethod(lambda: SimpleNamespace(get_plugins=lambda: ("mine",))))
    assert loader.get_plugins() == ("mine",)
