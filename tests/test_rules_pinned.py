"""Properties that a one-character change to a rule would break: the sanitiser, the shuffle, every
threshold at and just under its bar, every default setting by name."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path

import pytest

from discuss.domain import NOT_SHARED, Reply, Round, Settings
from discuss.protocols.deliberate.rules import THRESHOLDS, WEIGHTS, gate_one, threshold
from discuss.protocols.vote import label_order
from discuss.protocols.vote.record import Vote, ballot_box
from discuss.protocols.vote.scoring import tally
from discuss.protocols.vote.settings import VoteSettings
from discuss.protocols.vote.termination import winner_ratio
from discuss.rules.agreement import label
from discuss.rules.convergence import agreement_test, judge_test
from discuss.site.render import safe_inline, safe_markdown
from test_browser import PAYLOADS, READABLE

DANGER = re.compile(r"<\s*(script|iframe|object|embed|style|meta|base|form|input|svg|math)\b|\son\w+\s*=|"
                    r"javascript:|style\s*=", re.IGNORECASE)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_sanitiser_leaves_nothing_that_runs(payload):
    for render in (safe_markdown, safe_inline):
        html = str(render(f"{READABLE}.\n\n{payload}\n"))
        assert not DANGER.search(html), html
        assert READABLE in html


def test_the_sanitiser_keeps_what_a_reader_needs():
    html = str(safe_markdown("# Title\n\n**bold** and `code <b>`, [a link](https://example.org), | a | b |\n"))
    assert "<strong>bold</strong>" in html and "<code>code &lt;b&gt;</code>" in html
    assert 'href="https://example.org"' in html and "<h4>Title</h4>" in html  # headings demoted three levels


def round_with(ids: list[str], seed: int) -> Round:
    r = Round(number=1, seed=seed)
    r.replies = {pid: Reply(pid, pid, 1, f"answer of {pid}", "") for pid in ids}
    return r


def test_each_voter_sees_its_own_order_and_each_round_another():
    ids = [f"p{i}" for i in range(6)]
    r = round_with(ids, seed=7)
    orders = {voter: tuple(label_order(r, voter).values()) for voter in ids}
    assert len(set(orders.values())) > 1  # voters do not all see one order
    assert all(sorted(o) == sorted(ids) for o in orders.values())  # every answer, once
    later = round_with(ids, seed=8)
    assert any(tuple(label_order(later, v).values()) != orders[v] for v in ids)


def test_no_label_position_favours_a_panelist():
    ids = ["alpha", "beta", "gamma"]
    first = Counter(next(iter(label_order(round_with(ids, seed), voter).values()))
                    for seed in range(300) for voter in ids)
    # 900 draws: each panelist shown first about 300 times; a fixed order would put one first every time
    assert all(240 < first[pid] < 360 for pid in ids), first


@pytest.mark.parametrize("test", [judge_test, agreement_test])
def test_convergence_bars_are_inclusive(test):
    assert test(0.85, 0.85)["converged"] is True
    assert test(0.8499, 0.85)["converged"] is False
    assert test(None, 0.85)["converged"] is False


def test_the_convergence_score_bar_is_inclusive():
    r = Round(number=1, seed=0)
    box = ballot_box(r)
    box.votes = [Vote("b", "a", "APPROVE"), Vote("c", "a", "APPROVE"), Vote("d", "a", "NEUTRAL"), Vote("e", "a", "NEUTRAL")]
    box.winner_id, box.winner_score = "a", tally(box.votes, ["a"], 0.5)[0].weighted_score
    assert winner_ratio(r, 0.5) == 0.75  # 6 of 8: exactly at a bar of 0.75, under one of 0.7501


def test_deliberate_threshold_is_met_at_the_bar_not_under_it():
    result = {"means": {"A": 0.7}, "best": "A", "score": 0.7, "preferred": {"x": "A", "y": "A"}}
    rankings = {p: {"scores": {}, "concern": "", "confidence": 0.5} for p in ("x", "y")}
    at = {c["check"]: c["passed"] for c in gate_one(True, rankings, result, 0.7)["checks"]}
    under = {c["check"]: c["passed"] for c in gate_one(True, rankings, {**result, "score": 0.6999}, 0.7)["checks"]}
    assert at["threshold met"] is True and under["threshold met"] is False


def test_agreement_labels_at_their_bars():
    assert label(0.70, 0.70, 0.30) == "consensus" and label(0.6999, 0.70, 0.30) == "mixed"
    assert label(0.30, 0.70, 0.30) == "contested" and label(0.3001, 0.70, 0.30) == "mixed"


def test_self_votes_count_half_by_default():
    votes = [Vote("a", "a", "APPROVE"), Vote("b", "a", "APPROVE")]
    assert tally(votes, ["a"], VoteSettings().self_vote_weight)[0].weighted_score == 3.0


DEFAULTS = {
    "max_rounds": 5, "self_vote_weight": 0.5, "consecutive_conclude_rounds": 2, "consecutive_conclude_votes": 2,
    "quorum": 0.5, "convergence_rounds": 3, "convergence_score": 0.8, "vote_attempts": 3, "context_tokens": 6000,
    "context_rounds": 3, "source_tokens": 4000, "person_wait_hours": 0.0,
    "max_response_words": 800, "max_reply_chars": 24000, "timeout_seconds": 120.0,
    "retry_timeouts": False, "attempts": 3, "retry_base_delay": 1.0, "conclusion_author": "winner",
    "agreement_measure": "lexical", "escalate_below": 0.5, "consensus_at": 0.70, "contested_at": 0.30,
    "debate_chairman": True, "drafter": "", "match_debate": True, "critique_rounds": 4, "convergence_test": "judge",
    "convergence_threshold": 0.85, "personas": "", "min_personas": 2, "triage": False, "deliberate_below": 0.70,
    "max_calls": 0, "max_tokens": 0, "max_cost": 0.0, "prompt_cache": "auto", "ballots": "anonymised",
    "show_winner": True,
    "own": {},  # own: a protocol's own settings, none by default
    "recorded": {},  # a new discussion's config was never recorded
}


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(Settings)])
def test_every_default_setting_is_the_documented_one(name):
    assert getattr(Settings(), name) == DEFAULTS[name]


def own_settings() -> list[tuple[str, str]]:
    from discuss.protocols import get_protocol, names

    return [(p, f) for p in names() if (model := get_protocol(p).settings_model) for f in model.model_fields]


@pytest.mark.parametrize("protocol, name", own_settings())
def test_every_protocol_setting_defaults_to_the_documented_value(protocol, name):
    from discuss.protocols import get_protocol

    assert getattr(get_protocol(protocol).settings_model(), name) == DEFAULTS[name]


def test_the_documentation_tables_state_the_defaults():
    from discuss.text.naming import camel

    docs = "".join(p.read_text() for p in (Path(__file__).resolve().parent.parent / "docs").glob("*.md"))
    rows = dict(re.findall(r"^\| `(\w+)` (?:\| [^|]+ )?\| ([^|]+) \|$", docs, re.MULTILINE))
    assert len(rows) >= 10  # the settings tables are there to check
    for name, value in DEFAULTS.items():
        key = camel(name)
        if key in rows and isinstance(value, (int, float)) and not isinstance(value, bool):
            assert float(rows[key].split()[0]) == float(value), key
    listed = {name for cell in re.findall(r"^\| (`\w+`(?:, `\w+`)*) \|", docs, re.MULTILINE)
              for name in re.findall(r"`(\w+)`", cell)}
    every = {camel(f.name) for f in dataclasses.fields(Settings) if f.name not in NOT_SHARED}
    every |= {camel(name) for _, name in own_settings()}
    assert every <= listed, f"settings with no row in the docs: {sorted(every - listed)}"


def test_the_source_numbers_of_deliberation():
    assert WEIGHTS == {"impact": 0.25, "quality": 0.25, "feasibility": 0.20, "reusability": 0.15, "risk": 0.15}
    assert THRESHOLDS == {"security": 0.85, "architecture": 0.80, "default": 0.70, "refactoring": 0.65,
                          "documentation": 0.50}
    assert threshold("SECURITY") == 0.85 and threshold(None) == 0.70 and threshold("unknown") == 0.70


WRITER = """
import sys
from pathlib import Path
from discuss.store.files import write_atomic
path, size = Path(sys.argv[1]), int(sys.argv[2])
texts = ["A" * size, "B" * size]
print("ready", flush=True)
n = 0
while True:
    write_atomic(path, texts[n % 2])
    n += 1
"""


def test_a_kill_during_a_large_write_leaves_the_old_file_or_the_new_never_a_prefix(tmp_path):
    import os
    import random
    import signal
    import subprocess
    import sys
    import time

    from discuss.store.files import write_atomic

    size, target = 4_000_000, tmp_path / "big.md"
    write_atomic(target, "A" * size)
    src = str(Path(__file__).resolve().parent.parent / "src")
    rng = random.Random(5)
    for _ in range(8):
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(target), str(size)], stdout=subprocess.PIPE,
                                 env={**os.environ, "PYTHONPATH": src})
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.02, 0.3))
        child.send_signal(signal.SIGKILL)
        child.wait()
        data = target.read_bytes()
        assert len(data) == size and data in (b"A" * size, b"B" * size)


def test_confidence_classes_at_their_bars():
    from discuss.protocols.deliberate.rules import confidence_class

    assert [confidence_class(x) for x in (0.86, 0.85, 0.70, 0.6999)] == ["strong", "moderate", "moderate", "weak"]


def ranking(concern: str, best: float, other: float) -> dict:
    dims = ("impact", "quality", "feasibility", "reusability", "risk")
    return {"scores": {"A": dict.fromkeys(dims, best), "B": dict.fromkeys(dims, other)}, "concern": concern,
            "confidence": 0.8}


def test_gates_by_hand():
    from discuss.protocols.deliberate.rules import consensus, gate_two

    rankings = {"x": ranking("cost", 0.9, 0.1), "y": ranking("", 0.1, 0.9), "z": ranking("time", 0.9, 0.2)}
    result = consensus(rankings)
    assert result["best"] == "A" and result["preferred"] == {"x": "A", "y": "B", "z": "A"}
    one = gate_one(True, rankings, result, 0.9)
    assert one == {"passed": False, "checks": [
        {"check": "phase reached", "passed": True, "detail": "ranking done"},
        {"check": "enough personas", "passed": True, "detail": "3 finished, 2 needed"},
        {"check": "threshold met", "passed": False, "detail": f"consensus {result['score']} against 0.9"},
        {"check": "dissent has reasons", "passed": False, "detail": "without a reason: y"},
    ]}
    two = gate_two(rankings, {"x": "p", "y": "q", "z": "p"}, result, 0.5, 0.8)
    assert [c["passed"] for c in two["checks"]] == [True, False, True, False, True] and not two["passed"]
    assert two["checks"][0]["detail"] == "2 distinct personas" and two["checks"][2]["detail"] == "2 alternatives"
    assert not gate_one(False, {"x": rankings["x"]}, consensus({"x": rankings["x"]}), 0.5)["passed"]


def test_conformity_warnings_by_hand():
    from discuss.protocols.deliberate.rules import conformity, consensus

    same = {p: ranking("the cost is too high for the first phase", 0.9, 0.1) for p in ("x", "y", "z")}
    warnings = conformity(same, consensus(same), {frozenset(("x", "y"))})
    assert "x and y word their concerns alike" in warnings
    assert any(w.startswith("scores for the best alternative cluster within 0.000") for w in warnings)
    assert "unanimous although priorities conflict (x/y)" in warnings
    varied = {"x": ranking("cost", 0.9, 0.1), "y": ranking("schedule risk", 0.5, 0.1)}
    assert conformity(varied, consensus(varied), set()) == []


@pytest.mark.parametrize("text, message", [
    ('{"votes": [{"label": "A", "vote": "MAYBE"}], "termination": {"vote": "CONCLUDE"}}',
     "vote on A must be APPROVE, NEUTRAL or REJECT, not 'MAYBE'"),
    ('{"votes": [{"label": "A"}], "termination": {"vote": "CONCLUDE"}}', "not '(none)'"),
    ('{"votes": [{"label": "A", "vote": "approve "}], "termination": {"vote": "stop"}}',
     "termination vote must be CONCLUDE or CONTINUE, not 'STOP'"),
    ('{"votes": [{"label": "A", "vote": "APPROVE"}], "termination": "CONCLUDE"}', "'termination' must be an object"),
    ('{"votes": 3, "termination": {}}', "'votes' must be a list"),
    ('{"termination": {}}', "'votes' is missing"),
])
def test_ballot_refusals_say_why(text, message):
    from discuss.protocols.vote.ballots import parse_ballot
    from discuss.text.jsonreply import ReplyError

    with pytest.raises(ReplyError) as caught:
        parse_ballot(text, ["A"])
    assert message in str(caught.value)


def test_a_ballot_is_read_whole():
    from discuss.protocols.vote.ballots import parse_ballot

    ballot = parse_ballot('{"votes": {"B": "reject", "A": {"vote": " approve", "reasoning": " good "}}, '
                          '"termination": {"vote": "continue", "reasoning": " more "}}', ["A", "B"])
    assert ballot.votes == [("A", "APPROVE", "good"), ("B", "REJECT", "")]
    assert (ballot.termination, ballot.termination_reasoning) == ("CONTINUE", "more")


def test_the_key_of_a_panelist_is_known_whatever_its_variable_is_called(monkeypatch):
    from discuss.domain import Panelist
    from discuss.text.secrets import known_secrets, scrub

    monkeypatch.setenv("LOCAL_LLM", "local-secret-value")
    p = Panelist("l", "openai/x", "L", api_key_env="LOCAL_LLM")
    assert "local-secret-value" in known_secrets(p) and "local-secret-value" not in known_secrets()
    assert scrub("echo local-secret-value", p) == "echo [redacted]"
    monkeypatch.setenv("TINY_TOKEN", "abc")
    assert "abc" not in known_secrets()  # too short to tell from ordinary text
