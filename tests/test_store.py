"""The store: exact round trips, byte-stable saves, atomic writes, the lock, Dyson folders."""

import multiprocessing
from pathlib import Path

import pytest

from discuss.domain import (
    Conclusion,
    Discussion,
    Failure,
    MinorityPosition,
    Panel,
    Panelist,
    Reply,
    Round,
    Settings,
    Usage,
)
from discuss.errors import InputError
from discuss.protocols.vote.record import Abstention, Ballot, TerminationVote, Vote, VoteResult, ballot_box
from discuss.store import discussions as store
from discuss.store.files import DiscussionLock, write_atomic

TRICKY = [
    "plain",
    "---\ntitle: not front matter\n---\n\nbody after a fence\n",
    "key: value\n- list item\n? question\n",
    "trailing spaces   \n\n\n",
    "\ttabs\x00nul\x1bescape\u202eright-to-left\u2028line-sep\r\nwindows\n",
    "```\n" + "x = 1\n" * 10000 + "```\n",
    "",
]


def sample(texts=("first", "second")) -> Discussion:
    panel = Panel("p", (Panelist("a", "openai/a", "A", "brief"), Panelist("b", "openai/b", "B")))
    r = Round(number=1, seed=42)
    for pid, text in zip(["a", "b"], texts):
        r.replies[pid] = Reply(pid, pid.upper(), 1, text, "2026-01-01T00:00:00Z", Usage(10, 5, 0.001, 1), 120)
    box = ballot_box(r)
    box.votes = [Vote("a", "a", "APPROVE", "mine: yes"), Vote("a", "b", "REJECT", "no: because\nreasons"),
                 Vote("b", "a", "NEUTRAL", "'quoted' \"both\""), Vote("b", "b", "APPROVE", "")]
    box.termination_votes = [TerminationVote("a", "CONCLUDE", "done"), TerminationVote("b", "CONTINUE", "#not a comment")]
    box.ballots = [Ballot("a", {"A": "b", "B": "a"}, 2, Usage(3, 4, None, 2)), Ballot("b", {"A": "a", "B": "b"})]
    box.abstentions = [Abstention("c", "invalid ballot: x", Usage(7, 8, None, 3))]
    r.failures = [Failure("respond", "c", "timed out", 3, True)]
    box.results = [VoteResult("a", 3, 2.0, 1, 0, 0), VoteResult("b", 2, 1.0, 1, 1, 0)]
    box.winner_id, box.winner_score, box.tie_break, r.agreement = "a", 2.0, None, 0.0
    r.completed_at = "2026-01-01T00:01:00Z"
    d = Discussion("q-1", "q", "Question?", panel, Settings(max_rounds=4), started_at="2026-01-01T00:00:00Z",
                   rounds=[r], termination_reason="forced", status="concluded", concluded_at="2026-01-01T00:02:00Z")
    d.conclusion = Conclusion("Summary: yes.", ["k1"], ["u1"], ["r1"], [MinorityPosition("m", "b", "why")],
                              generated_by="a", generated="2026-01-01T00:02:00Z", usage=Usage(1, 2, None, 1))
    return d


@pytest.mark.parametrize("text", TRICKY)
def test_model_text_round_trips_byte_for_byte(tmp_path, text):
    d = sample((text, text + "\n"))
    store.save(d, tmp_path)
    back = store.load(tmp_path)
    assert back.rounds[0].replies["a"].text == text
    assert back.rounds[0].replies["b"].text == text + "\n"


def test_everything_saved_loads_back(tmp_path):
    d = sample()
    store.save(d, tmp_path)
    back = store.load(tmp_path)
    r, b = d.rounds[0], back.rounds[0]
    assert ballot_box(b).votes == ballot_box(r).votes and ballot_box(b).termination_votes == ballot_box(r).termination_votes
    assert ballot_box(b).ballots == ballot_box(r).ballots and ballot_box(b).abstentions == ballot_box(r).abstentions
    assert b.failures == r.failures
    assert [(x.target_id, x.weighted_score) for x in ballot_box(b).results] == [("a", 2.0), ("b", 1.0)]
    assert (ballot_box(b).winner_id, b.seed, b.completed_at) == ("a", 42, "2026-01-01T00:01:00Z")
    assert back.settings.max_rounds == 4 and back.panel.member("a").persona == "brief"
    assert back.conclusion.minority_positions == d.conclusion.minority_positions
    assert back.conclusion.key_points == ["k1"] and back.conclusion.summary == "Summary: yes."
    assert back.usage == d.usage and back.termination_reason == "forced"
    assert d.usage.calls == 1 + 1 + 2 + 3 + 1 and d.usage.prompt_tokens == 10 + 10 + 3 + 7 + 1


def test_saving_again_changes_no_byte(tmp_path):
    store.save(sample(), tmp_path)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.rglob("*") if p.is_file()}
    store.save(store.load(tmp_path), tmp_path)
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before  # not even rewritten


def test_vote_order_does_not_depend_on_arrival(tmp_path):
    d = sample()
    store.save(d, tmp_path / "one")
    ballot_box(d.rounds[0]).votes.reverse()
    ballot_box(d.rounds[0]).ballots.reverse()
    store.save(d, tmp_path / "two")
    assert (tmp_path / "one/round-1/votes.yaml").read_bytes() == (tmp_path / "two/round-1/votes.yaml").read_bytes()


def test_write_atomic_leaves_no_temp_files_and_keeps_old_content_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "f.yaml"
    assert write_atomic(path, "one\n") is True
    assert write_atomic(path, "one\n") is False

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError):
        write_atomic(path, "two\n")
    assert path.read_text() == "one\n"
    assert [p.name for p in tmp_path.iterdir()] == ["f.yaml"]


def _hold(folder, ready, release):
    with DiscussionLock(Path(folder)):
        ready.set()
        release.wait(10)


def test_lock_refuses_a_second_run_and_dies_with_its_holder(tmp_path):
    ctx = multiprocessing.get_context("fork")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(str(tmp_path), ready, release))
    holder.start()
    assert ready.wait(10)
    with pytest.raises(InputError, match="another `discuss run`"):
        with DiscussionLock(tmp_path):
            pass
    holder.kill()
    holder.join()
    with DiscussionLock(tmp_path):  # a killed holder leaves no stale lock
        pass


def test_broken_discussion_yaml_is_reported_with_its_path(tmp_path):
    (tmp_path / "discussion.yaml").write_text("rounds: [unclosed\n")
    with pytest.raises(InputError, match="discussion.yaml"):
        store.load(tmp_path)
    (tmp_path / "discussion.yaml").write_text("- a list\n")
    with pytest.raises(InputError, match="mapping"):
        store.load(tmp_path)


def test_unsafe_participant_id_never_names_a_file(tmp_path):
    d = sample()
    d.rounds[0].replies["../evil"] = d.rounds[0].replies.pop("b")
    with pytest.raises(ValueError, match="unsafe"):
        store.save(d, tmp_path / "x")
    assert not (tmp_path / "evil.md").exists()


def test_summary_reads_the_head_and_falls_back_on_odd_values(tmp_path):
    d = sample()
    store.save(d, tmp_path)
    s = store.summary(tmp_path)
    assert (s.status, s.rounds, s.leader, s.termination_reason) == ("concluded", 1, "a", "forced")
    assert s.usage == d.usage
    # an id that YAML 1.1 would read as a boolean is quoted, and must not fool the fast path
    on = tmp_path / "on"
    d.panel = Panel("p", (Panelist("on", "openai/on", "On"), Panelist("b", "openai/b", "B")))
    d.rounds[0].replies["on"] = d.rounds[0].replies.pop("a")
    ballot_box(d.rounds[0]).winner_id = "on"
    store.save(d, on)
    assert "leader: 'on'\n" in (on / "discussion.yaml").read_text()
    assert store.summary(on).leader == "on"


def test_a_restarted_discussion_overwrites_leftover_reply_files(tmp_path):
    store.save(sample(("old answer", "old")), tmp_path)
    (tmp_path / "discussion.yaml").unlink()  # someone starts the discussion over
    store.save(sample(("new answer", "new")), tmp_path)
    assert store.load(tmp_path).rounds[0].replies["a"].text == "new answer"


def _question(content, rel: str, slug: str | None = None) -> None:
    path = content / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    fm = f"slug: {slug}\n" if slug else ""
    path.write_text(f"---\ntitle: {path.stem}\n{fm}---\n\nBody.\n")


def test_an_exact_name_wins_over_a_dyson_style_suffix(tmp_path):
    from discuss.store.questions import find_question

    content = tmp_path / "content"
    _question(content, "research-questions/phase-1/rq-1-16-autonomous-assembly-certification.md")
    _question(content, "questions/autonomous-assembly-certification.md")
    assert find_question(content, "autonomous-assembly-certification").path.parent.name == "questions"
    assert find_question(content, "rq-1-16-autonomous-assembly-certification").path.parent.name == "phase-1"


def test_a_unique_suffix_or_front_matter_slug_is_found(tmp_path):
    from discuss.store.questions import find_question

    content = tmp_path / "content"
    _question(content, "phase-1/rq-1-11-swarm-power.md")
    _question(content, "questions/odd-file-name.md", slug="named-by-slug")
    assert find_question(content, "swarm-power").path.stem == "rq-1-11-swarm-power"
    assert find_question(content, "named-by-slug").path.stem == "odd-file-name"


def test_two_suffix_matches_are_an_error_naming_both(tmp_path):
    from discuss.store.questions import find_question

    content = tmp_path / "content"
    _question(content, "phase-1/rq-1-2-debris-disposal.md")
    _question(content, "phase-2/rq-2-7-debris-disposal.md")
    with pytest.raises(InputError) as err:
        find_question(content, "disposal")
    assert "matches 2 questions" in str(err.value)
    assert "phase-1/rq-1-2-debris-disposal.md" in str(err.value) and "phase-2/rq-2-7-debris-disposal.md" in str(err.value)


def test_a_typo_gets_did_you_mean(tmp_path):
    from discuss.store.questions import find_question

    content = tmp_path / "content"
    _question(content, "questions/swarm-power.md")
    with pytest.raises(InputError) as err:
        find_question(content, "swarm-powr")
    assert "did you mean swarm-power?" in str(err.value)


def test_panels_are_built_once_yet_never_stale_or_shared(project):
    """The panel file is built once while unchanged; a caller's change to its settings reaches no other caller,
    and an edit of the file is seen at once."""
    import os

    from discuss.store.panels import load_panels

    path = project.root / "discussions" / "panels.yaml"
    first = load_panels(path)["offline"]
    first[1].own["mine"] = 1
    first[1].max_rounds = 99
    again = load_panels(path)["offline"]
    assert again[0] is first[0] and "mine" not in again[1].own and again[1].max_rounds != 99
    text = path.read_text()
    path.write_text(text.replace("retryBaseDelay: 0.0", "retryBaseDelay: 0.0, maxRounds: 2"))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # a coarse clock still sees the edit
    assert load_panels(path)["offline"][1].max_rounds == 2


def test_a_kept_file_is_replaced_whole_or_not_at_all(tmp_path, monkeypatch):
    from discuss.store import files

    path = tmp_path / "rows.json"
    files.write_kept(path, "old")
    files.write_kept(path, "new")
    assert path.read_text() == "new"

    def refused(*args):
        raise OSError("no room")

    monkeypatch.setattr(files.os, "replace", refused)
    with pytest.raises(OSError):
        files.write_kept(path, "newer")
    assert path.read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["rows.json"]
