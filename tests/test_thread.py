"""The thread a panelist is shown: which answers, in which order, cut how, within which budget."""

from __future__ import annotations

from discuss.domain import Discussion, Panel, Panelist, Reply, Round, Settings
from discuss.protocols.vote.record import TerminationVote, Vote, VoteResult, ballot_box
from discuss.protocols.vote.thread import (
    ANSWER_CHARS,
    REASON_CHARS,
    clip,
    earlier_context,
    entry_tokens,
    round_entry,
)

PANEL = Panel("p", tuple(Panelist(i, f"offline/{i}", i.upper()) for i in ("a", "b", "c")))


def vote_round(n: int, winner: str, text: str = "text", reasons: bool = True) -> Round:
    r = Round(number=n, seed=n, completed_at="t")
    r.replies = {pid: Reply(pid, pid, n, f"{text} of {pid} in {n}", "t") for pid in ("a", "b", "c")}
    ballot_box(r).votes = [Vote("b", "a", "REJECT", "b objects" if reasons else ""), Vote("c", "a", "APPROVE", "c likes it"),
               Vote("a", "a", "APPROVE", "mine"), Vote("a", "b", "NEUTRAL", "a on b")]
    ballot_box(r).results = [VoteResult("a", 3, 2.5, 2, 1), VoteResult("b", 1, 1.0, 0, 0), VoteResult("c", 0, 0.0, 0, 0)]
    ballot_box(r).winner_id, ballot_box(r).winner_score = winner, 2.5
    ballot_box(r).termination_votes = [TerminationVote("a", "CONCLUDE"), TerminationVote("b", "CONTINUE")]
    return r


def test_clip_marks_what_it_cuts():
    assert clip("  short  ", 10) == "short"
    assert clip("0123456789", 10) == "0123456789"
    assert clip("0123456789abc", 10) == "0123 [...]"


def test_a_round_shows_the_winner_first_then_ones_own_then_the_rest():
    entry = round_entry(vote_round(1, winner="b"), "a", 5000)
    assert [(x["label"], x["yours"], x["winner"]) for x in entry["answers"]] == [
        ("A", False, True), ("B", True, False), ("C", False, False)]
    assert [x["score"] for x in entry["answers"]] == ["1", "2.5", "0"]
    assert entry["answers"][2]["text"] == "text of c in 1"
    assert entry["reasons"] == [{"vote": "REJECT", "reasoning": "b objects"}, {"vote": "APPROVE", "reasoning": "c likes it"}]
    assert entry["termination"] == "1 of 2 asked to conclude" and entry["number"] == 1


def test_ones_own_vote_and_empty_reasons_are_not_shown():
    entry = round_entry(vote_round(1, winner="a", reasons=False), "a", 5000)
    assert entry["reasons"] == [{"vote": "APPROVE", "reasoning": "c likes it"}]
    assert [x["label"] for x in entry["answers"]] == ["A", "B", "C"] and entry["answers"][0]["yours"]


def test_answers_are_cut_to_a_fair_share_and_never_past_the_cap():
    long = vote_round(1, winner="a", text="x" * 5000)
    roomy = round_entry(long, "a", 100000)
    assert all(len(x["text"]) == ANSWER_CHARS and x["text"].endswith(" [...]") for x in roomy["answers"])
    tight = round_entry(long, "a", 400)
    assert all(len(x["text"]) < ANSWER_CHARS for x in tight["answers"])
    assert entry_tokens(tight) <= 400
    assert round_entry(long, "a", 100) is None  # too little room for any answer to say something
    reasons = round_entry(vote_round(1, "a", reasons=True), "a", 5000)["reasons"]
    assert all(len(x["reasoning"]) <= REASON_CHARS for x in reasons)


def test_the_newest_rounds_are_kept_and_the_rest_counted():
    d = Discussion("q", "q", "Q?", PANEL, Settings(own={"contextRounds": 2}), protocol="vote")
    d.rounds = [vote_round(n, winner="a") for n in (1, 2, 3)]
    shown, omitted = earlier_context(d, "a", 6000)
    assert [x["number"] for x in shown] == [2, 3] and omitted == 1
    d.rounds.append(Round(number=4, seed=4))  # an open round is not part of the thread
    assert earlier_context(d, "a", 6000)[1] == 1
    shown, omitted = earlier_context(d, "a", 250)
    assert [x["number"] for x in shown] == [3] and omitted == 2
    assert earlier_context(d, "a", 10) == ([], 3)
