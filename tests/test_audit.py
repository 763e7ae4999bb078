"""`discuss audit`: a recorded round's voters asked again under new orders catch a voter that approves
whatever comes first, and clear one that reads the answers; the re-asks are files, resumable, priced first."""

from __future__ import annotations

import json
import re

from conftest import fake_panel
from fakeserver import Action


def voted_round(project, fake, answers: dict[str, str] | None = None):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    for model, text in (answers or {}).items():
        fake.script(model, Action(text=text))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q")
    assert result.exit_code == 0, result.output


def audited(project, *flags: str) -> dict:
    result = project.cli("audit", "swarm-power", "--json", "-q", *flags)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_voter_that_approves_whatever_comes_first_is_caught(project, fake):
    voted_round(project, fake)  # the fake's voters approve the first answer they are shown, whatever it is
    found = audited(project, "--orders", "6")
    panel = found["figures"]["panel"]["positionBias"]
    assert found["ballots"] == 18 and panel["ballots"] == 18
    assert panel["estimate"] == 1.0 and panel["low"] > 0.5  # near 1, the interval clear of 0
    assert all(v["positionBias"]["estimate"] == 1.0 for v in found["figures"]["voters"].values())


def test_a_voter_that_reads_the_answers_is_cleared_and_padding_changes_nothing_for_it(project, fake):
    voted_round(project, fake, {"alpha": "Solar first: the collectors pay for the rest.",
                                "beta": "Comms first.", "gamma": "Storage first."})
    fake.approve_containing = "Solar"
    found = audited(project, "--orders", "8", "--padding")
    position, length = found["figures"]["panel"]["positionBias"], found["figures"]["panel"]["lengthBias"]
    assert abs(position["estimate"]) < 0.35 and position["low"] <= 0 <= position["high"]
    assert length["estimate"] == 0 and length["ballots"] == 24  # the same verdict on the longer copy
    assert found["ballots"] == 48  # 3 voters, 8 orders, each asked plain and padded


def test_the_re_asks_are_files_priced_first_resumed_and_shown(project, fake):
    voted_round(project, fake)
    before = len(fake.requests)
    priced = project.cli("audit", "swarm-power", "--orders", "2", "--estimate")
    assert priced.exit_code == 0 and "at most 6 calls" in priced.stdout
    assert len(fake.requests) == before and not (project.folder / "audit").exists()
    first = audited(project, "--orders", "2")
    files = sorted(p.name for p in (project.folder / "audit" / "round-1").iterdir())
    assert len(files) == 6 and "alpha--order-1.yaml" in files and first["asked"] == 6
    again = audited(project, "--orders", "2")
    assert again["asked"] == 0 and again["figures"] == first["figures"]  # nothing asked twice
    shown = project.cli("show", "swarm-power").stdout
    assert "its voters asked again (6 ballots)" in shown and "position bias +1.00" in shown
    data = json.loads(project.cli("show", "swarm-power", "--json").stdout)
    assert data["biasExperiment"]["1"]["panel"]["positionBias"]["estimate"] == 1.0
    from sitekit import build

    (project.root / "mkdocs.yml").write_text("site_name: t\ndocs_dir: content\ntheme:\n  name: material\n"
                                              "plugins:\n  - discuss\n")
    site = build(project.root)
    html = (site / "questions" / "swarm-power" / "index.html").read_text()
    assert "Bias experiment: the voters asked again" in html and "the panel: position bias +1.00" in html
    assert not list(site.rglob("*order-1*"))  # the re-asks are the discussion's files, not pages
    exported = project.cli("export", "--csv", str(project.root / "tables"))
    assert exported.exit_code == 0 and "row(s) of bias_experiments.csv" in exported.stdout
    assert exported.stdout.rstrip().endswith("votes.csv, bias_experiments.csv, divergent_views.yaml")
    import csv

    rows = list(csv.DictReader((project.root / "tables" / "bias_experiments.csv").open()))
    panel = next(r for r in rows if r["who"] == "panel" and r["measure"] == "positionBias")
    assert (panel["round"], panel["estimate"], panel["ballots"]) == ("1", "1.0", "6")
    assert {r["who"] for r in rows} == {"panel", "alpha", "beta", "gamma"}


def test_the_re_asks_count_against_the_discussions_budget(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxTokens: 20000}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    before = len(fake.requests)
    refused = project.cli("audit", "swarm-power", "--orders", "10")  # 30 ballots of up to 1,500 tokens each
    assert refused.exit_code == 2 and "budget of 20000 tokens (maxTokens)" in refused.stderr
    assert len(fake.requests) == before and not (project.folder / "audit").exists()
    assert project.cli("audit", "swarm-power", "--orders", "1", "-q").exit_code == 0  # within it


def test_what_cannot_be_audited_is_refused_with_nothing_written(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("audit", "swarm-power").exit_code == 2  # no discussion yet
    assert project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "council", "-q").exit_code == 0
    refused = project.cli("audit", "swarm-power")
    assert refused.exit_code == 2 and "records no ballots to re-ask" in refused.stderr
    assert not (project.folder / "audit").exists()


def test_what_the_re_asks_spent_counts_against_the_budget_of_the_rounds_that_follow(project, fake):
    fake.termination = "CONTINUE"  # the discussion goes on after the audited round
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxCalls: 14}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0  # 6 calls
    assert project.cli("audit", "swarm-power", "--orders", "2", "-q").exit_code == 0  # 6 more: 12 of 14
    before = len(fake.requests)
    stopped = project.cli("run", "swarm-power", "--rounds", "1")  # 3 answers and the conclusion's room: 16
    assert "stopped: budget" in stopped.output, stopped.output
    assert [r["task"] for r in fake.requests[before:]] == ["conclude"]  # no round 2: only the room kept for this


def test_the_re_asks_record_their_cost_and_the_discussion_counts_it(project, fake):
    from discuss.store import discussions as store
    from discuss.store import yamlio

    panel = fake_panel(fake.url, settings="{retryBaseDelay: 0.0}").replace(
        "api_key_env: FAKE_KEY}", "api_key_env: FAKE_KEY, price: {input: 1.0, output: 2.0}}")
    project.write_panels(panel)
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    assert project.cli("audit", "swarm-power", "--orders", "1", "-q").exit_code == 0
    kept = [yamlio.load(p.read_text()) for p in (project.folder / "audit" / "round-1").glob("*.yaml")]
    assert len(kept) == 3 and all(k["usage"]["cost"] > 0 for k in kept)
    d = store.load(project.folder)
    assert d.side_usage.calls == 3 and d.spent.cost == round(d.usage.cost + d.side_usage.cost, 8)


def test_the_offline_panel_answers_an_audit_as_a_demo_would_run_it(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    found = audited(project, "--orders", "2")
    assert found["asked"] == 6 and found["ballots"] == 6  # every re-ask usable, none failed
    assert found["figures"]["panel"]["positionBias"]["ballots"] == 6


def test_what_an_audit_spent_is_shown_as_a_part_of_what_the_discussion_cost(project):
    import json

    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    assert project.cli("audit", "swarm-power", "--orders", "1").exit_code == 0
    shown = project.cli("show", "swarm-power").stdout
    assert re.search(r"audits: \d+ calls", shown)
    spent = json.loads(project.cli("show", "swarm-power", "--json").stdout)["spent"]
    assert spent["audits"]["calls"] > 0
    assert spent["total"]["calls"] == spent["discussion"]["calls"] + spent["audits"]["calls"]
    rows = json.loads(project.cli("status", "--json").stdout)
    assert rows[0]["audits"] == spent["audits"] and rows[0]["spent"]["calls"] == spent["total"]["calls"]
    assert rows[0]["usage"]["calls"] == spent["discussion"]["calls"]
    one = json.loads(project.cli("status", "swarm-power", "--json").stdout)
    assert one[0]["spent"] == rows[0]["spent"]
    table = project.cli("status").stdout
    assert str(rows[0]["spent"]["totalTokens"]) in table and str(rows[0]["usage"]["totalTokens"]) not in table
