"""Ballots within the context budget: every answer cut to the same share, the cut recorded and shown."""

from __future__ import annotations

import re

from conftest import fake_panel
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from discuss.text.prompting import estimate_tokens
from fakeserver import DEFAULT, Action

IDS = tuple(f"p{i}" for i in range(6))


def long_answer(words: int) -> str:
    return "## Position\n\n" + " ".join(f"word{i % 89}" for i in range(words)) + "\n"


def ballot_prompts(fake) -> list[str]:
    return [r["messages"][-1]["content"] for r in fake.requests if r["task"] == "vote"]


def test_a_ballot_stays_within_the_budget_whatever_the_panel_and_answers(project, fake):
    budget = 1200
    for i, pid in enumerate(IDS):
        fake.script(pid, Action(text=long_answer(400 + 300 * i)), DEFAULT)  # 400 to 1900 words
    project.write_panels(fake_panel(fake.url, ids=IDS, settings=f"{{retryBaseDelay: 0.0, contextTokens: {budget}}}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q")
    assert result.exit_code == 0, result.output
    prompts = ballot_prompts(fake)
    assert len(prompts) == len(IDS)
    share = budget // len(IDS)
    for prompt in prompts:
        bodies = [b.strip() for b in re.findall(r"^## Answer [A-Z]\n\n`{3,}text\n(.*?)\n`{3,}\n+(?=^## [AH])", prompt,
                                                  re.S | re.M)]
        assert len(bodies) == len(IDS) and all(b.endswith("[...]") for b in bodies)
        # the same cut for every answer, and all of them together within the budget
        assert all(estimate_tokens(b) <= share + 1 for b in bodies)
        assert sum(estimate_tokens(b) for b in bodies) <= budget + len(IDS)
    r = store.load(project.folder).rounds[0]
    assert r.notes["ballotCut"] == {"tokensPerAnswer": share, "cut": sorted(IDS)}
    assert len(ballot_box(r).votes) == len(IDS) ** 2  # cut answers are still judged, every one of them
    shown = project.cli("show", "swarm-power")
    assert f"ballots showed answers cut to {share} tokens each" in shown.output


def test_short_answers_reach_ballots_whole_and_nothing_is_recorded(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    r = store.load(project.folder).rounds[0]
    assert "ballotCut" not in r.notes
    for prompt in ballot_prompts(fake):
        for reply in r.replies.values():
            assert reply.text.strip() in prompt
