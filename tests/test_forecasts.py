"""Forecasts: on a `forecast: yes-no` question each panelist's ballot carries its probability of yes each round
(none: an abstention; out of 0..1: asked again), the conclusion records the panel's, `show` gives them by round,
and `discuss scores` grades resolved questions exactly as a hand computation does."""

from __future__ import annotations

import json
import math

import pytest

from conftest import Project
from discuss.store import documents
from scripted import ballot, scripted_panel, write_scripts

IDS = ("ann", "bob", "cy")
# Per question: each member's last-round probability (None: abstains), round 1's, and what happened.
# ann is calibrated, bob overconfident, cy hedges and once abstains.
CASES = {
    "q-one": ({"ann": 0.8, "bob": 1.0, "cy": 0.5}, "yes"),
    "q-two": ({"ann": 0.3, "bob": 0.0, "cy": 0.5}, "no"),
    "q-three": ({"ann": 0.6, "bob": 0.0, "cy": None}, "yes"),
    "q-four": ({"ann": 0.1, "bob": 1.0, "cy": 0.5}, "no"),
}
FIRST = 0.5  # everyone's round-1 probability: what is graded is the last round's


def forecast_ballot(termination: str, p: float | None) -> dict:
    out = ballot(termination, ann="APPROVE", bob="NEUTRAL", cy="NEUTRAL")
    return out if p is None else {**out, "probability": p}


def run_question(project: Project, slug: str, last: dict[str, float | None]) -> None:
    (project.content / "questions" / f"{slug}.md").write_text(
        f"---\ntitle: Will {slug} happen?\nslug: {slug}\nforecast: yes-no\ndecision: yes-no\n---\n\nIt may.\n")
    write_scripts(project.root, **{pid: [
        {"task": "vote", "round": 1, "json": forecast_ballot("CONTINUE", FIRST)},
        {"task": "vote", "round": 2, "json": forecast_ballot("CONCLUDE", p)}] for pid, p in last.items()})
    result = project.cli("run", slug, "--rounds", "2", "-q")
    assert result.exit_code == 0, result.output


@pytest.fixture
def forecasting(project: Project) -> Project:
    project.write_panels(scripted_panel(IDS))
    for slug, (last, _) in CASES.items():
        run_question(project, slug, last)
    return project


def test_each_round_records_each_probability_and_the_conclusion_the_panels(forecasting):
    folder = forecasting.content / "questions" / "q-three"
    from discuss.store import yamlio

    first = yamlio.load((folder / "round-1" / "votes.yaml").read_text())["forecasts"]
    second = yamlio.load((folder / "round-2" / "votes.yaml").read_text())["forecasts"]
    assert first == [{"modelId": i, "probability": FIRST} for i in IDS]
    assert second == [{"modelId": "ann", "probability": 0.6}, {"modelId": "bob", "probability": 0.0}]  # cy abstains
    recorded = documents.read(folder / "conclusion.md")[0]["forecast"]
    assert recorded["probability"] == pytest.approx(0.3) and recorded["members"]["cy"] is None
    data = json.loads(forecasting.cli("show", "q-three", "--json").stdout)["forecasts"]
    assert [r["probabilities"] for r in data["rounds"]] == [{i: FIRST for i in IDS},
                                                            {"ann": 0.6, "bob": 0.0, "cy": None}]
    shown = forecasting.cli("show", "q-three").stdout
    assert "round 2: Ann 0.60, Bob 0.00, Cy -" in shown and "panel: 0.30" in shown
    assert forecasting.cli("verify").exit_code == 0


def test_a_probability_out_of_range_is_asked_again_and_a_question_without_forecast_asks_none(project):
    project.write_panels(scripted_panel(IDS))
    project.question.write_text(project.question.read_text().replace("tags:", "forecast: yes-no\ntags:"))
    write_scripts(project.root, ann=[{"task": "vote", "ask": 1, "json": forecast_ballot("CONCLUDE", 1.7)},
                                     {"task": "vote", "json": forecast_ballot("CONCLUDE", 0.25)}], bob=[], cy=[])
    assert project.cli("run", "swarm-power", "--rounds", "1", "-q").exit_code == 0
    from discuss.store import yamlio

    votes = yamlio.load((project.folder / "round-1" / "votes.yaml").read_text())
    assert {b["voterId"]: b["attempts"] for b in votes["ballots"]}["ann"] == 2
    assert {f["modelId"]: f["probability"] for f in votes["forecasts"]}["ann"] == 0.25


def test_an_ordinary_question_is_asked_for_no_probability(project):
    from discuss.commands.showing import discussion_data

    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1", "-q").exit_code == 0
    assert "probability" not in (project.folder / "round-1" / "votes.yaml").read_text()
    assert "forecasts" not in discussion_data(project.content, "swarm-power")


def by_hand(member: str) -> tuple[int, float, float]:
    pairs = [(last[member], int(answer == "yes")) for last, answer in CASES.values() if last[member] is not None]
    clamp = [(min(max(p, 1e-6), 1 - 1e-6), y) for p, y in pairs]
    return (len(pairs), sum((p - y) ** 2 for p, y in pairs) / len(pairs),
            sum(math.log(p) if y else math.log(1 - p) for p, y in clamp) / len(pairs))


def test_scores_equal_a_hand_computation(forecasting):
    for slug, (_, answer) in CASES.items():
        assert forecasting.cli("resolve", slug, "--outcome", f"It turned out {answer}.", "--answer", answer).exit_code == 0
    result = forecasting.cli("scores", "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["resolved"] == 4 and found["graded"] == 4
    members = {m["member"]: m for m in found["members"]}
    for member in IDS:
        n, brier, log = by_hand(member)
        row = members[member]
        assert row["n"] == n and row["model"] == f"scripted/{member}"
        assert abs(row["brier"]["mean"] - brier) < 1e-6 and abs(row["log"]["mean"] - log) < 1e-6
    assert members["cy"]["abstained"] == 1 and members["ann"]["brier"]["mean"] == pytest.approx(0.075)
    assert members["ann"]["brier"]["low"] < 0.075 < members["ann"]["brier"]["high"]
    (panel,) = found["panels"]
    means = [sum(p for p in last.values() if p is not None) / sum(p is not None for p in last.values())
             for last, _ in CASES.values()]
    outcomes = [int(answer == "yes") for _, answer in CASES.values()]
    assert abs(panel["brier"]["mean"] - sum((p - y) ** 2 for p, y in zip(means, outcomes)) / 4) < 1e-6
    assert panel["protocol"] == "vote" and panel["n"] == 4
    decisions = [documents.read(forecasting.content / "questions" / slug / "conclusion.md")[0].get("decision")
                 for slug in CASES]
    held = sum(d == answer for d, (_, answer) in zip(decisions, CASES.values()))
    assert panel["decisions"]["n"] == sum(d is not None for d in decisions)
    assert panel["decisions"]["bornOut"] == held
    bins = found["calibration"]["members"]
    # 0.8 (yes), 1.0 (yes), 1.0 (no) stated in the top bin; two came true.
    assert sum(b["n"] for b in bins) == 11 and bins[-1]["n"] == 3 and bins[-1]["cameTrue"] == pytest.approx(2 / 3)
    assert len(found["rows"]) == 4 * 4  # each member and the panel, per question
    text = forecasting.cli("scores").stdout
    assert "0.075" in text and "Calibration" in text
    out = forecasting.root / "tables"
    assert forecasting.cli("export", "--csv", str(out)).exit_code == 0
    import csv

    exported = list(csv.DictReader((out / "forecasts.csv").open()))
    assert len(exported) == 16 and {r["member"] for r in exported} == {"ann", "bob", "cy", ""}
    assert float(next(r for r in exported if r["question"] == "q-one" and r["member"] == "ann")["brier"]) \
        == pytest.approx(0.04)


def test_scores_of_an_archive_with_nothing_resolved(project):
    found = json.loads(project.cli("scores", "--json").stdout)
    assert found["resolved"] == 0 and found["members"] == [] and found["panels"] == []


def test_forecasts_given_over_http_are_graded_as_the_server_sent_them(project, fake):
    """A calibrated and an overconfident member answering through the HTTP client: the scores equal those
    computed from the probabilities the server sent, to 1e-6."""
    from conftest import fake_panel
    from fakeserver import Action

    project.write_panels(fake_panel(fake.url, ids=("alpha", "beta")))
    sent = {"h-one": ({"alpha": 0.7, "beta": 0.99}, "yes"), "h-two": ({"alpha": 0.2, "beta": 0.95}, "no"),
            "h-three": ({"alpha": 0.6, "beta": 0.01}, "yes")}
    for slug, (given, answer) in sent.items():
        (project.content / "questions" / f"{slug}.md").write_text(
            f"---\ntitle: Will {slug} happen?\nslug: {slug}\nforecast: yes-no\n---\n\nIt may.\n")
        for pid, p in given.items():
            votes = [{"label": label, "vote": "APPROVE", "reasoning": "fine"} for label in "AB"]
            fake.script(pid, Action(text=f"My answer on {slug}."),
                        Action(text=json.dumps({"votes": votes, "termination": {"vote": "CONCLUDE", "reasoning": "ok"},
                                                "probability": p})))
        result = project.cli("run", slug, "--panel", "fake", "--rounds", "1", "-q")
        assert result.exit_code == 0, result.output
        assert project.cli("resolve", slug, "--outcome", "Known.", "--answer", answer).exit_code == 0
    asked = [r for r in fake.requests if r["task"] == "vote"]
    assert all("probability" in json.dumps(r["messages"]) for r in asked)  # the ballot asks for it
    members = {m["member"]: m for m in json.loads(project.cli("scores", "--json").stdout)["members"]}
    for pid in ("alpha", "beta"):
        pairs = [(given[pid], int(answer == "yes")) for given, answer in sent.values()]
        assert members[pid]["n"] == 3
        assert abs(members[pid]["brier"]["mean"] - sum((p - y) ** 2 for p, y in pairs) / 3) < 1e-6
        assert abs(members[pid]["log"]["mean"] - sum(math.log(p if y else 1 - p) for p, y in pairs) / 3) < 1e-6
    assert members["alpha"]["brier"]["mean"] < members["beta"]["brier"]["mean"]


def test_the_critique_protocol_forecasts_in_its_stances(project):
    """Critique's rounds after the first are structured stances: each carries the probability; the first round's
    free answers carry none, so every member abstains there."""
    project.question.write_text(project.question.read_text().replace("tags:", "forecast: yes-no\nprotocol: critique\ntags:"))
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    data = json.loads(project.cli("show", "swarm-power", "--json").stdout)["forecasts"]
    rounds = [r["probabilities"] for r in data["rounds"]]
    assert set(rounds[0].values()) == {None} and len(rounds) >= 2
    assert all(0 < p <= 1 for r in rounds[1:] for p in r.values())
    assert data["panel"]["probability"] == pytest.approx(sum(rounds[-1].values()) / len(rounds[-1]))
    assert documents.read(project.folder / "conclusion.md")[0]["forecast"]["members"] == rounds[-1]
    assert project.cli("verify").exit_code == 0
