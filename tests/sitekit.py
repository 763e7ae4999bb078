"""Sample projects for site tests: discussions built by hand, so every figure is known."""

from __future__ import annotations

from pathlib import Path

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
from discuss.protocols.vote.record import Abstention, Ballot, TerminationVote, Vote, ballot_box
from discuss.protocols.vote.scoring import pick_winner, tally
from discuss.store import discussions as store
from discuss.store.files import write_atomic

PANEL = Panel("pair", (Panelist("a", "openai/a", "Ann", "Brief."), Panelist("b", "openai/b", "Bob")))
MKDOCS = """\
site_name: test site
docs_dir: content
site_dir: site
theme:
  name: material
  font: false
plugins:
  - discuss
"""


def question(root: Path, slug: str, title: str, tags: str = "[]") -> Path:
    path = root / "content" / "questions" / f"{slug}.md"
    write_atomic(path, f"---\ntitle: {title}\nslug: {slug}\ntags: {tags}\n---\n\nBackground of {slug}.\n")
    return path


def make_round(number: int, seed: int, texts: dict[str, str], votes: list[tuple[str, str, str, str]],
               termination: list[tuple[str, str, str]]) -> Round:
    r = Round(number=number, seed=seed)
    for pid, text in texts.items():
        r.replies[pid] = Reply(pid, pid, number, text, "2026-01-01T00:00:00Z")
    box = ballot_box(r)
    box.votes = [Vote(*v) for v in votes]
    box.termination_votes = [TerminationVote(*t) for t in termination]
    box.ballots = [Ballot(voter, {}) for voter in {v[0] for v in votes}]
    box.results = tally(box.votes, [p for p in PANEL.ids if p in r.replies], 0.5)
    box.winner_id, box.tie_break = pick_winner(box.results, seed)
    box.winner_score = next(x.weighted_score for x in box.results if x.target_id == box.winner_id)
    r.completed_at = "2026-01-01T00:00:00Z"
    return r


def first_discussion() -> Discussion:
    """Two rounds: Ann wins the first outright, Bob the second by a seeded draw."""
    r1 = make_round(1, 1, {"a": "one two three", "b": "four five"},
                    [("a", "a", "APPROVE", "mine"), ("a", "b", "REJECT", "Bob misses the point"),
                     ("b", "a", "APPROVE", "Ann is right"), ("b", "b", "NEUTRAL", "mine")],
                    [("a", "CONTINUE", "more"), ("b", "CONTINUE", "more")])
    r2 = make_round(2, 7, {"a": "alpha beta", "b": "gamma delta epsilon zeta"},
                    [("a", "a", "APPROVE", ""), ("a", "b", "APPROVE", "better now"),
                     ("b", "a", "APPROVE", "fine"), ("b", "b", "APPROVE", "")],
                    [("a", "CONCLUDE", "settled"), ("b", "CONCLUDE", "agreed")])
    ballot_box(r2).should_terminate, ballot_box(r2).termination_reason = True, "unanimous-conclude"
    d = Discussion("q-1", "first", "First question?", PANEL, Settings(), status="concluded",
                   started_at="2026-01-01T00:00:00Z", rounds=[r1, r2],
                   termination_reason="unanimous-conclude", concluded_at="2026-01-01T00:00:00Z")
    r1.replies["a"].usage = Usage(100, 23, 0.0123, 1)
    d.conclusion = Conclusion("Both **agree** in the end.", ["point one"], ["open one"], ["act one"],
                              [MinorityPosition("Ann would go slower", "Ann", "risk")], generated_by="b",
                              generated="2026-01-01T00:00:00Z")
    return d


def second_discussion() -> Discussion:
    """One round, still active: Ann's answer failed, Bob answered and won."""
    r1 = make_round(1, 3, {"b": "solo answer"},
                    [("a", "b", "APPROVE", "good"), ("b", "b", "APPROVE", "mine")],
                    [("a", "CONTINUE", "go on"), ("b", "CONCLUDE", "done")])
    r1.failures = [Failure("respond", "a", "RateLimitError (429)", 3, False)]
    ballot_box(r1).abstentions = []
    return Discussion("q-2", "second", "Second question?", PANEL, Settings(), started_at="2026-01-01T00:00:00Z",
                      rounds=[r1])


def sample_site(root: Path) -> Path:
    """A project with two discussed questions and one without a discussion."""
    write_atomic(root / "mkdocs.yml", MKDOCS)
    write_atomic(root / "content" / "index.md", "# Home\n")
    for d, tags in ((first_discussion(), "[power, policy]"), (second_discussion(), "[]")):
        path = question(root, d.question_slug, d.question_title, tags)
        store.save(d, path.with_suffix(""))
    question(root, "third", "Third question?")
    return root


def build(root: Path) -> Path:
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    config = load_config(str(root / "mkdocs.yml"))
    # As `mkdocs build` does: a plugin instance lives as long as the process, and a build says what it is.
    config.plugins.on_startup(command="build", dirty=False)
    mkdocs_build(config)
    return root / "site"


def with_abstention(d: Discussion) -> Discussion:
    ballot_box(d.rounds[0]).abstentions = [Abstention("a", "invalid ballot: no vote for B")]
    return d
