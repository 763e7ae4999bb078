"""One HTTP policy for both clients and doctor: no redirect followed, a whole-request deadline, a size limit
on the wire and unpacked; and one usage sanitiser, so a lying server cannot make calls free."""

from __future__ import annotations

import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import fake_panel
from discuss.store import discussions as store
from fakeserver import Action, FakeLLM

pytestmark = pytest.mark.usefixtures("client")  # through the light HTTP client and through litellm


def run(project, fake, *flags: str, settings="{retryBaseDelay: 0.0, attempts: 2, timeoutSeconds: 5}"):
    project.write_panels(fake_panel(fake.url, settings=settings))
    return project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "--no-stream", *flags)


def failure_of(project, member="alpha"):
    r = store.load(project.folder).rounds[0]
    assert member not in r.replies
    return next(f for f in r.failures if f.model_id == member)


def test_a_redirect_is_never_followed_so_the_prompt_and_key_stay_with_the_named_server(project, fake, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test-9fQ2xW7kLp3Zt8Vn")
    with FakeLLM() as elsewhere:
        fake.script("alpha", *[Action(status=307, headers={"location": elsewhere.url + "/chat/completions"})] * 2)
        result = run(project, fake)
        assert result.exit_code == 0, result.output
        assert elsewhere.requests == []  # neither the prompt nor the key went there
    failure = failure_of(project)
    assert "a redirect to" in failure.error and "never followed" in failure.error
    assert failure.attempts == 1  # asking again would meet the same redirect


def test_a_compressed_reply_is_refused_once_it_unpacks_past_the_limit(project, fake, monkeypatch):
    import discuss.providers.policy as policy

    monkeypatch.setattr(policy, "MAX_REPLY_BYTES", 200_000)
    bomb = gzip.compress(b'{"choices": [{"message": {"content": "' + b"a" * 5_000_000 + b'"}}]}')
    assert len(bomb) < 200_000  # small on the wire
    fake.script("alpha", *[Action(raw=bomb, headers={"content-encoding": "gzip"})] * 2)
    result = run(project, fake)
    assert result.exit_code == 0, result.output
    assert "passed 200,000 bytes" in failure_of(project).error


def test_a_compressed_reply_within_the_limit_is_read(project, fake):
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "alpha",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Packed, then unpacked."},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}}
    fake.script("alpha", Action(raw=gzip.compress(json.dumps(body).encode()), headers={"content-encoding": "gzip"}))
    assert run(project, fake).exit_code == 0
    assert store.load(project.folder).rounds[0].replies["alpha"].text == "Packed, then unpacked."


@pytest.mark.parametrize("usage", [
    {"prompt_tokens": -1_200_000, "completion_tokens": -5, "total_tokens": -1_200_005},
    {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    {"prompt_tokens": 10**10, "completion_tokens": 10**10, "total_tokens": 2 * 10**10},
    {"prompt_tokens": "many", "completion_tokens": None},
], ids=["negative", "zero", "absurd", "not-numbers"])
def test_counts_that_cannot_be_true_are_counted_here_and_marked(project, fake, usage, client):
    fake.script("alpha", Action(text="A reply of several words that cost something to write.", usage=usage))
    assert run(project, fake).exit_code == 0
    reply = store.load(project.folder).rounds[0].replies["alpha"]
    honest = store.load(project.folder).rounds[0].replies["beta"].usage
    if client == "litellm" and isinstance(usage["prompt_tokens"], str):
        # litellm cannot build such a reply at all: an unreadable reply, counted, and asked again
        assert reply.usage.calls == 2 and len(fake.requests_for("alpha", "respond")) == 2
        return
    assert reply.usage.calls == 1 and reply.usage.recounted == 1
    assert 0 < reply.usage.prompt_tokens <= 4 * honest.prompt_tokens and reply.usage.completion_tokens > 0
    assert "recounted: 1" in (project.folder / "round-1" / "alpha.md").read_text()
    assert "recounted" not in (project.folder / "round-1" / "beta.md").read_text()


def test_a_lying_server_is_stopped_by_a_token_budget_where_an_honest_one_is(project, fake):
    """The budget counts what was sent and received, whatever the server says it cost."""
    honest = FakeLLM().start()
    try:
        def calls_until_stopped(server, usage):
            for member in ("alpha", "beta", "gamma"):
                server.always[member] = Action(text="An answer " * 40, usage=usage)
            project.write_panels(fake_panel(server.url, settings="{retryBaseDelay: 0.0}"))
            project.cli("run", "swarm-power", "--panel", "fake", "--auto", "--max-tokens", "3000")
            n = len(server.requests)
            import shutil

            shutil.rmtree(project.folder)
            return n
        told = calls_until_stopped(honest, None)
        lied = calls_until_stopped(fake, {"prompt_tokens": -100_000, "completion_tokens": -100_000})
    finally:
        honest.stop()
    assert lied <= told + 3, (told, lied)  # at most one phase more: the same budget stops both


class Drip(BaseHTTPRequestHandler):
    """A server that answers /models a byte at a time, and redirects /v1/models elsewhere with a 307."""
    protocol_version = "HTTP/1.1"
    target = ""
    seen_auth: list[str] = []

    def do_GET(self):  # noqa: N802
        Drip.seen_auth.append(self.headers.get("authorization") or "")
        if self.path.startswith("/redirect"):
            self.send_response(307)
            self.send_header("location", Drip.target + "/v1/models")
            self.send_header("content-length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("content-length", "100000")
        self.end_headers()
        try:
            for _ in range(100):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.3)
        except OSError:
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def drip():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Drip)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_doctor_gives_a_dripping_server_its_deadline_not_a_timeout_per_byte(project, drip):
    project.write_panels(f"    p:\n      members:\n        - {{id: d, model: openai/d, api_base: '{drip}/v1'}}\n"
                         "      settings: {timeoutSeconds: 2}\n")
    started = time.monotonic()
    result = project.cli("doctor", "--panel", "p")
    assert time.monotonic() - started < 10, result.output  # 100 bytes at 0.3 s would be 30 s
    assert "busy" in result.stdout


def test_doctor_never_sends_a_key_across_a_redirect(project, drip, monkeypatch):
    monkeypatch.setenv("P_KEY", "sk-test-4HjK8sPq2MxW9cYr")
    Drip.seen_auth.clear()
    Drip.target = drip.replace("127.0.0.1", "localhost")  # another origin
    project.write_panels(f"    p:\n      members:\n        - {{id: d, model: openai/d, api_base: '{drip}/redirect',"
                         " api_key_env: P_KEY}\n")
    result = project.cli("doctor", "--panel", "p")
    assert len(Drip.seen_auth) == 1, Drip.seen_auth  # the redirect's target was never asked
    assert "never followed" in result.stdout and "4HjK8sPq" not in result.output


def test_a_key_inside_api_base_is_kept_out_of_every_file_and_output(project, fake):
    secret = "Zq81pLmx0Rv4"
    base = fake.url + f"?key={secret}"
    fake.script("alpha", *[Action(status=404, text=f"no route /v1/chat/completions?key={secret} here")] * 2)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, attempts: 2}").replace(
        f"api_base: '{fake.url}'", f"api_base: '{base}'", 1))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "--no-stream")
    assert result.exit_code == 0, result.output
    assert "Zq81pLmx" not in result.output + project.cli("show", "swarm-power").output
    assert "Zq81pLmx" not in project.cli("show", "swarm-power", "--json").output
    for path in project.folder.rglob("*"):
        if path.is_file():
            assert "Zq81pLmx" not in path.read_text(errors="replace"), path
    assert "no route" in failure_of(project).error  # the error itself is kept, the key masked


def test_a_provider_litellm_calls_natively_follows_no_redirect_either(project, fake, monkeypatch):
    """Anthropic's API is reached through litellm's own HTTP handler, not the OpenAI SDK: the same policy."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-9fQ2xW7kLp3Zt8Vn")
    with FakeLLM() as elsewhere:
        fake.script("alpha", *[Action(status=307, headers={"location": elsewhere.url + "/v1/messages"})] * 2)
        project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, attempts: 2, timeoutSeconds: 5}")
                             .replace("model: openai/alpha", "model: anthropic/alpha"))
        result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "--no-stream")
        assert result.exit_code == 0, result.output
        assert elsewhere.requests == []  # neither the prompt nor the key went there
    assert fake.requests and all(r["model"] == "alpha" for r in fake.requests if r.get("task") is None)
    failure = failure_of(project)
    assert "a redirect to" in failure.error and "never followed" in failure.error
