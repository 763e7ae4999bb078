"""Panel independence and power: the report gives the panel's effective number of independent voters, from how
often its members err together, and per paired row the smallest difference these items could detect at 80%
power; the page shows both."""

from __future__ import annotations

import json
import math

import pytest

from conftest import fake_panel
from discuss.rules.evalstats import detectable, effective_voters
from test_eval import truth


def test_effective_voters_follow_how_often_members_err_together():
    alike = [True, False, True, False, False, True]
    apart = [True, False, False, False, True, True]
    # Members who always err together are worth one voter; members whose errors are uncorrelated, all of them.
    assert effective_voters({"a": alike, "b": alike, "c": alike}) == {
        "members": 3, "errorCorrelation": 1.0, "effectiveVoters": 1.0}
    uncorrelated = effective_voters({"a": [True, True, False, False], "b": [True, False, True, False]})
    assert uncorrelated["errorCorrelation"] == 0.0 and uncorrelated["effectiveVoters"] == 2.0
    partly = effective_voters({"a": alike, "b": apart})
    assert 0 < partly["errorCorrelation"] < 1 and 1 < partly["effectiveVoters"] < 2
    # A member who never errs (or always does) has no correlation to give; items one did not answer are left out.
    assert effective_voters({"a": [False] * 4, "b": alike[:4]})["effectiveVoters"] is None
    assert effective_voters({"a": [True, None, False], "b": [True, True, False]})["errorCorrelation"] == 1.0


@pytest.mark.parametrize("n, discordant", [(50, 10), (200, 40), (12, 3), (1000, 100)])
def test_the_detectable_difference_has_80_percent_power(n, discordant):
    """At the difference given, McNemar's test (normal approximation) rejects with probability 0.80."""
    d = detectable(n, discordant)
    p = max(discordant / n, d)
    z = (d * math.sqrt(n) - 1.959963984540054 * math.sqrt(p)) / math.sqrt(p - d * d)
    power = 0.5 * (1 + math.erf(z / math.sqrt(2)))
    assert abs(power - 0.80) < 0.001, power
    assert detectable(4 * n, 4 * discordant) < d  # more items detect less
    assert detectable(0, 0) is None


def responder(model: str, messages: list[dict]) -> str | None:
    """beta and gamma err on the same items (the first number odd), alpha on others (divisible by 3)."""
    prompt = messages[-1]["content"] if isinstance(messages[-1]["content"], str) else ""
    found = truth(prompt)
    if found is None:
        return None
    value, first = found
    wrong = first % 3 == 0 if model == "alpha" else first % 2 == 1
    return f"Answer: {value + 1 if wrong else value}"


def test_the_report_and_page_give_the_panels_independence_and_each_rows_power(project, fake):
    from discuss.store.evalsets import arithmetic
    from sitekit import MKDOCS, build

    fake.responder = responder
    project.write_panels(fake_panel(fake.url))
    ran = project.cli("eval", "arithmetic", "--panel", "fake", "--items", "30", "--arms",
                      "majority,single:alpha,single:beta", "--json")
    assert ran.exit_code == 0, ran.output
    report = json.loads(ran.stdout)
    firsts = [truth(i.question)[1] for i in arithmetic(30, 1).items]
    errors = {"alpha": [f % 3 == 0 for f in firsts], "beta": [f % 2 == 1 for f in firsts],
              "gamma": [f % 2 == 1 for f in firsts]}
    assert report["independence"] == {**effective_voters(errors), "from": ["majority", "single:alpha",
                                                                           "single:beta"]}
    assert 1 < report["independence"]["effectiveVoters"] < 3
    for row in report["paired"].values():
        assert row["detectable"] == detectable(30, row["aWins"] + row["bWins"])
    assert "independence" in report["provenance"]["statistics"] and "power" in report["provenance"]["statistics"]
    (project.root / "mkdocs.yml").write_text(MKDOCS)
    (project.content / "index.md").write_text("# Home\n")
    page = (build(project.root) / "evals" / "arithmetic" / "index.html").read_text()
    shown = f"{report['independence']['effectiveVoters']:.1f} independent voter(s)"
    assert "3 members are worth " + shown in page
    first = next(iter(report["paired"].values()))
    assert f"<td data-label=\"Detectable (80% power)\">{first['detectable']:.2f}</td>" in page
