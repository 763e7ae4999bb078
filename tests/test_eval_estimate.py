"""`eval --estimate` is an upper bound within 2x of the run it prices: every arm's tokens, on a panel whose
replies fill their caps and whose discussions run to their last round (the run the bound is of), with
self-consistency sized as the run sizes it."""

from __future__ import annotations

import json

from conftest import fake_panel
from test_eval import responder

ARMS = "vote,council,majority,single:alpha,self-consistency:alpha"


def test_the_estimate_bounds_each_arm_within_twice_the_run(project, fake):
    fake.responder = responder
    fake.fill = True  # every reply fills its cap
    fake.termination = "CONTINUE"  # and the vote runs to its last round
    project.write_panels(fake_panel(fake.url))
    args = ("eval", "arithmetic", "--panel", "fake", "--items", "4", "--arms", ARMS, "--json")
    estimated = project.cli(*args, "--estimate")
    assert estimated.exit_code == 0, estimated.output
    bound = json.loads(estimated.stdout)
    ran = project.cli(*args)
    assert ran.exit_code == 0, ran.output
    report = json.loads(ran.stdout)
    spent_all = 0.0
    for name, arm in report["arms"].items():
        spent = arm["tokensPerItem"] * arm["items"]
        calls = arm["callsPerItem"] * arm["items"]
        spent_all += spent
        # measured: vote 1.18x, council 1.24x, majority and single 1.03x, self-consistency 1.19x
        assert spent <= bound["arms"][name]["tokens"] <= 2 * spent, (name, spent, bound["arms"][name])
        assert calls <= bound["arms"][name]["calls"] <= 2 * calls, (name, calls, bound["arms"][name])
    assert spent_all <= bound["total"]["tokens"] <= 2 * spent_all
    assert bound["arms"]["self-consistency:alpha"]["samples"] * 4 >= report["arms"]["self-consistency:alpha"][
        "callsPerItem"] * 4


def test_self_consistency_without_a_protocol_arm_is_priced_at_one_sample_per_member(project, fake):
    fake.responder = responder
    project.write_panels(fake_panel(fake.url))
    found = json.loads(project.cli("eval", "arithmetic", "--panel", "fake", "--items", "2", "--arms",
                                   "self-consistency:beta,single:beta", "--estimate", "--json").stdout)
    sc, single = found["arms"]["self-consistency:beta"], found["arms"]["single:beta"]
    assert sc["samples"] == 3 and sc["calls"] == 6 and sc["tokens"] == 3 * single["tokens"]
