"""The critique protocol through litellm and the fake server."""

import asyncio
import contextlib
import re
from collections import Counter

from conftest import fake_panel
from discuss.store import discussions as store
from fakeserver import DEFAULT, Action, FakeLLM

IDS = ("alpha", "beta", "gamma")


def panel(url: str, settings: str = "{retryBaseDelay: 0.01}") -> str:
    extra = "".join(
        f"      {role}: {{id: {rid}, model: openai/{rid}, api_base: '{url}', api_key_env: FAKE_KEY}}\n"
        for role, rid in (("judge", "referee"), ("synthesizer", "scribe")))
    return fake_panel(url, IDS, settings) + extra


def run(project, server, *args, settings="{retryBaseDelay: 0.01}"):
    project.write_panels(panel(server.url, settings))
    return project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "critique", "--auto", *args)


def tasks(server):
    return [r["task"] for r in server.requests]


def test_early_exit_when_the_judge_sees_convergence(project, fake):
    result = run(project, fake)
    assert result.exit_code == 0, result.output
    assert tasks(fake) == ["respond"] * 3 + ["stance"] * 3 + ["judge", "conclude"]
    d = store.load(project.folder)
    assert d.termination_reason == "converged" and d.conclusion.generated_by == "scribe"
    r2 = d.rounds[1]
    assert r2.notes["judge"] == {"judgeId": "referee", "recommendation": 0.9, "keyFacts": 0.9,
                                 "caveats": 0.9, "score": 0.9}
    assert r2.notes["convergence"] == {"test": "judge", "value": 0.9, "threshold": 0.85, "converged": True}
    stances = r2.notes["stances"]
    assert set(stances) == set(IDS) and all(s["confidence"] == 0.8 for s in stances.values())
    assert all(len(s["agreements"]) == 1 and len(s["disagreements"]) == 1 for s in stances.values())
    assert {x["with"] for s in stances.values() for x in s["disagreements"]} <= set(IDS)
    assert r2.replies["alpha"].text == "Position of alpha in critique round 1.\n\n## Finding one\n\nKept.\n"
    writer = fake.requests[-1]["messages"][-1]["content"]
    assert "You did not take part in the debate" in writer and "doubts it" in writer


def test_runs_to_max_rounds_without_convergence(project):
    with FakeLLM(judge=0.5) as server:
        result = run(project, server, settings="{retryBaseDelay: 0.01, critiqueRounds: 2}")
        assert result.exit_code == 0, result.output
        assert tasks(server) == ["respond"] * 3 + (["stance"] * 3 + ["judge"]) * 2 + ["conclude"]
    d = store.load(project.folder)
    assert d.termination_reason == "max-rounds" and len(d.rounds) == 3
    assert [r.notes["convergence"]["converged"] for r in d.rounds[1:]] == [False, False]


def test_each_round_reads_only_the_previous_rounds_positions(project):
    with FakeLLM(judge=0.5) as server:
        assert run(project, server, settings="{retryBaseDelay: 0.01, critiqueRounds: 2}").exit_code == 0
        stance = [r for r in server.requests if r["task"] == "stance"]
    for req in stance:
        me, text = req["model"], req["messages"][-1]["content"]
        critique_round = re.search(r"# Critique round (\d)", text).group(1)
        peers = text.split("## Your peers' positions")[1]
        if critique_round == "1":
            assert all(f"Answer of {o} in round 1." in peers for o in IDS if o != me)
            assert "critique round" not in peers
        else:
            assert all(f"Position of {o} in critique round 1." in peers for o in IDS if o != me)
            assert "in round 1." not in peers and "critique round 2" not in text.split("# Critique round 2")[1]
        assert f"of {me} in" not in peers


def test_titles_test_converges_when_findings_settle(project):
    with FakeLLM(judge=0.1) as server:
        result = run(project, server, settings="{retryBaseDelay: 0.01, convergenceTest: titles}")
        assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.termination_reason == "converged" and len(d.rounds) == 3
    assert d.rounds[1].notes["convergence"]["converged"] is False  # round 1 had no titled findings
    assert d.rounds[2].notes["convergence"] == {"test": "titles", "changed": 0, "matching": 1, "titles": 1,
                                                "converged": True}


def test_invalid_critique_and_judge_json_are_asked_again_then_recorded(project, fake):
    fake.script("gamma", DEFAULT, Action(text="no json here"))
    fake.script("referee", *[Action(text='{"recommendation": 2}')] * 3)
    result = run(project, fake, settings="{retryBaseDelay: 0.01, critiqueRounds: 1}")
    assert result.exit_code == 0, result.output
    r2 = store.load(project.folder).rounds[1]
    gamma_asks = [r for r in fake.requests if r["model"] == "gamma" and r["task"] == "stance"]
    assert len(gamma_asks) == 2 and "gamma" in r2.notes["stances"]
    assert "'recommendation' must be a number from 0 to 1" in fake.requests_for("referee")[1]["messages"][-1]["content"]
    (failure,) = r2.failures
    assert failure.phase == "judge" and failure.model_id == "referee" and "from 0 to 1" in failure.error
    assert r2.notes["judge"]["score"] is None and r2.notes["convergence"]["converged"] is False
    assert store.load(project.folder).termination_reason == "max-rounds"


def test_resume_when_the_judge_was_interrupted(project, tmp_path):
    from discuss.engine.gateway import Gateway
    from discuss.engine.runner import Plan, Runner, prompts_for, start
    from discuss.store.panels import pick_panel
    from discuss.store.questions import read_question

    with FakeLLM() as server:
        server.script("referee", Action(delay=60))
        project.write_panels(panel(server.url))
        q = read_question(project.question)
        p, s = pick_panel(project.root / "discussions" / "panels.yaml", "fake")

        async def interrupted():
            task = asyncio.create_task(Runner(Gateway(attempts=1), prompts_for(project.root)).run(
                q, start(q, p, s, "2026-01-01T00:00:00Z", "critique"), Plan(auto=True)))
            while not server.requests_for("referee"):
                await asyncio.sleep(0.02)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

        asyncio.run(interrupted())
        assert project.cli("run", "swarm-power", "--auto").exit_code == 0
        made = Counter((r["model"], r["task"]) for r in server.requests)
    assert made == Counter({**{(m, "respond"): 1 for m in IDS}, **{(m, "stance"): 1 for m in IDS},
                            ("referee", "judge"): 2, ("scribe", "conclude"): 1})
    assert store.load(project.folder).termination_reason == "converged"


def test_max_rounds_bounds_the_critique_rounds_too(project):
    with FakeLLM(judge=0.1) as server:  # never converges
        result = run(project, server, "--max-rounds", "2")
        assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert len(d.rounds) == 2 and d.termination_reason == "max-rounds"
