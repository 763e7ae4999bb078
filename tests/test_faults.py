"""The fault matrix: what each provider fault does to a vote discussion, and that nothing saved is lost."""

import socket

import pytest

from conftest import fake_panel
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from fakeserver import DEFAULT, Action

pytestmark = pytest.mark.usefixtures("client")  # through the light HTTP client and through litellm
FIVE_MB = "A long answer. " * (5 * 1024 * 1024 // 15)


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


# (what beta's first call meets, expected outcome for beta's answer, requests beta's answer took)
MATRIX = [
    # the client gives up on a slow reply; whether the retry reaches the server in time is the network's affair
    ("timeout", [Action(delay=5)], "failed", 1),
    ("timeout, retried when asked", [Action(delay=5), Action()], "answered", 2),
    ("429 without Retry-After", [Action(status=429)], "answered", 2),
    ("429 with Retry-After", [Action(status=429, headers={"Retry-After": "0"})], "answered", 2),
    ("500 then fine", [Action(status=500)], "answered", 2),
    ("500 always", [Action(status=500)] * 2, "failed", 2),
    ("401", [Action(status=401)], "failed", 1),
    ("empty reply", [Action(text="")], "failed", 1),
    ("reply cut off", [Action(raw=b'{"id": "x", "choices": [{"message": {"content": "Half an ans')] * 2, "failed", 2),
    ("reply of 5 MB", [Action(text=FIVE_MB)], "answered", 1),
]


@pytest.mark.parametrize("case, actions, outcome, requests", MATRIX, ids=[m[0] for m in MATRIX])
def test_fault_matrix(project, fake, case, actions, outcome, requests):
    fake.script("beta", *actions)
    retry = "true" if "retried" in case else "false"
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.01, attempts: 2, timeoutSeconds: 3, "
                                                      f"retryTimeouts: {retry}, maxReplyChars: 100000}}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 0, result.output
    r = store.load(project.folder).rounds[0]
    if requests is not None:
        assert len(fake.requests_for("beta", "respond")) == requests
    if outcome == "answered":
        assert "beta" in r.replies and not r.failed("respond")
    else:
        assert "beta" not in r.replies and r.failed("respond") == {"beta"}
    assert {"alpha", "gamma"} <= set(r.replies) and r.complete  # the others' answers are all kept
    if case == "timeout":
        (failure,) = r.failures
        assert failure.timed_out and failure.attempts == 1  # dropped at the timeout, not kept three times
    if case == "reply of 5 MB":
        reply = r.replies["beta"]
        assert reply.cut_from == len(FIVE_MB) and reply.text.startswith(FIVE_MB[:100000])
        assert len(reply.text) < 100100 and "[cut: " in reply.text
        ballots = [req for req in fake.requests if req["task"] == "vote"]
        assert all(len(req["messages"][-1]["content"]) < 400000 for req in ballots)  # no voter reads 5 MB


def test_connection_refused_is_a_failure_not_a_crash(project, fake):
    down = closed_port_url()
    project.write_panels(
        "    fake:\n      members:\n"
        f"        - {{id: alpha, model: openai/alpha, api_base: '{fake.url}', api_key_env: FAKE_KEY}}\n"
        f"        - {{id: beta, model: openai/beta, api_base: '{down}', api_key_env: FAKE_KEY}}\n"
        "      settings: {retryBaseDelay: 0.01, attempts: 2}\n")
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 0, result.output
    r = store.load(project.folder).rounds[0]
    assert set(r.replies) == {"alpha"} and {f.model_id for f in r.failures} == {"beta"}
    assert all(f.attempts == 2 for f in r.failures)  # refused connections are retried, then recorded


def test_a_ballot_of_the_wrong_shape_is_an_abstention(project, fake):
    fake.script("gamma", DEFAULT, *[Action(text='{"votes": {"A": {"vote": 7}}, "termination": []}')] * 3)
    project.write_panels(fake_panel(fake.url))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1").exit_code == 0
    r = store.load(project.folder).rounds[0]
    assert [a.voter_id for a in ballot_box(r).abstentions] == ["gamma"]
    assert "APPROVE, NEUTRAL or REJECT" in ballot_box(r).abstentions[0].reason
    assert ballot_box(r).abstentions[0].usage.calls == 3  # what the three asks cost is kept


PROTOCOLS = ["council", "debate", "adversarial", "auto", "critique", "tournament", "decompose", "deliberate"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_protocol_goes_on_without_a_panelist_that_always_fails(project, fake, protocol):

    fake.fail_always("beta", status=500)
    fake.script("gamma", Action(text=""), DEFAULT)  # and gamma's first reply comes back empty, once
    judge = f"      judge: {{id: referee, model: openai/referee, api_base: '{fake.url}', api_key_env: FAKE_KEY}}\n"
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.01, attempts: 2}") + judge)
    result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", protocol, "--auto")
    if protocol in ("adversarial", "decompose"):
        # beta and gamma are the only reviewers (or part-answerers): with both down the stage fails,
        # exit 1, and the next run, gamma being back, finishes what is left
        assert result.exit_code == 1 and "every participant failed" in result.stderr
        result = project.cli("run", "swarm-power", "--auto")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.concluded, protocol
    failed = {f.model_id for r in d.rounds for f in r.failures}
    assert "beta" in failed or any(k.startswith("part-") for k in failed)  # decompose records parts
    assert not any(reply.model_id == "beta" for r in d.rounds for reply in r.replies.values())
    assert any(reply.model_id == "alpha" for r in d.rounds for reply in r.replies.values())


# The empty and the huge reply depend on the task; retrying timeouts is a setting the vote matrix covers.
TRANSPORT = [m for m in MATRIX if m[0] not in ("empty reply", "reply of 5 MB", "timeout, retried when asked")]


@pytest.mark.parametrize("protocol", [p for p in PROTOCOLS if p != "auto"])
@pytest.mark.parametrize("case, actions, outcome, requests", TRANSPORT, ids=[m[0] for m in TRANSPORT])
def test_fault_matrix_in_every_protocol(project, fake, protocol, case, actions, outcome, requests):

    fake.script("beta", *actions)  # beta's first call meets the fault, whatever that call is
    judge = f"      judge: {{id: referee, model: openai/referee, api_base: '{fake.url}', api_key_env: FAKE_KEY}}\n"
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.01, attempts: 2, timeoutSeconds: 3}")
                         + judge)
    result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", protocol, "--auto")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.concluded
    if protocol == "decompose":
        # beta answers two parts at once, and which of them meets the fault is a race: the
        # discussion must conclude with every part that was answered, whichever it was
        parts = d.rounds[1]
        assert len(parts.replies) + len(parts.failures) == len(parts.notes["parts"])
        return
    assert any(f.model_id == "beta" for r in d.rounds for f in r.failures) is (outcome == "failed"), case
    answered = any(reply.model_id == "beta" for r in d.rounds for reply in r.replies.values())
    assert answered is (outcome == "answered"), case


def test_a_provider_that_never_answers_is_dropped_at_the_timeout(project, fake):
    fake.script("beta", Action(delay=60))
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.01, attempts: 3}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "--timeout", "2")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.settings.timeout_seconds == 2.0 and d.rounds[0].failed("respond") == {"beta"}
    asked = fake.requests_for("beta", "respond")[0]["at"]
    votes_began = min(r["at"] for r in fake.requests if r["task"] == "vote")
    assert len(fake.requests_for("beta", "respond")) == 1  # a timeout is not asked again
    assert (votes_began - asked) / 2.0 < 1.5  # the round waited for the timeout, not for three of them


def test_network_faults_are_named_with_the_address_masked(project):
    down = closed_port_url() + "?token=secret-pw"
    project.write_panels(
        "    fake:\n      members:\n"
        f"        - {{id: alpha, model: openai/alpha, api_base: '{down}', api_key_env: FAKE_KEY}}\n"
        "        - {id: beta, model: openai/beta, api_base: 'http://no-such-host.invalid/v1', api_key_env: FAKE_KEY}\n"
        "      settings: {retryBaseDelay: 0.0, attempts: 1}\n")
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 1
    errors = {f.model_id: f.error for f in store.load(project.folder).rounds[0].failures}
    assert errors["alpha"].startswith("connection refused by http://127.0.0.1:") and "token=***" in errors["alpha"]
    assert "is the server running" in errors["alpha"]
    assert "no-such-host.invalid" in errors["beta"] and "does not resolve" in errors["beta"]
    assert "secret-pw" not in result.output and "InternalServerError" not in result.output
