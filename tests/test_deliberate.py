"""The deliberate protocol: isolated personas, weighted ranking, gates, conformity."""


import pytest

from conftest import fake_panel
from discuss.protocols.deliberate.personas import SHIPPED as LIBRARY
from discuss.protocols.deliberate.rules import consensus, gate_one, threshold, weighted
from discuss.store import discussions as store
from discuss.store.personas import load_personas
from fakeserver import DEFAULT, Action

DIMS = ("impact", "quality", "feasibility", "reusability", "risk")


def run(project, fake, task_type="default", settings="{timeoutSeconds: 5, attempts: 3, retryBaseDelay: 0.01}"):
    text = project.question.read_text().replace("tags: [power]", f"tags: [power]\ntaskType: {task_type}")
    project.question.write_text(text)
    project.write_panels(fake_panel(fake.url, settings=settings))
    return project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "deliberate")


def test_a_projects_personas_add_to_the_shipped_ones_and_replace_one_of_the_same_id(tmp_path):
    (tmp_path / "contrarian.yaml").write_text("name: Our contrarian\npriorities: doubt\n")
    (tmp_path / "ethicist.yaml").write_text("name: Ethicist\npriorities: harm\n")
    library = load_personas(tmp_path, LIBRARY)
    assert library["contrarian"]["name"] == "Our contrarian" and library["ethicist"]["priorities"] == "harm"
    assert "security-analyst" in library
    # The store knows no protocol's folder: the protocol names where its personas ship.
    assert set(load_personas(tmp_path)) == {"contrarian", "ethicist"}


def rank(scores: dict[str, float], concern: str = "", confidence: float = 0.8) -> Action:
    import json

    return Action(text=json.dumps({"scores": [{"alternative": a, **{d: v for d in DIMS}} for a, v in scores.items()],
                                   "concern": concern, "confidence": confidence}))


def test_the_library_has_at_least_ten_personas_with_priorities(tmp_path):
    library = load_personas(tmp_path / "none", LIBRARY)  # a project with no persona folder: the ones shipped
    assert len(library) >= 10 and set(library) == {p.stem for p in LIBRARY.glob("*.yaml")}
    assert all(p["priorities"] for p in library.values())
    assert all(c in library for p in library.values() for c in p["conflictsWith"])


def test_personas_research_alone_then_rank_every_alternative(project, fake):
    result = run(project, fake)
    assert result.exit_code == 0, result.output
    assert [r["task"] for r in fake.requests] == ["research"] * 3 + ["alternatives"] + ["rank"] * 3 + ["conclude"]
    for req in fake.requests:
        text = req["messages"][-1]["content"]
        if req["task"] == "research":
            assert "Research by" not in text  # no persona sees another's research
        if req["task"] == "rank":
            assert text.count("Research by") == 1 and f"Research by {req['model']}" in text
    assert all(f"Research by {m}" in fake.requests[3]["messages"][-1]["content"] for m in ("alpha", "beta", "gamma"))
    d = store.load(project.folder)
    assert [d.personas[m]["id"] for m in ("alpha", "beta", "gamma")] == [
        "technical-architect", "security-analyst", "performance-engineer"]
    notes = d.rounds[2].notes
    assert notes["consensus"]["best"] == "A" and notes["consensus"]["score"] == 0.9
    title = d.rounds[1].notes["alternatives"][0]["title"]
    assert notes["consensus"]["bestTitle"] == title and f"consensus 0.9 on A ({title!r})" in result.output
    assert f"on A ({title!r}) against" in project.cli("show", "swarm-power").stdout  # the alternative, named
    assert notes["gate1"]["passed"] and notes["gate2"]["passed"]
    assert any("cluster" in w for w in notes["conformity"])  # every persona gave A exactly 0.9
    assert d.conclusion is not None and d.termination_reason == "completed"


def test_gate_one_fails_for_an_unexplained_dissent(project, fake):
    fake.script("gamma", DEFAULT, rank({"A": 0.1, "B": 0.9}, concern=""))
    result = run(project, fake)
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    gate = d.rounds[2].notes["gate1"]
    failed = [c for c in gate["checks"] if not c["passed"]]
    assert [c["check"] for c in failed] == ["threshold met", "dissent has reasons"]
    assert "without a reason: gamma" in failed[1]["detail"]
    assert d.termination_reason == "gate-failed" and d.conclusion is None
    assert d.status == "closed"  # ended, but nothing concluded
    assert [r["task"] for r in fake.requests][-1] == "rank"  # no decision was asked for
    assert "closed" in project.cli("status").output


def test_gate_one_needs_the_configured_number_of_personas(project, fake):
    assert run(project, fake, settings="{retryBaseDelay: 0.01, minPersonas: 4}").exit_code == 0
    d = store.load(project.folder)
    failed = [c for c in d.rounds[2].notes["gate1"]["checks"] if not c["passed"]]
    assert [(c["check"], c["detail"]) for c in failed] == [("enough personas", "3 finished, 4 needed")]
    assert d.termination_reason == "gate-failed" and d.conclusion is None


def test_gate_two_fails_when_confidence_did_not_improve(project, fake):
    for model in ("alpha", "beta", "gamma"):
        fake.script(model, Action(text='{"findings": "Sure of it.", "confidence": 0.95}'))
    assert run(project, fake).exit_code == 0
    d = store.load(project.folder)
    gate = d.rounds[2].notes["gate2"]
    assert not gate["passed"] and d.rounds[2].notes["gate1"]["passed"]
    assert [c["check"] for c in gate["checks"] if not c["passed"]] == ["confidence improved"]
    # Gate 2 blocks as gate 1 does: no decision is shipped that lacks rigour.
    assert d.termination_reason == "gate-failed" and d.conclusion is None and d.status == "closed"
    assert "conclude" not in [r["task"] for r in fake.requests]


def test_copied_concerns_raise_a_conformity_warning(project, fake):
    same = "The rollout plan ignores the maintenance burden on the operations team."
    for model in ("alpha", "beta", "gamma"):
        before = [DEFAULT, DEFAULT] if model == "alpha" else [DEFAULT]  # alpha, the chair, also proposes
        fake.script(model, *before, rank({"A": 0.9, "B": 0.3}, concern=same))
    assert run(project, fake).exit_code == 0
    warnings = store.load(project.folder).rounds[2].notes["conformity"]
    assert "alpha and beta word their concerns alike" in warnings
    decision = fake.requests_for("alpha", "conclude")[0]["messages"][-1]["content"]
    assert "## Conformity warnings" in decision and "- alpha and beta word their concerns alike" in decision


def triage(**scores) -> Action:
    import json

    return Action(text=json.dumps({**scores, "reasoning": "rated by the chair"}))


def test_triage_lets_an_uncertain_question_deliberate(project, fake):
    fake.script("alpha", triage(ambiguity=0.8, complexity=0.8, stakes=0.2, contextDependency=0.0))
    assert run(project, fake, settings="{retryBaseDelay: 0.01, triage: true}").exit_code == 0
    d = store.load(project.folder)
    assert [r.stage for r in d.rounds] == ["triage", "research", "alternatives", "ranking"]
    assert d.rounds[0].notes["triage"]["confidence"] == 0.55 and d.rounds[0].notes["triage"]["deliberate"]
    assert [r["task"] for r in fake.requests][0] == "triage" and d.conclusion is not None


def test_triage_lets_the_chair_answer_a_question_high_on_one_dimension_only(project, fake):
    fake.script("alpha", triage(ambiguity=0.0, complexity=1.0, stakes=0.0, contextDependency=0.0))
    assert run(project, fake, settings="{retryBaseDelay: 0.01, triage: true}").exit_code == 0
    d = store.load(project.folder)
    assert [r["task"] for r in fake.requests] == ["triage", "conclude"]
    assert d.termination_reason == "confident" and d.rounds[0].notes["triage"]["confidence"] == 0.75
    assert d.status == "concluded" and d.conclusion.generated_by == "alpha"
    assert "confidence 0.75" in fake.requests[-1]["messages"][-1]["content"]


@pytest.mark.parametrize("task_type, bar", [("security", 0.85), ("architecture", 0.80), ("default", 0.70),
                                            ("refactoring", 0.65), ("documentation", 0.50), ("unknown", 0.70)])
def test_task_adaptive_thresholds(task_type, bar):
    assert threshold(task_type) == bar


def test_weighted_consensus_by_hand():
    scores = {"impact": 1.0, "quality": 0.5, "feasibility": 0.0, "reusability": 1.0, "risk": 0.0}
    assert weighted(scores) == 0.25 + 0.125 + 0.15  # .25*1 + .25*.5 + .15*1
    half = {d: 0.5 for d in DIMS}
    result = consensus({"x": {"scores": {"A": scores, "B": half}}, "y": {"scores": {"A": half, "B": half}}})
    assert result["means"] == {"A": 0.5125, "B": 0.5} and result["best"] == "A"
    assert result["preferred"] == {"x": "A", "y": "A"}  # y's tie goes to the first alternative
    assert gate_one(True, {"x": {}, "y": {}}, result, 0.7)["passed"] is False
