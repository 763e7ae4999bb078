"""Budgets that hold: an item of an eval starts only when what it may spend at most fits in what is left of
--max-tokens / --max-cost beside the items under way, so the budget is never exceeded by more than 10% (here not
at all: the server's usage is known, every reply filling its cap); what was not started is counted in the output
and progress.yaml, and the next run goes on."""

from __future__ import annotations

import json

import pytest

from conftest import fake_panel
from test_eval import responder


@pytest.mark.parametrize("arms, share", [("vote,single:alpha,majority", 0.4), ("single:alpha,majority", 0.5)])
def test_max_tokens_holds_and_the_next_run_goes_on(project, fake, arms, share):
    fake.responder = responder
    fake.fill = True  # every reply fills its cap: the usage the server reports is known
    fake.termination = "CONTINUE"  # and every discussion runs to its last round
    project.write_panels(fake_panel(fake.url))
    args = ("eval", "arithmetic", "--panel", "fake", "--items", "8", "--arms", arms, "--json")
    bound = json.loads(project.cli(*args, "--estimate").stdout)["total"]["tokens"]
    budget = int(bound * share)
    ran = project.cli(*args, "--max-tokens", str(budget))
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.stdout)
    spent = sum(a["tokensPerItem"] * a["items"] for a in found["arms"].values() if a["items"])
    assert 0 < spent <= budget * 1.10, (spent, budget)  # held: measured at most 1.0x of the budget
    assert found["notStarted"] > 0 and f"{found['notStarted']} item(s) not started" in ran.stderr
    progress = (project.root / "evals" / "arithmetic" / "progress.yaml").read_text()
    assert f"notStarted: {found['notStarted']}" in progress and "state: stopped" in progress
    again = json.loads(project.cli(*args).stdout)
    assert "notStarted" not in again and all(a["items"] == 8 for a in again["arms"].values())


def test_a_cost_budget_holds_on_priced_members(project, fake):
    fake.responder = responder
    fake.fill = True
    panel = fake_panel(fake.url).replace("api_key_env: FAKE_KEY}", "api_key_env: FAKE_KEY, price: {input: 1.0, "
                                                                   "output: 2.0}}")
    project.write_panels(panel)
    args = ("eval", "arithmetic", "--panel", "fake", "--items", "6", "--arms", "single:alpha,majority", "--json")
    bound = json.loads(project.cli(*args, "--estimate").stdout)["total"]["cost"]
    assert bound
    ran = project.cli(*args, "--max-cost", repr(bound / 3))
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.stdout)
    spent = sum(a["costPerItem"] * a["items"] for a in found["arms"].values() if a["items"])
    assert 0 < spent <= bound / 3 * 1.10 and found["notStarted"] > 0
