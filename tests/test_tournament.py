"""The tournament and decompose protocols through litellm and the fake server."""

import pytest

from conftest import fake_panel
from discuss.protocols import get_protocol
from discuss.store import discussions as store
from fakeserver import DEFAULT, Action


def run(project, fake, protocol, ids=("alpha", "beta", "gamma"), settings="{retryBaseDelay: 0.01}"):
    judge = f"      judge: {{id: referee, model: openai/referee, api_base: '{fake.url}', api_key_env: FAKE_KEY}}\n"
    project.write_panels(fake_panel(fake.url, ids, settings) + judge)
    return project.cli("run", "swarm-power", "--panel", "fake", "--protocol", protocol)


@pytest.mark.parametrize("ids, rounds", [(("alpha", "beta", "gamma"), [1, 1]), (("alpha", "beta", "gamma", "delta"), [2, 1])])
def test_tournament_knocks_out_until_one_answer_is_left(project, fake, ids, rounds):
    result = run(project, fake, "tournament", ids)
    assert result.exit_code == 0, result.output
    tasks = [r["task"] for r in fake.requests]
    # Each round: both sides of every match argue once, then every match is judged; n - 1 matches in all.
    assert tasks == ["respond"] * len(ids) + [t for n in rounds for t in ["argue"] * 2 * n + ["match"] * n]
    assert all(r["model"] == "referee" for r in fake.requests if r["task"] == "match")
    d = store.load(project.folder)
    assert d.status == "concluded" and d.conclusion is None and d.rounds[-1].notes["champion"] == "alpha"
    played = [m for r in d.rounds[1:] for m in r.notes["matches"]]
    assert len(played) == sum(rounds) and all(m["winner"] == min(m["a"], m["b"]) for m in played)
    losers = {m["a"] if m["winner"] == m["b"] else m["b"] for m in played}
    assert losers == set(ids) - {"alpha"}  # everyone but the champion lost exactly once
    for r in d.rounds[1:]:
        assert len(r.notes["matches"]) * 2 + len(r.notes["byes"]) == len(set(
            x for m in r.notes["matches"] for x in (m["a"], m["b"])) | set(r.notes["byes"]))


def test_the_judge_weighs_each_sides_argument(project, fake):
    fake.script("gamma", DEFAULT, Action(status=500, text="down"), Action(status=500, text="down"),
                Action(status=500, text="down"))
    assert run(project, fake, "tournament").exit_code == 0
    d = store.load(project.folder)
    for r in d.rounds[1:]:
        for i, m in enumerate(r.notes["matches"]):
            argued = {pid for pid in (m["a"], m["b"]) if f"match-{i + 1}-{pid}" in r.replies}
            assert argued == {m["a"], m["b"]} - {"gamma"}
            assert all(r.replies[f"match-{i + 1}-{pid}"].role == "debater" for pid in argued)
    judged = [req["messages"][-1]["content"] for req in fake.requests_for("referee", "match")]
    assert all("## The short debate" in text for text in judged)
    with_gamma = [t for t in judged if "gamma" in t]
    assert with_gamma and all("(nothing: the call failed)" in t for t in with_gamma)
    assert all(f"Argument of {m}" in t for t in judged for m in ("alpha", "beta", "gamma")
               if f"Answer of {m}" in t and m != "gamma")


def test_without_match_debate_the_judge_decides_from_the_answers_alone(project, fake):
    assert run(project, fake, "tournament", settings="{retryBaseDelay: 0.01, matchDebate: false}").exit_code == 0
    assert "argue" not in [r["task"] for r in fake.requests]
    assert not any("The short debate" in r["messages"][-1]["content"] for r in fake.requests)


def test_a_match_that_cannot_be_judged_fails_the_run_then_resumes(project, fake):
    fake.fail_always("referee", status=500)
    result = run(project, fake, "tournament", settings="{retryBaseDelay: 0.01, attempts: 1}")
    assert result.exit_code == 1 and "could not be judged" in result.stderr
    d = store.load(project.folder)
    assert len(d.rounds[0].replies) == 3 and d.rounds[1].failures[0].phase == "match"
    del fake.always["referee"]
    assert project.cli("run", "swarm-power").exit_code == 0
    assert store.load(project.folder).rounds[-1].notes["champion"] == "alpha"
    assert sum(r["task"] == "respond" for r in fake.requests) == 3  # answers were not asked again
    assert sum(r["task"] == "argue" for r in fake.requests) == 4  # nor arguments that were on file


def test_decompose_splits_answers_parts_and_reassembles(project, fake):
    result = run(project, fake, "decompose")
    assert result.exit_code == 0, result.output
    seq = [(r["model"], r["task"]) for r in fake.requests]
    assert seq[0] == ("alpha", "split") and seq[-1] == ("alpha", "conclude")
    assert sorted(seq[1:4]) == [("beta", "part"), ("beta", "part"), ("gamma", "part")]
    for req in fake.requests[1:4]:
        text = req["messages"][-1]["content"]
        assert len(set(__import__("re").findall(r"## Your part: (Part \d)", text))) == 1
    reassemble = fake.requests[-1]["messages"][-1]["content"]
    assert all(f"answers Part {i}" in reassemble for i in (1, 2, 3))
    d = store.load(project.folder)
    parts = d.rounds[1].notes["parts"]
    assert [p["assignee"] for p in parts] == ["beta", "gamma", "beta"]
    assert sorted(d.rounds[1].replies) == ["part-1", "part-2", "part-3"]
    assert d.conclusion.generated_by == "alpha" and d.termination_reason == "completed"


def test_a_split_with_too_few_parts_is_asked_again(project, fake):
    fake.script("alpha", Action(text='{"parts": [{"title": "All", "question": "Everything?"}]}'), DEFAULT)
    assert run(project, fake, "decompose").exit_code == 0
    second = fake.requests_for("alpha", "split")[1]["messages"][-1]["content"]
    assert "give 2 to 6 parts, not 1" in second


def test_a_judge_that_never_gives_a_usable_verdict_crowns_nobody(project, fake):
    fake.always["referee"] = Action(text='{"winner": "A or B", "reasoning": "one short paragraph"}')
    result = run(project, fake, "tournament", settings="{retryBaseDelay: 0.01}")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.status == "closed" and d.termination_reason == "no-valid-verdict"
    assert get_protocol("tournament").result_of(d) is None
    assert all(m["winner"] is None and m["undecided"] for m in d.rounds[1].notes["matches"])
    assert "a judge never gave a usable verdict" in project.cli("show", "swarm-power").stdout
