"""An eval is inside the record `verify` checks: its report recomputed from its items' files, its item
discussions checked as any discussion is, a path under evals/ taken, and, against a base, every answered
item a pull request changed named."""

from __future__ import annotations

import pytest

from conftest import Project
from test_verify import edit, git, verified


@pytest.fixture
def evaluated(project: Project) -> Project:
    """Three arithmetic items, a vote and a majority of the offline panel, committed as a base."""
    ran = project.cli("eval", "arithmetic", "--panel", "offline", "--items", "3", "--arms", "vote,majority", "-q")
    assert ran.exit_code == 0, ran.output
    git(project.root, "init", "-q", "--initial-branch=main")
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "base")
    return project


def test_an_honest_eval_holds_and_a_path_under_evals_is_taken(evaluated):
    assert verified(evaluated) == (0, [])
    code, found = verified(evaluated, str(evaluated.root / "evals" / "arithmetic" / "vote"))
    assert (code, found) == (0, [])
    assert verified(evaluated, "--base", "main") == (0, [])


def test_an_edited_report_is_named_with_and_without_the_base(evaluated):
    report = evaluated.root / "evals" / "arithmetic" / "report.yaml"
    edit(report, r"correct: \d+", "correct: 3")
    for args in ((), ("--base", "main"), (str(report.parent),)):
        code, found = verified(evaluated, *args)
        assert code == 1 and any(f["kind"] == "eval-report" and f["file"] == "report.yaml" for f in found), args


def test_an_answered_items_ballot_edited_on_a_branch_is_named_by_the_base(evaluated):
    votes = sorted((evaluated.root / "evals" / "arithmetic" / "vote").rglob("votes.yaml"))[0]
    edit(votes, r"vote: (APPROVE|NEUTRAL)", "vote: REJECT")
    code, found = verified(evaluated, "--base", "main")
    item = f"arithmetic/vote/{votes.parent.parent.name}"
    assert code == 1 and any(f["question"] == item and f["kind"] == "file-changed" and f["file"] == "round-1/votes.yaml"
                             for f in found), found  # named as a change the pull request made, besides the recount
