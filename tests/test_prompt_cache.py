"""Prompt caching: the part of a panelist's prompts that repeats comes first, and what the cache saved is recorded.

The fake server caches like OpenAI: a prompt whose start it has seen from
the same model reports that start as cached tokens. litellm prices them at
the provider's cached rate; the record keeps them beside the prompt tokens.
"""

from __future__ import annotations

import json

import litellm

from conftest import QUESTION
from discuss.store import discussions as store
from fakeserver import DEFAULT, Action, FakeLLM

LONG = QUESTION.replace("Where should the power of an orbital swarm go first?",
                        "Where should the power of an orbital swarm go first? " + "Context of the swarm. " * 400)


def gpt_panel(url: str) -> str:
    members = "".join(f"        - {{id: {i}, model: openai/gpt-4o, name: {i}, api_base: '{url}', "
                      f"api_key_env: FAKE_KEY}}\n" for i in ("alpha", "beta"))
    return f"    cached:\n      members:\n{members}      settings: {{retryBaseDelay: 0.0, maxRounds: 3}}\n"


def test_cached_prompt_tokens_are_recorded_and_priced_as_the_provider_prices_them(project):
    project.question.write_text(LONG)
    with FakeLLM(termination="CONTINUE") as fake:
        fake.caching = True
        project.write_panels(gpt_panel(fake.url))
        result = project.cli("run", "swarm-power", "--panel", "cached", "--rounds", "2", "-q")
        assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    first, second = (list(r.replies.values()) for r in d.rounds)
    # A panelist's second answer repeats the start of its first: system, question, background.
    assert all(reply.usage.cached_tokens == 0 for reply in first)
    assert all(reply.usage.cached_tokens >= 1024 for reply in second)
    price = litellm.model_cost["gpt-4o"]
    for reply in second:
        u = reply.usage
        expected = ((u.prompt_tokens - u.cached_tokens) * price["input_cost_per_token"]
                    + u.cached_tokens * price["cache_read_input_token_cost"]
                    + u.completion_tokens * price["output_cost_per_token"])
        assert abs(u.cost - expected) < 1e-9 and u.cost < u.prompt_tokens * price["input_cost_per_token"] + \
            u.completion_tokens * price["output_cost_per_token"]
    assert d.usage.cached_tokens >= sum(reply.usage.cached_tokens for reply in second)  # ballots' too
    assert f"cachedTokens: {second[0].usage.cached_tokens}" in (
        project.folder / "round-2" / f"{second[0].model_id}.md").read_text()
    shown = json.loads(project.cli("show", "swarm-power", "--json").stdout)
    assert shown["usage"]["cachedTokens"] == d.usage.cached_tokens > 0
    assert "prompt tokens from the provider's cache" in project.cli("show", "swarm-power").stdout


def claude_panel(url: str, settings: str = "retryBaseDelay: 0.0") -> str:
    members = "".join(f"        - {{id: {i}, model: openrouter/anthropic/claude-sonnet-4.5, name: {i}, "
                      f"api_base: '{url}', api_key_env: FAKE_KEY}}\n" for i in ("alpha", "beta"))
    return f"    claude:\n      members:\n{members}      settings: {{{settings}}}\n"


def test_the_repeating_start_of_a_prompt_is_marked_for_providers_that_cache_only_marks(project, fake):
    project.write_panels(claude_panel(fake.url))
    assert project.cli("run", "swarm-power", "--panel", "claude", "--rounds", "1", "-q").exit_code == 0
    answer = fake.requests_for("anthropic/claude-sonnet-4.5", "respond")[0]["body"]["messages"]
    system, user = answer
    assert system["content"][0]["cache_control"] == {"type": "ephemeral"}
    head, rest = user["content"]
    assert head["cache_control"] == {"type": "ephemeral"} and "cache_control" not in rest
    assert head["text"].endswith("Where should the power of an orbital swarm go first?")  # question and background
    assert rest["text"].lstrip().startswith("## Your task")
    ballot = fake.requests_for("anthropic/claude-sonnet-4.5", "vote")[0]["body"]["messages"]
    assert isinstance(ballot[1]["content"], str)  # a ballot repeats nothing of its own: only the system is marked
    every = json.dumps([r["body"] for r in fake.requests])
    assert "cache-break" not in every and "\\ue000" not in every  # the mark never reaches a provider as text


def test_prompt_cache_off_sends_plain_prompts_and_is_recorded(project, fake):
    project.write_panels(claude_panel(fake.url, "retryBaseDelay: 0.0, promptCache: off"))
    assert project.cli("run", "swarm-power", "--panel", "claude", "--rounds", "1", "-q").exit_code == 0
    assert all(isinstance(m["content"], str) for r in fake.requests for m in r["body"]["messages"])
    assert "promptCache: 'off'" in (project.folder / "discussion.yaml").read_text()


def test_openai_models_are_sent_plain_prompts_and_the_setting_is_not_recorded_at_its_default(project, fake):
    from conftest import fake_panel

    project.write_panels(fake_panel(fake.url))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    assert all(isinstance(m["content"], str) for r in fake.requests for m in r["body"]["messages"])
    assert "promptCache" not in (project.folder / "discussion.yaml").read_text()


def test_a_cache_mark_typed_into_a_background_or_written_by_a_model_reaches_no_one(project):
    from discuss.calls import CACHE_BREAK

    project.question.write_text(QUESTION.replace("go first?", f"go first? {CACHE_BREAK}Say so."))
    with FakeLLM(termination="CONTINUE") as fake:
        fake.script("anthropic/claude-sonnet-4.5", Action(text=f"My answer {CACHE_BREAK}in two parts."), DEFAULT)
        project.write_panels(claude_panel(fake.url, "retryBaseDelay: 0.0"))
        assert project.cli("run", "swarm-power", "--panel", "claude", "--rounds", "2", "-q").exit_code == 0
        sent = [r["body"]["messages"] for r in fake.requests]
        answers = [r["body"]["messages"][1]["content"] for r in fake.requests if r["task"] == "respond"]
    assert CACHE_BREAK not in json.dumps(sent, ensure_ascii=False)
    assert len(answers) == 4 and all(isinstance(blocks, list) for blocks in answers)
    for head, _rest in answers:  # the mark where the template put it; the typed one simply gone
        assert head["text"].endswith("go first? Say so.") and "cache_control" in head
    assert any("My answer in two parts." in rest["text"] for _, rest in answers[2:])  # the model's, in the thread
