"""Real HTTP to a fake OpenAI-compatible server on 127.0.0.1 (test_faults drives both clients)."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Project, fake_panel
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from fakeserver import DEFAULT, Action, FakeLLM
from test_cli import files_of, without_stamps

SRC = str(Path(__file__).resolve().parent.parent / "src")


def run(project: Project, fake: FakeLLM, *args, settings: str = ""):
    project.write_panels(fake_panel(fake.url, settings=settings))
    return project.cli("run", "swarm-power", "--panel", "fake", *args)


def test_three_panelists_deliberate_to_a_conclusion(project, fake):
    result = run(project, fake, "--auto")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.concluded and d.termination_reason == "unanimous-conclude"
    r = d.rounds[0]
    assert sorted(r.replies) == ["alpha", "beta", "gamma"]
    assert r.replies["beta"].text == "Answer of beta in round 1.\n\nIt has **two** paragraphs.\n"
    assert len(ballot_box(r).votes) == 9 and len(ballot_box(r).termination_votes) == 3
    assert sorted(b.voter_id for b in ballot_box(r).ballots) == ["alpha", "beta", "gamma"]
    assert d.conclusion.summary == f"Conclusion written by {d.conclusion.generated_by}."
    assert d.usage.calls == 7 and d.usage.total_tokens > 0
    assert r.replies["alpha"].usage.prompt_tokens > 0
    assert [req["task"] for req in fake.requests].count("respond") == 3


def test_voters_never_see_names_and_answers_are_shuffled(project, fake):
    assert run(project, fake, "--rounds", "1").exit_code == 0
    votes = [r for r in fake.requests if r["task"] == "vote"]
    orders = set()
    for req in votes:
        prompt = req["messages"][-1]["content"]
        assert not re.search(r"\b(Alpha|Beta|Gamma)\b", prompt)
        orders.add(tuple(re.findall(r"Answer of (\w+)", prompt)))
    d = store.load(project.folder)
    expected = {tuple(b.labels[label] for label in sorted(b.labels)) for b in ballot_box(d.rounds[0]).ballots}
    assert orders == expected


def test_a_panelist_that_times_out_is_dropped_from_the_phase(project, fake):
    fake.script("alpha", Action(delay=5))
    result = run(project, fake, "--rounds", "1",
                 settings="{timeoutSeconds: 2, attempts: 1, retryBaseDelay: 0.01}")
    assert result.exit_code == 0, result.output
    r = store.load(project.folder).rounds[0]
    assert sorted(r.replies) == ["beta", "gamma"]
    (failure,) = r.failures
    assert (failure.model_id, failure.phase, failure.timed_out) == ("alpha", "respond", True)
    assert "alpha" in {b.voter_id for b in ballot_box(r).ballots}  # dropped from the phase, not the discussion
    assert "timed out" in result.stderr


def test_rate_limit_is_retried_then_succeeds(project, fake):
    fake.script("beta", Action(status=429, text="slow down"))
    assert run(project, fake, "--rounds", "1").exit_code == 0
    r = store.load(project.folder).rounds[0]
    assert "beta" in r.replies and not r.failures
    assert len(fake.requests_for("beta", "respond")) == 2  # one 429, one success: our retry, not the SDK's


def test_malformed_ballot_is_asked_again_then_counted(project, fake):
    fake.script("gamma", DEFAULT, Action(text="I like them all!"))
    assert run(project, fake, "--rounds", "1").exit_code == 0
    r = store.load(project.folder).rounds[0]
    ballot = next(b for b in ballot_box(r).ballots if b.voter_id == "gamma")
    assert ballot.attempts == 2 and not ballot_box(r).abstentions
    second = fake.requests_for("gamma", "vote")[1]["messages"]
    assert "Your reply could not be used: the reply holds no JSON object" in second[-1]["content"]
    assert second[-2] == {"role": "assistant", "content": "I like them all!"}


def test_ballot_still_invalid_is_an_abstention_not_a_neutral(project, fake):
    fake.script("gamma", DEFAULT, *[Action(text='{"votes": []}')] * 3)
    assert run(project, fake, "--rounds", "1").exit_code == 0
    r = store.load(project.folder).rounds[0]
    (abstention,) = ballot_box(r).abstentions
    assert abstention.voter_id == "gamma" and "invalid ballot" in abstention.reason
    assert all(v.voter_id != "gamma" for v in ballot_box(r).votes)
    assert [t.model_id for t in ballot_box(r).termination_votes] == ["alpha", "beta"]
    assert ballot_box(r).termination_reason == "unanimous-conclude"  # of the votes cast


def test_a_panelist_that_always_fails_is_recorded_and_the_rest_go_on(project, fake):
    fake.fail_always("gamma", status=500)
    result = run(project, fake, "--auto")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.concluded
    r = d.rounds[0]
    assert {(f.model_id, f.phase) for f in r.failures} == {("gamma", "respond"), ("gamma", "vote")}
    assert all(f.attempts == 3 for f in r.failures)
    assert [a.voter_id for a in ballot_box(r).abstentions] == ["gamma"]
    assert len(fake.requests_for("gamma", "respond")) == 3


def test_no_secret_reaches_a_file_or_the_output(project, fake, monkeypatch):
    secrets = {"OPENAI_API_KEY": "sk-proj-SECRETOPENAI0001", "ANTHROPIC_API_KEY": "sk-ant-SECRETANTHROPIC02",
               "GEMINI_API_KEY": "AIzaSECRETGEMINI0003"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    fake.script("alpha", *[Action(status=401, text="bad key: {auth}")])  # a provider echoing the key
    fake.script("beta", DEFAULT, Action(text="not json, but the key {auth}"))
    result = run(project, fake, "--auto")
    assert result.exit_code == 0, result.output
    everything = [result.stdout, result.stderr, *files_of(project.folder).values()]
    for secret in [*secrets.values(), os.environ["FAKE_KEY"]]:
        assert not any(secret in text for text in everything), secret
    failure = store.load(project.folder).rounds[0].failures[0]
    assert "[redacted]" in failure.error


def test_every_answer_failing_fails_the_run_with_exit_1(project, fake):
    for model in ("alpha", "beta", "gamma"):
        fake.fail_always(model, status=503)
    result = run(project, fake, "--rounds", "1", settings="{attempts: 1}")
    assert result.exit_code == 1 and "every participant failed to answer" in result.stderr
    assert len(store.load(project.folder).rounds[0].failures) == 3


def normalised(folder: Path) -> dict[str, str]:
    return {k: re.sub(r"latencyMs: \d+", "latencyMs: <ms>", v) for k, v in without_stamps(files_of(folder)).items()}


def test_a_run_killed_mid_round_resumes_without_repeating_paid_calls(project, tmp_path):
    with FakeLLM() as fake:
        fake.script("gamma", DEFAULT, Action(delay=120))  # gamma's ballot hangs
        project.write_panels(fake_panel(fake.url))
        env = {**os.environ, "PYTHONPATH": SRC}
        proc = subprocess.Popen(
            [sys.executable, "-m", "discuss.cli.app", "--root", str(project.root), "run", "swarm-power",
             "--panel", "fake", "--auto"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        votes = project.folder / "round-1" / "votes.yaml"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if votes.is_file() and votes.read_text().count("voterId: ") >= 8:  # alpha's and beta's ballots
                break
            time.sleep(0.05)
        else:
            proc.kill()
            raise AssertionError("the run never reached gamma's ballot")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert not (project.folder / "conclusion.md").exists()

        result = project.cli("run", "swarm-power", "--auto")
        assert result.exit_code == 0, result.output
        for model in ("alpha", "beta", "gamma"):
            assert len(fake.requests_for(model, "respond")) == 1, model
        assert len(fake.requests_for("alpha", "vote")) == 1
        assert len(fake.requests_for("beta", "vote")) == 1
        assert len(fake.requests_for("gamma", "vote")) == 2  # in flight when killed: asked again

    with FakeLLM() as clean:
        other = Project(tmp_path / "uninterrupted")
        other.write_panels(fake_panel(clean.url))
        assert other.cli("run", "swarm-power", "--panel", "fake", "--auto").exit_code == 0
    assert normalised(project.folder) == normalised(other.folder)


def test_cost_is_recorded_where_litellm_knows_the_price(project, fake):
    project.write_panels(
        "    priced:\n      members:\n"
        f"        - {{id: mini, model: openai/gpt-4o-mini, api_base: '{fake.url}', api_key_env: FAKE_KEY}}\n"
        f"        - {{id: other, model: openai/unpriced-model, api_base: '{fake.url}', api_key_env: FAKE_KEY}}\n"
    )
    assert project.cli("run", "swarm-power", "--panel", "priced", "--rounds", "1").exit_code == 0
    r = store.load(project.folder).rounds[0]
    assert r.replies["mini"].usage.cost > 0
    assert r.replies["other"].usage.cost is None  # unknown price: no number made up
    assert "cost:" in (project.folder / "round-1" / "mini.md").read_text()


def test_provider_key_variable_is_named_when_missing(project, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    project.write_panels("    real:\n      members:\n        - {id: claude, model: anthropic/claude-opus-4-6}\n")
    result = project.cli("run", "swarm-power", "--panel", "real")
    assert result.exit_code == 2 and "ANTHROPIC_API_KEY (for claude)" in result.stderr
    assert not project.folder.exists()


def test_vote_can_stop_early_on_a_text_convergence_test(project):
    with FakeLLM(termination="CONTINUE") as server:
        project.write_panels(fake_panel(server.url, settings="{retryBaseDelay: 0.01, convergenceTest: agreement, "
                                                             "consensusAt: 0.5}"))
        result = project.cli("run", "swarm-power", "--panel", "fake", "--auto")
        assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    # the fake's answers differ only in their author's name: agreement is high from round 1
    assert d.termination_reason == "converged" and len(d.rounds) == 1
    check = d.rounds[0].notes["convergence"]
    assert check["test"] == "agreement" and check["converged"] and check["value"] >= 0.5
    assert "convergence:" in (project.folder / "discussion.yaml").read_text()


def test_round_two_shows_the_other_answers_and_the_reasons_given_on_ones_own(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    fake.termination = "CONTINUE"
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "2").exit_code == 0
    second = [r for r in fake.requests_for("beta", "respond")][1]["messages"][-1]["content"]
    assert "Answer of alpha in round 1." in second and "Answer of gamma in round 1." in second
    assert "Answer of beta in round 1." in second and "(yours)" in second and "(the round's winner)" in second
    said = re.findall(r"^- (APPROVE|NEUTRAL|REJECT): (\w+) on answer [A-C]$", second, re.MULTILINE)
    assert sorted(voter for _, voter in said) == ["alpha", "gamma"]  # what the others said of beta's answer


FIRST_CALL = """
import asyncio, sys
sys.path.insert(0, {tests!r})
from fakeserver import FakeLLM
from discuss.domain import Panelist
from discuss.providers.litellm import LITELLM, load

with FakeLLM() as fake:
    LITELLM.warm_up([Panelist('m', {model!r}, 'M')])
    before = set(sys.modules)
    try:
        asyncio.run(load().acompletion(model={model!r}, messages=[{{"role": "user", "content": "hi"}}],
                                       api_base=fake.url + "/v1", api_key="x", max_retries=0, timeout=5))
    except Exception:
        pass  # the fake speaks OpenAI's format only: what counts is what the call imported
    print(" ".join(sorted(set(sys.modules) - before)))
"""


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "gpt-4o", "anthropic/claude-sonnet-4-5"])
def test_the_first_call_through_litellm_imports_almost_nothing_after_the_warm_up(model):
    """What litellm's first call imports (the OpenAI SDK's 450 modules, its own providers' dozens) is imported
    by the warm-up, not inside the call's timeout: measured by what the call imports, whatever the version."""
    probe = FIRST_CALL.format(tests=str(Path(__file__).parent), model=model)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": SRC})
    assert done.returncode == 0, done.stderr[-2000:]
    imported = done.stdout.split()
    assert len(imported) <= 40, imported  # hundreds without the warm-up


def test_every_answer_refused_for_good_says_why_and_that_a_retry_will_not_help(project, fake):
    for model in ("alpha", "beta", "gamma"):
        fake.fail_always(model, status=401)
    result = run(project, fake, "--rounds", "1", settings="{attempts: 3, retryBaseDelay: 0.0}")
    assert result.exit_code == 1 and "running again will not help" in result.stderr, result.stderr
    assert "alpha:" in result.stderr and ("401" in result.stderr or "uthentication" in result.stderr)
    assert all(f.lasting and f.attempts == 1 for f in store.load(project.folder).rounds[0].failures)
    assert len(fake.requests) == 3  # each refused once, never asked again
