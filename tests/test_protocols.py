"""The council family through litellm and the fake server: calls, visibility, files, resume."""

import asyncio
import contextlib
import re
from collections import Counter

import pytest

from conftest import Project, fake_panel
from discuss.store import discussions as store
from discuss.store import yamlio
from fakeserver import DEFAULT, Action, FakeLLM
from test_cli import files_of, without_stamps

IDS = ("alpha", "beta", "gamma")


def panel_with_chair(url: str, ids=IDS) -> str:
    text = fake_panel(url, ids)
    chair = f"      chairman: {{id: chair, model: openai/chair, name: Chair, api_base: '{url}', api_key_env: FAKE_KEY}}\n"
    return text + chair


def run(project: Project, fake: FakeLLM, protocol: str, *args, panel: str | None = None):
    project.write_panels(panel or panel_with_chair(fake.url))
    return project.cli("run", "swarm-power", "--panel", "fake", "--protocol", protocol, *args)


def calls(fake: FakeLLM) -> list[tuple[str, str]]:
    return [(r["model"], r["task"]) for r in fake.requests]


def prompt(req) -> str:
    return req["messages"][-1]["content"]


def test_council_is_n_answers_then_the_chairman(project, fake):
    result = run(project, fake, "council")
    assert result.exit_code == 0, result.output
    seq = calls(fake)
    assert sorted(seq[:3]) == [(m, "respond") for m in IDS] and seq[3:] == [("chair", "conclude")]
    d = store.load(project.folder)
    assert d.concluded and d.termination_reason == "completed" and d.conclusion.generated_by == "chair"
    assert {r.role for r in d.rounds[0].replies.values()} == {"respondent"}
    synthesis = prompt(fake.requests[-1])
    assert all(f"Answer of {m} in round 1." in synthesis for m in IDS)
    names = set(files_of(project.folder))
    assert {"round-1/alpha.md", "round-1/round.yaml", "conclusion.md", "discussion.yaml"} <= names
    notes = yamlio.load((project.folder / "round-1" / "round.yaml").read_text())
    assert notes["stage"] == "positions" and len(notes["similarity"]) == 3 and 0 <= notes["agreement"] <= 1
    assert "chairman:" in (project.folder / "discussion.yaml").read_text()


def test_debate_rounds_see_what_they_should(project, fake):
    result = run(project, fake, "debate")
    assert result.exit_code == 0, result.output
    seq = calls(fake)
    assert len(seq) == 3 * 3 + 1
    assert [t for _, t in seq] == ["respond"] * 3 + ["critique"] * 3 + ["rebut"] * 3 + ["conclude"]
    d = store.load(project.folder)
    critiques = d.rounds[1].notes["critiques"]
    assert len(critiques) == 6 and {(c["critic"], c["target"]) for c in critiques} == {
        (a, b) for a in IDS for b in IDS if a != b}
    for req in fake.requests:
        me, text = req["model"], prompt(req)
        if req["task"] == "critique":
            own = text.split("## Your own answer from round 1")[1].split("## Your peers' answers")[0]
            assert f"Answer of {me} in round 1." in own
            peers = text.split("## Your peers' answers")[1]
            assert all(f"Answer of {o} in round 1." in peers for o in IDS if o != me)
            assert f"Answer of {me} in round 1." not in peers
        if req["task"] == "rebut":
            shown = set(re.findall(r"(\w+ critiques answer [A-Z]\.)", text))
            expected = {c["critique"] for c in critiques if c["target"] == me}
            assert shown == expected and len(shown) == 2
    assert [r.stage for r in d.rounds] == ["positions", "cross-examination", "rebuttal"]
    assert {r.role for r in d.rounds[2].replies.values()} == {"rebuttal"}
    assert "Revised answer of alpha." in prompt(fake.requests[-1])  # the chairman sees the revised answers


def test_debate_without_chairman_ends_without_a_conclusion(project, fake):
    settings = "{retryBaseDelay: 0.01, debateChairman: false}"
    result = run(project, fake, "debate", panel=fake_panel(fake.url, settings=settings))
    assert result.exit_code == 0, result.output
    assert len(fake.requests) == 9
    d = store.load(project.folder)
    assert d.concluded and d.conclusion is None and not (project.folder / "conclusion.md").exists()


def test_adversarial_reviewers_never_see_each_other(project, fake):
    result = run(project, fake, "adversarial")
    assert result.exit_code == 0, result.output
    seq = calls(fake)
    assert seq[0] == ("alpha", "respond") and sorted(seq[1:3]) == [("beta", "review"), ("gamma", "review")]
    assert seq[3] == ("chair", "conclude") and len(seq) == 2 + 2  # k + 2
    for req in fake.requests[1:3]:
        text = prompt(req)
        assert "Answer of alpha in round 1." in text
        assert "Review by" not in text
    converger = prompt(fake.requests[3])
    assert "Review by beta" in converger and "Review by gamma" in converger
    d = store.load(project.folder)
    assert [r.role for r in d.rounds[1].replies.values()] == ["reviewer", "reviewer"]
    assert d.rounds[0].replies["alpha"].role == "drafter"


def test_auto_stays_a_council_when_the_panel_agrees(project, fake):
    assert run(project, fake, "auto").exit_code == 0
    assert [t for _, t in calls(fake)] == ["respond"] * 3 + ["conclude"]
    escalation = store.load(project.folder).rounds[0].notes["escalation"]
    assert escalation["debate"] is False and "reaches 0.5" in escalation["reason"]


def test_auto_escalates_to_a_debate_when_agreement_is_low(project, fake):
    fake.script("alpha", Action(text="Beam microwave power down to rectenna farms on Earth."))
    fake.script("beta", Action(text="Governance committees should vote on orbital slot allocation."))
    fake.script("gamma", Action(text="Quarterly revenue projections depend on manufacturing yields."))
    result = run(project, fake, "auto")
    assert result.exit_code == 0, result.output
    assert [t for _, t in calls(fake)] == ["respond"] * 3 + ["critique"] * 3 + ["rebut"] * 3 + ["conclude"]
    d = store.load(project.folder)
    assert d.rounds[0].agreement < 0.5 and d.rounds[0].notes["escalation"]["debate"] is True
    assert "below 0.5" in result.stderr


def test_protocol_comes_from_the_question_and_cannot_change(project, fake):
    project.question.write_text(project.question.read_text().replace("tags: [power]", "tags: [power]\nprotocol: council"))
    project.write_panels(panel_with_chair(fake.url))
    assert project.cli("run", "swarm-power", "--panel", "fake").exit_code == 0
    assert store.load(project.folder).protocol == "council"
    again = project.cli("run", "swarm-power", "--protocol", "debate")
    assert again.exit_code == 2 and "runs the 'council' protocol, not 'debate'" in again.stderr
    bad = Project(project.root.parent / "other")
    result = bad.cli("run", "swarm-power", "--panel", "offline", "--protocol", "nope")
    assert result.exit_code == 2 and "unknown protocol 'nope'" in result.stderr


def normalised(folder):
    return {k: re.sub(r"latencyMs: \d+", "latencyMs: <ms>", v) for k, v in without_stamps(files_of(folder)).items()}


# (protocol, the model whose call hangs, how many of its calls go through first, files that must exist first;
# "a|b" means either)
INTERRUPTIONS = [
    ("council", "chair", 0, ["round-1/round.yaml"]),
    ("debate", "gamma", 2, ["round-3/alpha.md", "round-3/beta.md"]),
    ("adversarial", "gamma", 0, ["round-2/beta.md"]),
    ("auto", "beta", 0, ["round-1/alpha.md", "round-1/gamma.md"]),
    # beta answers parts 1 and 3 at once; one hangs, and the other must be saved before the cancel
    ("decompose", "beta", 0, ["round-2/part-2.md", "round-2/part-1.md|round-2/part-3.md"]),
    ("deliberate", "gamma", 1, ["round-3/alpha.md", "round-3/beta.md"]),
]


@pytest.mark.parametrize("protocol, model, before, files", INTERRUPTIONS)
def test_resume_after_an_interruption_mid_protocol(project, tmp_path, protocol, model, before, files):
    from discuss.engine.gateway import Gateway
    from discuss.engine.runner import Plan, Runner, prompts_for, start
    from discuss.protocols.deliberate.personas import SHIPPED, assign
    from discuss.store.panels import pick_panel
    from discuss.store.personas import load_personas
    from discuss.store.questions import read_question

    with FakeLLM() as fake:
        fake.script(model, *[DEFAULT] * before, Action(delay=60))
        project.write_panels(panel_with_chair(fake.url))
        q = read_question(project.question)
        panel, settings = pick_panel(project.root / "discussions" / "panels.yaml", "fake")

        async def interrupted():
            d = start(q, panel, settings, "2026-01-01T00:00:00Z", protocol)
            if protocol == "deliberate":
                d.personas = assign(load_personas(project.root / "none", SHIPPED), panel.ids, "")  # the shipped ones
            task = asyncio.create_task(Runner(Gateway(attempts=1), prompts_for(project.root)).run(q, d, Plan()))
            for _ in range(1000):
                hung = len(fake.requests_for(model)) > before
                if hung and all(any((project.folder / alt).is_file() for alt in f.split("|")) for f in files):
                    break
                await asyncio.sleep(0.02)
            else:
                raise AssertionError("the run never reached the hanging call")
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

        asyncio.run(interrupted())
        assert not store.load(project.folder).concluded
        hung_call = (model, fake.requests_for(model)[-1]["task"])
        result = project.cli("run", "swarm-power")
        assert result.exit_code == 0, result.output
        made = Counter((r["model"], r["task"]) for r in fake.requests)

    with FakeLLM() as clean:
        other = Project(tmp_path / "clean")
        other.write_panels(panel_with_chair(clean.url))
        assert other.cli("run", "swarm-power", "--panel", "fake", "--protocol", protocol).exit_code == 0
        needed = Counter((r["model"], r["task"]) for r in clean.requests)
    # every call that finished before the interruption was not made again; the one in flight was
    assert made == needed + Counter([hung_call])
    assert normalised(project.folder) == normalised(other.folder)


def test_auto_debates_when_the_stakes_are_high_even_if_the_panel_agrees(project, fake):
    project.question.write_text(project.question.read_text().replace("tags: [power]", "tags: [power]\nstakes: high"))
    result = run(project, fake, "auto")
    assert result.exit_code == 0, result.output
    assert [t for _, t in calls(fake)] == ["respond"] * 3 + ["critique"] * 3 + ["rebut"] * 3 + ["conclude"]
    escalation = store.load(project.folder).rounds[0].notes["escalation"]
    assert escalation["debate"] is True and escalation["reason"] == "the question's stakes are high: the panel debates"
    assert escalation["agreement"] >= 0.5  # it would have stayed a council on agreement alone


def test_stakes_take_known_words_only(project):
    project.question.write_text(project.question.read_text().replace("tags: [power]", "tags: [power]\nstakes: huge"))
    result = project.cli("run", "swarm-power", "--panel", "offline", "--protocol", "auto")
    assert result.exit_code == 2 and "stakes" in result.stderr


def test_auto_sends_the_review_of_an_artefact_to_the_adversarial_council(project, fake):
    project.question.write_text(project.question.read_text().replace("tags: [power]", "tags: [power]\ntaskType: review"))
    result = run(project, fake, "auto")
    assert result.exit_code == 0, result.output
    assert calls(fake)[0] == ("alpha", "respond")
    assert [t for _, t in calls(fake)] == ["respond"] + ["review"] * 2 + ["conclude"]
    d = store.load(project.folder)
    assert [r.stage for r in d.rounds] == ["draft", "review"]
    assert d.rounds[0].notes["route"]["protocol"] == "adversarial" and "'review'" in d.rounds[0].notes["route"]["reason"]
    assert d.conclusion.generated_by != "alpha"  # the converger did not draft


def test_auto_records_that_an_ordinary_question_goes_to_the_council(project, fake):
    assert run(project, fake, "auto").exit_code == 0
    assert store.load(project.folder).rounds[0].notes["route"]["protocol"] == "council"
