"""`discuss eval`: a panel whose members answer with known accuracies is measured as they are; resumed runs ask
nothing twice; an estimate writes nothing; the grader and the statistics are pinned."""

from __future__ import annotations

import json
import re

import pytest

from conftest import fake_panel
from discuss.rules.evalstats import mcnemar, paired, plurality, wilson
from discuss.text.grading import grade, read_answer
from fakeserver import Action

ITEM = re.compile(r"What is the result of (\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+)\?")


def truth(prompt: str) -> tuple[int, int] | None:
    found = ITEM.search(prompt)
    if not found:
        return None
    a, b, c, d, e, f = map(int, found.groups())
    return a + b * c + d - e * f, a


def responder(model: str, messages: list[dict]) -> str | None:
    """alpha is always right; beta right when the item's first number is even; gamma always wrong, and wrong
    the way beta is (correlated errors)."""
    prompt = messages[-1]["content"] if isinstance(messages[-1]["content"], str) else ""
    found = truth(prompt)
    if found is None or '"votes"' in prompt or "ballot" in prompt.lower() or "conclusion" in prompt.lower():
        return None
    value, first = found
    right = model == "alpha" or (model == "beta" and first % 2 == 0)
    return f"Working it out step by step.\n\nAnswer: {value if right else value + 1}"


@pytest.fixture
def evaluated(project, fake):
    fake.responder = responder
    project.write_panels(fake_panel(fake.url))
    return project


def run_eval(project, *args):
    result = project.cli("eval", "arithmetic", "--panel", "fake", "--items", "12", "--seed", "3", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_arms_measure_what_the_members_do(evaluated, fake):
    found = run_eval(evaluated, "--arms", "single:alpha,single:gamma,majority,single:beta")
    arms = found["arms"]
    assert arms["single:alpha"]["accuracy"]["estimate"] == 1.0
    assert arms["single:gamma"]["accuracy"]["estimate"] == 0.0
    from discuss.store.evalsets import arithmetic

    items = arithmetic(12, 3).items
    even = sum(int(ITEM.search(i.question).group(1)) % 2 == 0 for i in items)
    assert arms["single:beta"]["correct"] == even
    assert arms["majority"]["correct"] == even  # beta and gamma err alike: where beta errs, the plurality does
    low, high = arms["majority"]["accuracy"]["low"], arms["majority"]["accuracy"]["high"]
    assert low <= even / 12 <= high
    assert found["paired"]["single:alpha vs majority"]["difference"] == round((12 - even) / 12, 4)
    assert arms["majority"]["callsPerItem"] == 3 and arms["single:alpha"]["callsPerItem"] == 1
    assert (evaluated.root / "evals" / "arithmetic" / "report.yaml").is_file()
    asked = len(fake.requests)
    again = run_eval(evaluated, "--arms", "single:alpha,single:gamma,majority,single:beta")
    assert len(fake.requests) == asked and again["arms"] == arms  # resumed: nothing asked twice


def test_a_protocol_arm_and_self_consistency_at_the_compute_shown(evaluated):
    found = run_eval(evaluated, "--arms", "vote,single:alpha,self-consistency:alpha")
    vote, sc = found["arms"]["vote"], found["arms"]["self-consistency:alpha"]
    assert vote["items"] == 12 and vote["byRound"] and vote["tokensPerItem"] > 0
    assert sc["accuracy"]["estimate"] == 1.0 and sc["callsPerItem"] > 1
    assert found["diversity"]["oneFamily"] is False or found["diversity"]["families"]


def test_an_estimate_writes_nothing_and_a_bad_set_is_refused(evaluated, fake):
    before = evaluated.snapshot()
    priced = run_eval(evaluated, "--arms", "vote,majority", "--estimate")
    assert priced["total"]["calls"] > 0 and fake.requests == [] and evaluated.snapshot() == before
    (evaluated.root / "evals").mkdir()
    (evaluated.root / "evals" / "mine.jsonl").write_text('{"id": "q1", "question": "2+2?", "answer": 4, '
                                                          '"answerType": "number", "anwser": 5}\n')
    result = evaluated.cli("eval", "mine", "--panel", "fake")
    assert result.exit_code == 2 and "anwser" in result.stderr
    assert evaluated.cli("eval", "arithmetc", "--panel", "fake").exit_code == 2
    assert evaluated.cli("eval", "arithmetic", "--panel", "fake", "--arms", "single:nobody").exit_code == 2


@pytest.mark.parametrize("text, kind, answer, expected", [
    ("So the total is 12.\nAnswer: 1,024", "number", "1024", ("1024", True)),
    ("Answer: 3.0", "number", "3", ("3", True)),
    ("I think 7, maybe 8.", "number", "8", ("8", True)),
    ("no number here", "number", "1", (None, None)),
    ("Answer: (C)", "choice", "C", ("C", True)),
    ("The best option is B", "choice", "C", ("B", False)),
    ("Answer: Paris.", "text", "paris", ("paris", True)),
])
def test_the_grader(text, kind, answer, expected):
    assert grade(text, answer, kind) == expected


@pytest.mark.parametrize("text, kind, answer, expected", [
    ("Answer: B (I am fairly sure)", "choice", "B", ("B", True)),  # a letter is a whole token, not the "I"
    ("Answer: C, I think.", "choice", "C", ("C", True)),
    ("Answer: B or C", "choice", "B", (None, None)),  # two values named: ungradable, whichever is right
    ("Answer: 12 or 13", "number", "12", (None, None)),
    ("Answer: 12 or 13", "number", "13", (None, None)),
    ("Answer: 42 (6 times 7)", "number", "42", ("42", True)),  # a remark in brackets is no part of it
    ("So the total is 12.\nAnswer: 1,024", "number", "1024", ("1024", True)),
])
def test_the_grader_reads_a_whole_token_and_refuses_two_values(text, kind, answer, expected):
    assert grade(text, answer, kind) == expected


TRUE_FALSE = ("False", "True")


@pytest.mark.parametrize("rule", ["answer-line", "bbh"])
@pytest.mark.parametrize("text, answer, expected", [
    ("not ( True ) is False, so the expression is False.\nThe answer is False.", "False", ("false", True)),
    ("Let me see: True and True.\nthe final answer is true", "True", ("true", True)),
    ("sure", "True", (None, None)),  # a small model's replies that say nothing gradable
    ("exclamation!", "False", (None, None)),
    ("It could be True or False.", "True", (None, None)),
    ("Answer: maybe", "True", (None, None)),  # outside the closed list: ungradable, never wrong
])
def test_a_closed_list_reads_only_its_values(rule, text, answer, expected):
    assert grade(text, answer, "text", (), rule, TRUE_FALSE) == expected


@pytest.mark.parametrize("rule, text, expected", [
    ("gsm8k-strict", "48/2 = 24 in May, 48+24 = 72.\nThe answer is 72.", "72"),  # lm-evaluation-harness strict
    ("gsm8k-strict", "48+24 = 72 clips in all.", None),  # no "The answer is N": nothing read
    ("gsm8k-flexible", "48+24 = 72 clips in all, $1,000 spent.", "1000"),  # the last number
    ("bbh", "Step by step. So the answer is (B).", "B"),
    ("bbh", "I would go with (C) here.", "C"),  # the multiple-choice fallback: the last (X)
    ("bbh", "I would go with (Z) here.", None),  # not one of the letters offered
])
def test_the_extraction_rules_of_the_literature(rule, text, expected):
    kind = "number" if rule.startswith("gsm8k") else "choice"
    assert read_answer(text, kind, rule, ("A", "B", "C") if kind == "choice" else ()) == expected


def test_a_shipped_set_declares_its_closed_list_and_rule(evaluated):
    from discuss.store.evalsets import load_set

    found = load_set(evaluated.root, "bbh-boolean-expressions", 3, 0)
    assert found.rule == "answer-line" and all(i.choices == ("False", "True") for i in found.items)
    assert all(len(i.choices) >= 3 for i in load_set(evaluated.root, "mmlu", 5, 0).items)  # its letters


def test_the_statistics():
    assert wilson(0, 0)["estimate"] is None
    w = wilson(8, 10)
    assert w["low"] < 0.8 < w["high"] and 0 <= w["low"] and w["high"] <= 1
    assert mcnemar(0, 0) == 1.0 and mcnemar(0, 10) < 0.01
    p = paired([True] * 10, [False] * 10, seed=1)
    assert p["difference"] == 1.0 and p["low"] == 1.0 and p["aWins"] == 10
    assert plurality(["3", None, "4", "3"]) == "3" and plurality([None]) is None
    assert read_answer("Answer: 5\nAnswer: 6", "number") == "6"


def test_the_mcp_eval_tool_prices_then_starts_then_reports(evaluated):
    import asyncio
    import time

    from mcp import Client

    from discuss.mcp_server.server import build

    def call(arguments):
        async def go():
            async with Client(build(evaluated.root)) as client:
                return await client.call_tool("eval", arguments)
        return asyncio.run(go())

    args = {"labelled": "arithmetic", "panel": "fake", "arms": "single:alpha,majority", "items": 4}
    priced = call(args).structured_content
    assert priced["estimate"] is True and priced["total"]["calls"] == 16
    assert list(priced) == ["estimate", "items", "arms", "total"] and list(priced["total"]) == ["calls", "tokens",
                                                                                                  "cost"]
    started = call(args | {"estimate": False}).structured_content
    assert started["started"] is True
    assert list(started) == ["started", "running", "folder", "estimate", "state", "items", "calls", "tokens",
                             "notStarted"]
    for _ in range(120):
        found = call(args | {"estimate": False}).structured_content
        if "arms" in found and "estimate" not in found:
            break
        time.sleep(0.5)
    assert found["arms"]["single:alpha"]["accuracy"]["estimate"] == 1.0


def test_the_shipped_sets_carry_their_source_and_licence_and_grade_their_own_answers(evaluated, fake):
    """Each set in the package names its source and a licence whose text is beside it; every item's own answer,
    written as a member would, is graded right (no item the grader cannot read)."""
    from discuss.store.evalsets import SHIPPED, built_in, load_set

    shipped = [name for name in built_in() if name != "arithmetic"]
    assert {"gsm8k", "bbh-date-understanding", "bbh-logical-deduction-three-objects",
            "bbh-boolean-expressions", "mmlu"} <= set(shipped)
    for name in shipped:
        found = load_set(evaluated.root, name, None, 0)
        licence = re.search(r"\((LICENSE-[a-z0-9]+\.txt)\)", found.licence)
        assert found.source and licence and "MIT License" in (SHIPPED / licence.group(1)).read_text()
        assert all(grade(f"Working.\nAnswer: {i.answer}", i.answer, i.kind, i.aliases)[1] for i in found.items)
    assert len(load_set(evaluated.root, "gsm8k", None, 0).items) == 200
    mmlu = load_set(evaluated.root, "mmlu", None, 0).items
    subjects = [i.id.rsplit("-", 1)[0] for i in mmlu]
    assert len(mmlu) == 228 and len(set(subjects)) == 57 and len(set(subjects[:57])) == 57  # any first N spread
    assert all(i.kind == "choice" and "\n(D) " in i.question for i in mmlu)
    answers = {i.question: i.answer for i in load_set(evaluated.root, "gsm8k", 3, 0).items}

    def knows(model: str, messages: list[dict]) -> str | None:
        prompt = messages[-1]["content"] if isinstance(messages[-1]["content"], str) else ""
        return next((f"Answer: {a}" for q, a in answers.items() if q in prompt), None)

    fake.responder = knows
    result = evaluated.cli("eval", "gsm8k", "--panel", "fake", "--items", "3", "--arms", "single:alpha", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["arms"]["single:alpha"]["correct"] == 3


def test_the_items_table_is_written_beside_the_report_and_exported(evaluated):
    import csv
    import io

    found = run_eval(evaluated, "--arms", "single:alpha,single:gamma,majority")
    table = list(csv.DictReader(io.StringIO((evaluated.root / "evals" / "arithmetic" / "items.csv").read_text())))
    assert len(table) == 12 * 3 and {r["arm"] for r in table} == {"single:alpha", "single:gamma", "majority"}
    for arm, figures in found["arms"].items():
        assert sum(r["correct"] == "True" for r in table if r["arm"] == arm) == figures["correct"]
    alpha = next(r for r in table if r["arm"] == "single:alpha")
    assert alpha["read"] == alpha["answer"] and alpha["calls"] == "1"
    exported = evaluated.cli("export", "--csv", str(evaluated.root / "out"))
    assert exported.exit_code == 0, exported.output
    again = list(csv.DictReader(io.StringIO((evaluated.root / "out" / "eval_items.csv").read_text())))
    assert again == table


def test_a_budget_too_small_for_any_item_starts_none_and_the_next_run_goes_on(evaluated, fake):
    ran = evaluated.cli("eval", "arithmetic", "--panel", "fake", "--items", "6", "--arms", "vote,single:alpha",
                        "--concurrency", "1", "--max-tokens", "1", "--json")
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.stdout)
    # An item starts only when what it may spend at most fits in what is left: none does in one token.
    assert found["notStarted"] == 6 + 6 and fake.requests == []
    assert "12 item(s) not started" in ran.stderr and "--max-tokens 1" in ran.stderr
    assert "notStarted: 12" in (evaluated.root / "evals" / "arithmetic" / "progress.yaml").read_text()
    again = json.loads(evaluated.cli("eval", "arithmetic", "--panel", "fake", "--items", "6", "--arms",
                                     "vote,single:alpha", "--json").stdout)
    assert "notStarted" not in again and again["arms"]["single:alpha"]["correct"] == 6
    assert again["arms"]["vote"]["items"] == 6


def test_baselines_within_a_tight_limit_and_a_failed_answer_asked_again_on_resume(evaluated, fake):
    """One request at a time to the server: self-consistency's batch runs in an event loop of its own and must
    not inherit the first batch's locks; an answer that failed is asked again on the next run, alone, and what
    the failed one cost stays counted."""
    text = (evaluated.root / "discussions" / "panels.yaml").read_text()
    (evaluated.root / "discussions" / "panels.yaml").write_text(re.sub(r"': 64", "': 1", text))
    fake.always["alpha"] = Action(status=500, text="down")
    first = run_eval(evaluated, "--arms", "single:beta,self-consistency:beta,single:alpha")
    assert first["arms"]["self-consistency:beta"]["ungradable"] == 0
    assert first["arms"]["self-consistency:beta"]["callsPerItem"] > 1
    assert first["arms"]["single:alpha"]["ungradable"] == 12
    del fake.always["alpha"]
    asked = len(fake.requests)
    again = run_eval(evaluated, "--arms", "single:beta,self-consistency:beta,single:alpha")
    assert len(fake.requests) - asked == 12 and {r["model"] for r in fake.requests[asked:]} == {"alpha"}
    assert again["arms"]["single:alpha"]["correct"] == 12
    kept = (evaluated.root / "evals" / "arithmetic" / "single-alpha" / "a0001.yaml").read_text()
    assert kept.count("member: alpha") == 2 and "down" in kept  # the failed ask stays on record beside the new
