"""`discuss resolve`: what happened is recorded beside the conclusion, checked against the question's options,
sealed onto the record's chain (an outcome edited later is named by `verify`, with and without --base), shown
first by `show`; a follow-up part is resolved on its own; bad input writes nothing."""

from __future__ import annotations

import json

import pytest

from conftest import Project
from discuss.store import documents
from test_verify import git, verified

DECIDING = "title: How should swarm power be distributed?\nslug: swarm-power\ndecision: yes-no\n"


@pytest.fixture
def concluded(project: Project) -> Project:
    """A concluded offline discussion of a yes-no question, committed as a pull request's base."""
    text = project.question.read_text().replace("title: How should swarm power be distributed?\nslug: swarm-power\n",
                                                 DECIDING)
    project.question.write_text(text)
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    git(project.root, "init", "-q", "--initial-branch=main")
    git(project.root, "config", "user.name", "Ada Lovelace")
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "base")
    return project


def resolved(project: Project, *args: str) -> dict:
    result = project.cli("resolve", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_an_outcome_is_recorded_with_when_what_answer_evidence_and_who(concluded):
    (concluded.root / "report.pdf").write_bytes(b"the pilot worked")
    done = resolved(concluded, "swarm-power", "--outcome", "The pilot beamed power to the first users.",
                    "--answer", "YES", "--source", "https://example.org/pilot", "--source", "report.pdf")
    decision = documents.read(concluded.folder / "conclusion.md")[0]["decision"]
    assert done["answer"] == "yes" and done["decision"] == decision and done["bornOut"] == (decision == "yes")
    assert done["resolvedBy"] == "Ada Lovelace" and done["chained"] is True
    meta, body = documents.read(concluded.folder / "outcome.md")
    assert meta["answer"] == "yes" and meta["resolvedBy"] == "Ada Lovelace" and meta["resolved"].endswith("Z")
    assert meta["evidence"][0] == {"url": "https://example.org/pilot"}
    assert meta["evidence"][1]["file"] == "report.pdf" and len(meta["evidence"][1]["sha256"]) == 64
    assert "The pilot beamed power" in body and str(concluded.root) not in (concluded.folder / "outcome.md").read_text()
    assert verified(concluded) == (0, [])
    shown = concluded.cli("show", "swarm-power").stdout
    assert shown.startswith("Outcome (") and "The pilot beamed power" in shown.splitlines()[1]
    data = json.loads(concluded.cli("show", "swarm-power", "--json").stdout)
    assert data["outcome"]["answer"] == "yes" and data["outcome"]["resolvedBy"] == "Ada Lovelace"


def test_an_outcome_edited_on_a_branch_is_named_by_verify_with_and_without_the_base(concluded):
    resolved(concluded, "swarm-power", "--outcome", "It went ahead.", "--answer", "yes")
    git(concluded.root, "add", "-A")
    git(concluded.root, "commit", "-qm", "resolved")
    git(concluded.root, "checkout", "-qb", "rewrite")
    path = concluded.folder / "outcome.md"
    path.write_text(path.read_text().replace("answer: 'yes'", "answer: 'no'").replace("answer: yes", "answer: no"))
    assert "answer: 'no'" in path.read_text() or "answer: no" in path.read_text()
    code, found = verified(concluded)
    assert code == 1 and [(f["file"], f["kind"]) for f in found] == [("outcome.md", "file-changed")]
    code, found = verified(concluded, "--base", "main")
    assert code == 1 and ("outcome.md", "outcome-changed") in [(f["file"], f["kind"]) for f in found]
    # Rewriting the chain's entry to match hides nothing from the base.
    from discuss.store import discussions as store
    from discuss.store.chain import with_outcome

    d = store.load(concluded.folder)
    del d.record["outcome"]
    with_outcome(d.record, path)
    store.save(d, concluded.folder, from_round=len(d.rounds) + 1)
    assert verified(concluded)[0] == 0
    code, found = verified(concluded, "--base", "main")
    assert code == 1 and ("outcome.md", "outcome-changed") in [(f["file"], f["kind"]) for f in found]


def test_a_follow_up_part_is_resolved_on_its_own(concluded):
    assert concluded.cli("follow-up", "swarm-power", "And who pays for it?", "--auto", "-q").exit_code == 0
    done = resolved(concluded, "swarm-power-part-2", "--outcome", "The agency paid.")
    assert (concluded.folder / "part-2" / "outcome.md").is_file() and not (concluded.folder / "outcome.md").exists()
    assert done["answer"] is None and done["bornOut"] is None
    assert verified(concluded) == (0, [])
    assert resolved(concluded, "swarm-power", "--outcome", "Built.", "--answer", "no")["answer"] == "no"


@pytest.mark.parametrize("args, words", [
    (["--outcome", "x", "--answer", "maybe"], "give one of yes, no"),
    (["--outcome", "   "], "say what happened"),
    (["--outcome", "x", "--source", "/etc/passwd"], "outside the project"),
    (["--outcome", "x", "--source", "https://user:pw@example.org/"], "no credentials"),
    (["--outcome", "x", "--source", "ftp://example.org/x"], "only http and https"),
    (["--outcome", "x", "--source", "missing.txt"], "no such file"),
])
def test_bad_input_is_refused_in_words_and_writes_nothing(concluded, args, words):
    before = concluded.snapshot()
    result = concluded.cli("resolve", "swarm-power", *args)
    assert result.exit_code == 2 and words in result.stderr, result.output
    assert concluded.snapshot() == before


def test_a_discussion_is_resolved_once_and_only_when_finished(concluded):
    resolved(concluded, "swarm-power", "--outcome", "Done.")
    again = concluded.cli("resolve", "swarm-power", "--outcome", "Done again.")
    assert again.exit_code == 2 and "resolved already" in again.stderr
    (concluded.content / "questions" / "fresh.md").write_text("---\ntitle: A fresh one?\n---\n\nNothing yet.\n")
    fresh = concluded.cli("resolve", "fresh", "--outcome", "x")
    assert fresh.exit_code == 2 and "no discussion yet" in fresh.stderr


def test_the_mcp_tool_records_the_same(concluded):
    pytest.importorskip("mcp")
    from test_mcp import call

    result = call(concluded.root, "resolve", {"question": "swarm-power", "outcome": "Done.", "answer": "no"})
    assert json.loads(result.content[0].text)["answer"] == "no"
    assert documents.read(concluded.folder / "outcome.md")[0]["answer"] == "no"


def test_an_honest_resolve_on_a_branch_passes_the_base_and_rewrites_nothing_recorded(concluded):
    from discuss.store import yamlio

    index = concluded.folder / "discussion.yaml"
    before = {p: p.read_bytes() for p in concluded.folder.rglob("*") if p.is_file()}
    git(concluded.root, "checkout", "-qb", "resolve")
    resolved(concluded, "swarm-power", "--outcome", "It went ahead.", "--answer", "yes")
    after = {p: p.read_bytes() for p in concluded.folder.rglob("*") if p.is_file()}
    assert {p for p in after if after[p] != before.get(p)} == {index, concluded.folder / "outcome.md"}
    was, now = yamlio.load(before[index].decode()), yamlio.load(after[index].decode())
    assert set(now["record"].pop("outcome")) == {"file", "sha256", "digest"} and now == was
    assert verified(concluded, "--base", "main") == (0, [])
