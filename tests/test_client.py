"""One model client per command: a panel's options and conditions reach the server from every command and every
arm of an eval alike (its members' options in every request; its timeout, attempts and reply cap honoured by
the baselines as by the discussions)."""

from __future__ import annotations

import json
import re

from fakeserver import Action
from test_eval import responder

OPTIONS = {"temperature": 0.37, "seed": 11}


def panel(url: str) -> str:
    members = "\n".join(
        f"        - {{id: {i}, model: openai/{i}, name: {i.title()}, api_base: '{url}', api_key_env: FAKE_KEY, "
        "options: {temperature: 0.37, seed: 11}}" for i in ("alpha", "beta", "gamma"))
    settings = "{timeoutSeconds: 1.5, attempts: 2, retryBaseDelay: 0.01, maxReplyChars: 1200, maxRounds: 1}"
    return f"    fake:\n      members:\n{members}\n      settings: {settings}\n"


def carried(requests: list[dict]) -> set[tuple]:
    """The distinct option values the requests carried."""
    return {tuple(r["body"].get(k) for k in OPTIONS) for r in requests}


def test_every_command_sends_the_panels_options(project, fake):
    project.write_panels(panel(fake.url))
    steps = [("run", "swarm-power", "--panel", "fake", "--auto", "-q", "--yes"),
             ("audit", "swarm-power", "--orders", "1", "-q"),
             ("trials", "swarm-power", "--runs", "1", "--panel", "fake"),
             ("follow-up", "swarm-power", "And at night?", "--auto", "-q"),
             ("ask", "Which unit fails first?", "--panel", "fake"),
             ("run", "--all", "--panel", "fake")]
    for step in steps:
        if step[:2] == ("run", "--all"):
            assert project.cli("new", "Which bus voltage?").exit_code == 0
        before = len(fake.requests)
        result = project.cli(*step)
        assert result.exit_code in (0, 1), (step, result.output)
        assert len(fake.requests) > before, step
        assert carried(fake.requests[before:]) == {tuple(OPTIONS.values())}, step


def test_every_arm_of_an_eval_runs_under_the_panels_conditions(project, fake):
    """Each arm is asked with the panel's options; the baselines give up at the panel's timeout (1.5 s: the
    default of 120 s would wait for the slow reply) and keep no reply past the panel's cap."""
    import time

    from discuss.store.evalsets import arithmetic

    project.write_panels(panel(fake.url))
    slow = arithmetic(4, 3).items[1].question

    def scripted(model: str, messages: list[dict]) -> str | None:
        said = responder(model, messages)
        if said and model == "beta" and slow in json.dumps(messages):
            time.sleep(3.0)
        return "Working. " * 300 + said if said and model == "gamma" else said  # past the cap of 1200 characters

    fake.responder = scripted
    result = project.cli("eval", "arithmetic", "--panel", "fake", "--items", "4", "--seed", "3",
                         "--arms", "vote,single:beta,majority,self-consistency:gamma", "--json")
    assert result.exit_code == 0, result.output
    assert carried(fake.requests) == {tuple(OPTIONS.values())}
    folder = project.root / "evals" / "arithmetic"
    assert "timed out" in (folder / "single-beta" / "a0002.yaml").read_text()  # given up at 1.5 s, not after 3
    assert "timed out" in (folder / "majority" / "a0002.yaml").read_text()
    for arm in ("self-consistency-gamma", "majority"):
        assert re.search(r"\[cut: \d+ characters, at most 1200 kept\]", (folder / arm / "a0001.yaml").read_text())


def test_a_baseline_tries_a_failing_server_the_panels_number_of_times(project, fake):
    project.write_panels(panel(fake.url))
    fake.always["alpha"] = Action(status=500, text="down")
    result = project.cli("eval", "arithmetic", "--panel", "fake", "--items", "3", "--arms", "single:alpha", "--json")
    assert result.exit_code == 0, result.output
    assert len(fake.requests_for("alpha")) == 3 * 2  # the panel's two attempts an answer; the default is three
