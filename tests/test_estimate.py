"""`run --estimate` is an upper bound: the worst scripted run of each protocol makes no more calls than it says.

Each scenario drives a protocol down its longest branch with the scripted
panel (no early stop, the most parts, an escalation, gates that pass); the
estimate, taken before the run, must cover every call the run then makes.
"""

from __future__ import annotations

import re

import pytest

from discuss.store import discussions as store
from scripted import ballot, scripted_panel, write_scripts

IDS = ("ann", "bob", "cy")
NEUTRAL = {i: "NEUTRAL" for i in IDS}

SCENARIOS = {
    "vote": ({i: [{"task": "vote", "json": ballot("CONTINUE", **NEUTRAL)}] for i in IDS}, "", ""),
    "critique": ({i: [{"task": "judge", "json": {"recommendation": 0, "keyFacts": 0, "caveats": 0,
                                                 "reasoning": "apart"}}] for i in IDS}, "", ""),
    "auto": ({}, "stakes: high", ""),
    "council": ({}, "", ""),
    "debate": ({}, "", ""),
    "adversarial": ({}, "", ""),
    "tournament": ({}, "", ""),
    "decompose": ({i: [{"task": "split", "json": {"parts": [{"title": f"P{n}", "question": f"Q{n}?"}
                                                            for n in range(6)]}}] for i in IDS}, "", ""),
    "deliberate": ({i: [{"task": "research", "json": {"findings": "little is known", "confidence": 0.1}},
                        {"task": "triage", "json": {"ambiguity": 1, "complexity": 1, "stakes": 1,
                                                    "contextDependency": 1, "reasoning": "unclear"}}]
                    for i in IDS}, "", "triage: true, "),
}


def estimated_calls(output: str) -> int:
    found = re.search(r"calls:\s+(\d+)", output)
    assert found, output
    return int(found.group(1))


@pytest.mark.parametrize("protocol", list(SCENARIOS))
def test_the_worst_scripted_run_stays_within_the_estimate(project, protocol):
    scripts, front, settings = SCENARIOS[protocol]
    project.write_panels(scripted_panel(IDS, settings=f"{{{settings}retryBaseDelay: 0.0}}"))
    write_scripts(project.root, **{i: scripts.get(i, []) for i in IDS})
    if front:
        project.question.write_text(project.question.read_text().replace("tags: [power]", f"tags: [power]\n{front}"))
    estimate = project.cli("run", "swarm-power", "--protocol", protocol, "--auto", "--estimate")
    assert estimate.exit_code == 0, estimate.output
    assert not project.folder.exists()  # an estimate writes nothing
    run = project.cli("run", "swarm-power", "--protocol", protocol, "--auto")
    assert run.exit_code == 0, run.output
    d = store.load(project.folder)
    assert d.concluded and d.termination_reason in ("max-rounds", "completed")  # the longest branch was taken
    # Scripted worst cases reach the bound exactly: it is an upper bound and not a loose one.
    assert d.usage.calls == estimated_calls(estimate.output)


def test_the_estimate_names_what_it_assumed(project):
    project.write_panels(scripted_panel(IDS))
    write_scripts(project.root, **{i: [] for i in IDS})
    out = project.cli("run", "swarm-power", "--protocol", "critique", "--auto", "--estimate").output
    assert "calls:             20 (3 respond, 12 stance, 4 judge, 1 conclude)" in out
    assert "no early stop (up to 5 rounds in all)" in out and "answers 1600 tokens" in out
    assert "up to 34 more calls if every structured reply (17) must be asked again (voteAttempts 3)" in out


def test_the_estimate_bounds_the_re_asks_too_and_says_so(project, fake):
    from conftest import fake_panel
    from fakeserver import DEFAULT, Action

    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxRounds: 1, voteAttempts: 3}"))
    out = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "--estimate").stdout
    first = estimated_calls(out)
    bound = re.search(r"with every re-ask: at most (\d+) calls, (\d+) prompt", out)
    assert bound and int(bound.group(1)) == first + 4 * 2  # three ballots and the conclusion, each asked twice more
    # the worst real run: every ballot refused twice, then usable
    for model in ("alpha", "beta", "gamma"):
        fake.script(model, DEFAULT, Action(text="no"), Action(text="still no"), DEFAULT)
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1").exit_code == 0
    d = store.load(project.folder)
    assert d.usage.calls == first + 3 * 2 <= int(bound.group(1))
    assert d.usage.prompt_tokens <= int(bound.group(2))


def test_the_estimate_is_a_bound_within_twice_what_answers_that_fill_their_limits_send(project, fake):
    """Counted the same way (our counter over the prompts the server received), the estimate's prompt tokens
    cover a run whose every answer fills its token limit, and are no more than twice them."""
    from conftest import fake_panel
    from discuss.text.tokens import count

    fake.fill = True
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    out = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "council", "--estimate").stdout
    bound = int(re.search(r"prompt tokens:\s+at most (\d+)", out).group(1))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "council", "-q").exit_code == 0
    sent = sum(count(m["content"]) for r in fake.requests for m in r["messages"] if isinstance(m["content"], str))
    answers = [r for r in fake.requests if r["task"] == "respond"]
    assert answers and all(len(r["messages"]) for r in answers)
    assert sent <= bound <= 2 * sent, (sent, bound)  # 4.15x before the stand-ins counted as real text


def test_the_batch_estimate_of_fresh_questions_bounds_each_one_priced_alone(project):
    """Questions alike but for their text are priced from the first of them and what a token of question
    costs; each such price is at least, and close to, what simulating that question alone gives."""
    from discuss.commands.batch import prepare_all
    from discuss.commands.estimating import _Priced, batch_estimate
    from discuss.engine.prepare import Options
    from discuss.store.questions import read_question

    for n, words in enumerate((3, 40, 0, 200, 12)):
        (project.content / "questions" / f"q{n}.md").write_text(
            f"---\ntitle: Question {n} on swarm power?\n---\n\n" + " ".join(["background"] * words) + f" {n}\n")
    questions = [read_question(project.content / "questions" / f"q{n}.md") for n in range(5)]
    prepared, _ = prepare_all(project.root, questions, Options(panel="offline"), False, lambda line: None)
    grouped = {row.slug: row for row in batch_estimate(project.root, prepared).discussions}
    alone = _Priced(project.root)
    for q, d in prepared:
        exact = alone.simulated(q, d)
        row = grouped[q.slug]
        assert row.calls == exact.calls
        assert exact.total_tokens <= row.tokens <= exact.total_tokens * 1.02, (q.slug, row, exact)
