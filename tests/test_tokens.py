"""Token counts before a call: an upper bound for every script, never above the UTF-8 bytes.

Checked against the tokenizers installed with litellm: OpenAI's cl100k and
Anthropic's, on Latin prose, Japanese, emoji, Cyrillic, Arabic and code.
"""

from __future__ import annotations

import os
import re

import pytest

from conftest import fake_panel
from discuss.text import tokens
from discuss.text.tokens import count, fitting
from fakeserver import DEFAULT, Action

SAMPLES = {
    "latin": "The quick brown fox jumps over the lazy dog, twice a night. " * 12,
    "japanese": "月面基地の電力は原子力で賄うべきか。夜間の二週間をどう乗り切るか。" * 8,
    "emoji": "🚀🌕⚡🔋🛰️👩‍🚀" * 15,
    "code": "def f(x):\n    return {k: v for k, v in x.items() if v is not None}  # keep\n" * 8,
    "russian": "Энергоснабжение лунной базы требует учёта лунной ночи. " * 8,
    "arabic": "يتطلب إمداد قاعدة قمرية بالطاقة مراعاة الليل القمري. " * 8,
}


def anthropic_count(text: str) -> int:
    from tokenizers import Tokenizer

    folder = os.path.dirname(__import__("litellm.litellm_core_utils.tokenizers", fromlist=["x"]).__file__)
    return len(Tokenizer.from_file(os.path.join(folder, "anthropic_tokenizer.json")).encode(text).ids)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_count_bounds_the_real_tokenizers_and_the_bytes_bound_it(name):
    text = SAMPLES[name]
    enc = tokens.encoding()
    assert enc is not None  # installed with litellm, read from its own copy
    openai = len(enc.encode(text))
    assert count(text) >= openai and count(text) >= anthropic_count(text)
    assert count(text) <= len(text.encode("utf-8"))
    if name != "latin":
        assert count(text) > (len(text) + 3) // 4  # where four characters a token undercounted


def test_without_a_tokenizer_the_count_is_the_bytes(monkeypatch):
    monkeypatch.setattr(tokens, "encoding", lambda: None)
    assert [count(t) for t in SAMPLES.values()] == [len(t.encode("utf-8")) for t in SAMPLES.values()]
    assert count("") == 0


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_fitting_keeps_the_longest_start_within_the_tokens(name):
    text, budget = SAMPLES[name], 40
    kept = fitting(text, budget)
    assert count(text[:kept]) <= budget < count(text[:kept + 1])
    assert fitting(text, count(text)) == len(text)


def test_japanese_answers_are_cut_to_their_share_on_ballots(project, fake):
    budget, ids = 600, ("alpha", "beta", "gamma")
    for pid in ids:
        fake.script(pid, Action(text=SAMPLES["japanese"] * 3), DEFAULT)  # about 1,200 tokens each
    project.write_panels(fake_panel(fake.url, ids=ids, settings=f"{{retryBaseDelay: 0.0, contextTokens: {budget}}}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    enc = tokens.encoding()
    for request in (r for r in fake.requests if r["task"] == "vote"):
        bodies = [b.strip() for b in re.findall(r"^## Answer [A-Z]\n\n(.*?)\n\n(?=^## [AH])",
                                                 request["messages"][-1]["content"], re.S | re.M)]
        assert len(bodies) == 3 and all(b.endswith("[...]") for b in bodies)
        assert all(len(enc.encode(b)) <= budget // 3 for b in bodies)  # chars/4 let through four times this
