"""A reply is whole or it is marked: cut streams, length stops and unreadable bodies through the fake server."""

from __future__ import annotations

import pytest

from conftest import fake_panel
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from fakeserver import Action

pytestmark = pytest.mark.usefixtures("client")  # through the light HTTP client and through litellm
CONTENT = '{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":'


def run(project, fake, *flags: str):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, attempts: 3}"))
    return project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", *flags)


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
def test_a_reply_stopped_at_max_tokens_is_kept_and_marked(project, fake, stream):
    fake.script("alpha", Action(text="The first half of a long answer", finish="length"))
    result = run(project, fake, stream)
    assert result.exit_code == 0, result.output
    reply = project.folder / "round-1" / "alpha.md"
    assert "finishReason: length" in reply.read_text()
    assert "finishReason" not in (project.folder / "round-1" / "beta.md").read_text()
    assert store.load(project.folder).rounds[0].replies["alpha"].finish_reason == "length"
    shown = project.cli("show", "swarm-power").stdout
    assert "cut: Alpha's respondent is not whole: it reached its token limit (max_tokens)" in shown


def test_a_stream_cut_half_way_is_asked_again_never_kept(project, fake):
    fake.script("alpha", Action(text="one two three four five six seven eight", cut=True))
    result = run(project, fake, "--stream")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    reply = d.rounds[0].replies["alpha"]
    assert reply.text.startswith("Answer of openai/alpha") or "Answer of alpha" in reply.text  # the second, whole
    assert len(fake.requests_for("alpha", "respond")) == 2
    assert reply.usage.calls == 2  # the cut attempt is counted too


def test_a_stream_cut_every_time_is_a_failure_with_its_reason(project, fake):
    fake.script("alpha", *[Action(text="one two three four", cut=True)] * 3)
    result = run(project, fake, "--stream")
    assert result.exit_code == 0, result.output
    r = store.load(project.folder).rounds[0]
    assert "alpha" not in r.replies
    failure = next(f for f in r.failures if f.model_id == "alpha")
    assert "the stream ended before the reply was finished" in failure.error and failure.attempts == 3
    assert failure.usage.calls == 3


@pytest.mark.parametrize("body,why", [
    (b"<html><body>502 Bad Gateway</body></html>", "not JSON"),
    (CONTENT.encode() + b'"assistant","content":"caf\xff"},"finish_reason":"stop"}]}', "not UTF-8"),
    (CONTENT.encode(), "not JSON"),
])
def test_a_body_that_cannot_be_read_is_a_failed_attempt_in_words(project, fake, body, why):
    fake.script("alpha", *[Action(raw=body)] * 3)
    result = run(project, fake, "--no-stream")
    assert result.exit_code == 0, result.output
    r = store.load(project.folder).rounds[0]
    failure = next(f for f in r.failures if f.model_id == "alpha")
    assert "the provider's reply could not be read" in failure.error and "InternalServerError" not in failure.error
    assert failure.attempts == 3 and failure.usage.calls == 3
    assert "could not be read" in result.stderr  # said on the board too


def test_thinking_is_kept_out_of_answers_and_ballots(project, fake):
    import json as _json

    fake.script("alpha", Action(text="<think>Let me weigh the options... maybe 24 V.</think>\n\nRun the bus at 48 V."),
                Action(text="<think>B looks weak</think>" + _json.dumps({
                    "votes": [{"label": x, "vote": "APPROVE", "reasoning": "sound"} for x in "ABC"],
                    "termination": {"vote": "CONTINUE", "reasoning": "more to do"}})))
    fake.script("beta", Action(text="<think>I ran out of tokens while thinking about"))
    result = run(project, fake, "--no-stream")
    assert result.exit_code == 0, result.output
    r = store.load(project.folder).rounds[0]
    assert r.replies["alpha"].text == "Run the bus at 48 V."
    assert "weigh" not in (project.folder / "round-1" / "alpha.md").read_text()
    assert any(b.voter_id == "alpha" for b in ballot_box(r).ballots)
    assert "beta" not in r.replies or "thinking" not in r.replies["beta"].text


def test_only_reasoning_and_no_answer_is_a_failed_attempt(project, fake):
    body = (CONTENT + '"assistant","content":"","reasoning_content":"I think..."},"finish_reason":"length"}],'
            '"usage":{"prompt_tokens":5,"completion_tokens":50,"total_tokens":55}}')
    fake.script("alpha", *[Action(raw=body.encode())] * 3)
    result = run(project, fake, "--no-stream")
    assert result.exit_code == 0, result.output
    failure = next(f for f in store.load(project.folder).rounds[0].failures if f.model_id == "alpha")
    assert "only its reasoning and no answer" in failure.error


def test_the_page_marks_a_reply_that_is_not_whole(project, fake):
    from discuss.site import render
    from discuss.site.collect import collect

    fake.script("alpha", Action(text="The first half of a long answer", finish="length"))
    assert run(project, fake, "--no-stream").exit_code == 0
    entries, _ = collect(project.content)
    html = render.question_section(entries[0])
    assert "cut: respondent is not whole: it reached its token limit (max_tokens)" in html
