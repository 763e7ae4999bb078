"""Rules driven in process with replies queued per task (the QueueProvider), no server, no files to script."""

from __future__ import annotations

import asyncio

import pytest

from discuss.domain import Panel, Panelist, Question, Settings
from discuss.engine.gateway import Gateway
from discuss.engine.runner import Plan, Runner, start
from discuss.protocols.vote.record import ballot_box
from discuss.providers.base import TransientError
from discuss.providers.queue import QueueProvider
from discuss.text.prompting import Prompts

PANEL = Panel("q", tuple(Panelist(i, f"queued/{i}", i.title()) for i in ("ann", "bob", "cy")))


def run(tmp_path, queue: QueueProvider, protocol: str = "vote", plan: Plan | None = None, asks: int = 3):
    q = Question(path=tmp_path / "q.md", slug="q", title="Which orbit first?", background="Some background.")
    d = start(q, PANEL, Settings(retry_base_delay=0.0, attempts=1), "2026-01-01T00:00:00Z", protocol)
    gateway = Gateway(attempts=1, base_delay=0.0, asks=asks, providers=lambda p: queue)
    return asyncio.run(Runner(gateway, Prompts(), lambda: "2026-01-01T00:00:00Z").run(q, d, plan or Plan()))


def ballot(*votes: str, termination: str = "CONTINUE") -> dict:
    return {"votes": [{"label": label, "vote": v, "reasoning": "queued"} for label, v in zip("ABC", votes)],
            "termination": {"vote": termination, "reasoning": "queued"}}


def test_a_ballot_unusable_after_every_ask_is_an_abstention_and_paid_for(tmp_path):
    queue = QueueProvider().queue("vote", "not json", "still not", "never", panelist="cy")
    d = run(tmp_path, queue)
    assert queue.asked("vote").count("cy") == 3  # asked again until the asks ran out
    rnd = d.rounds[0]
    assert {b.voter_id for b in ballot_box(rnd).ballots} == {"ann", "bob"}
    assert [a.voter_id for a in ballot_box(rnd).abstentions] == ["cy"] and ballot_box(rnd).abstentions[0].usage.calls == 3


def test_a_member_whose_answer_failed_is_not_asked_again_in_that_round(tmp_path):
    queue = QueueProvider().queue("respond", TransientError("overloaded"), panelist="bob")
    d = run(tmp_path, queue)
    assert queue.asked("respond").count("bob") == 1
    assert sorted(d.rounds[0].replies) == ["ann", "cy"] and d.rounds[0].failed("respond") == {"bob"}


def test_every_answer_failing_stops_the_run_and_the_next_asks_everyone(tmp_path):
    queue = QueueProvider()
    for pid in ("ann", "bob", "cy"):
        queue.queue("respond", TransientError("down"), panelist=pid)
    with pytest.raises(Exception, match="every participant failed"):
        run(tmp_path, queue)


def test_strict_queue_names_the_call_it_was_not_ready_for(tmp_path):
    from discuss.store import discussions as store

    with pytest.raises(Exception, match="every participant failed"):
        run(tmp_path, QueueProvider(strict=True))
    failures = store.load(tmp_path / "q").rounds[0].failures
    assert sorted(f.model_id for f in failures) == ["ann", "bob", "cy"]
    assert all("nothing queued for respond by " + f.model_id in f.error for f in failures)


def test_queued_ballots_decide_the_winner(tmp_path):
    queue = QueueProvider().queue("vote", *[ballot("APPROVE", "REJECT", "REJECT")] * 3)
    d = run(tmp_path, queue)
    rnd = d.rounds[0]
    # Every voter approved the answer it saw under A and rejected the rest: the winner is an answer
    # some voter saw under A, with the top score.
    assert ballot_box(rnd).winner_id in {b.labels["A"] for b in ballot_box(rnd).ballots}
    assert ballot_box(rnd).winner_score == max(x.weighted_score for x in ballot_box(rnd).results)
    assert sum(x.approve_count for x in ballot_box(rnd).results) == 3
    assert sum(x.reject_count for x in ballot_box(rnd).results) == 6
