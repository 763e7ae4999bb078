"""Budgets stop a discussion before a phase would pass them; --estimate calls nothing."""

import pytest

from conftest import fake_panel
from discuss.domain import Settings, Usage
from discuss.engine.budget import overrun
from discuss.store import discussions as store
from fakeserver import FakeLLM


@pytest.fixture
def stubborn():
    with FakeLLM(termination="CONTINUE") as server:  # ballots never ask to conclude
        yield server


def run(project, server, *args, settings="{retryBaseDelay: 0.01}"):
    project.write_panels(fake_panel(server.url, settings=settings))
    return project.cli("run", "swarm-power", "--panel", "fake", "--auto", *args)


def test_call_budget_stops_mid_run_and_concludes_within_it(project, stubborn):
    result = run(project, stubborn, "--max-calls", "10")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    # round 1 (6 calls) fits; round 2's answers (3) fit with room kept for the conclusion;
    # its ballots (3 more, and the conclusion) would make 13
    assert d.termination_reason == "budget" and d.concluded and d.conclusion is not None
    assert len(stubborn.requests) == d.usage.calls == 10
    assert d.budget_stop == {"limit": "calls", "max": 10, "spent": 9, "nextPhase": 4}
    assert [r.complete for r in d.rounds] == [True, False]  # the conclusion rests on round 1
    assert "maxCalls: 10" in (project.folder / "discussion.yaml").read_text()
    assert "passed the calls limit" in project.cli("show", "swarm-power").stdout


def test_token_budget_is_never_exceeded(project, stubborn):
    result = run(project, stubborn, settings="{retryBaseDelay: 0.01, maxTokens: 9000}")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.termination_reason == "budget" and d.usage.total_tokens <= 9000


def test_a_budget_too_small_for_anything_makes_no_call(project, stubborn):
    result = run(project, stubborn, "--max-calls", "2")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert stubborn.requests == [] and d.concluded and d.conclusion is None and d.termination_reason == "budget"


def test_estimate_makes_no_call_and_writes_nothing(project, stubborn):
    project.write_panels(fake_panel(stubborn.url))
    before = project.snapshot()
    vote = project.cli("run", "swarm-power", "--panel", "fake", "--auto", "--estimate")
    assert vote.exit_code == 0, vote.output
    assert "calls:             31 (15 respond, 15 vote, 1 conclude)" in vote.stdout  # 5 rounds of 2n, and 1
    debate = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "debate", "--estimate")
    assert "calls:             10 (3 respond, 3 critique, 3 rebut, 1 conclude)" in debate.stdout
    assert "cost:              unknown (no price known for alpha, beta, gamma)" in debate.stdout
    assert "$0.0000" not in debate.stdout  # no bound is claimed where no price is known
    assert stubborn.requests == [] and project.snapshot() == before


@pytest.mark.parametrize("spent, planned, settings, limit", [
    (Usage(calls=5), Usage(calls=5), Settings(max_calls=10), None),
    (Usage(calls=5), Usage(calls=6), Settings(max_calls=10), "calls"),
    (Usage(100, 0), Usage(1, 0), Settings(max_tokens=100), "tokens"),
    (Usage(cost=0.5), Usage(cost=0.6), Settings(max_cost=1.0), "cost"),
    (Usage(cost=None), Usage(cost=None), Settings(max_cost=1.0), None),  # unknown prices count as nothing
    (Usage(calls=99, prompt_tokens=10**6), Usage(calls=99), Settings(), None),  # no limits set
])
def test_overrun(spent, planned, settings, limit):
    stop = overrun(spent, planned, settings)
    assert (stop or {}).get("limit") == limit


def test_a_discussion_its_budget_stopped_goes_on_when_the_budget_is_raised(project, stubborn):
    assert run(project, stubborn, "--max-calls", "2").exit_code == 0
    assert "stopped (budget)" in project.cli("status").stdout
    again = run(project, stubborn, "--max-calls", "2")
    assert "nothing to do" in again.stdout and stubborn.requests == []  # the same budget: still stopped
    raised = run(project, stubborn, "--max-calls", "40", "--max-rounds", "1")
    assert raised.exit_code == 0, raised.output
    assert "the budget is raised" in raised.stderr
    d = store.load(project.folder)
    assert d.status == "concluded" and d.conclusion is not None and len(d.rounds) == 1
