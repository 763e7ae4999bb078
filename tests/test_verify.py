"""`discuss verify`: every honest history holds; each way of rewriting a record is caught and named."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import Project
from discuss.protocols import names as protocol_names

PROTOCOLS = protocol_names()[:9]


def git(root, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t", *args],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def recorded(project: Project) -> Project:
    """A concluded offline vote discussion, committed as a pull request's base."""
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    git(project.root, "init", "-q", "--initial-branch=main")
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "base")
    return project


def verified(project: Project, *args: str) -> tuple[int, list[dict]]:
    result = project.cli("verify", *args, "--json")
    return result.exit_code, json.loads(result.stdout)["findings"] if result.stdout.strip() else []


def edit(path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert re.search(old, text), (path, old)
    path.write_text(re.sub(old, new, text, count=count))


def test_every_protocol_run_to_its_end_holds_and_each_is_recomputed(project):
    for protocol in PROTOCOLS:
        result = project.cli("ask", f"Which unit first, by {protocol}?", "--protocol", protocol, "--panel", "offline",
                             "-q")
        assert result.exit_code == 0, (protocol, result.output)
    result = project.cli("verify", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["findings"] == [] and report["discussions"] == len(PROTOCOLS)
    assert not [n for n in report["notes"] if "no recomputation" in n["note"]]


TAMPERS = {
    "a ballot's vote": ("round-1/votes.yaml", r"vote: (APPROVE|NEUTRAL)", "vote: REJECT", {"vote-vote", "score"}),
    "a reason": ("round-2/votes.yaml", r"reasoning: ", "reasoning: FORGED ", {"vote-reasoning", "file-changed"}),
    "a score": ("round-1/votes.yaml", r"weightedScore: [\d.]+", "weightedScore: 99", {"score"}),
    "a winner": ("discussion.yaml", r"winnerId: (\w+)", "winnerId: nobody", {"winner", "index-winnerId"}),
    "a termination vote": ("round-1/votes.yaml", r"vote: CONTINUE", "vote: CONCLUDE", {"termination-vote-vote"}),
    "a changed reply": ("round-2/skeptic.md", r"\n\n", "\n\nFORGED. ", {"reply-changed", "file-changed"}),
    "a conclusion's author": ("conclusion.md", r"generatedBy: (\w+)", "generatedBy: pragmatist",
                              {"conclusion-author", "conclusion-changed"}),
}


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_each_tamper_is_caught_and_named(recorded, tamper):
    file, old, new, kinds = TAMPERS[tamper]
    target = recorded.folder / file
    if "conclusion" in tamper and re.search(r"generatedBy: pragmatist", target.read_text()):
        new = "generatedBy: visionary"
    edit(target, old, new)
    code, found = verified(recorded, "--base", "HEAD")
    assert code == 1
    assert kinds & {f["kind"] for f in found}, found
    assert all(f["question"] == "questions/swarm-power" for f in found)


def test_a_deleted_or_reordered_round_is_caught(recorded):
    folder = recorded.folder
    shutil.rmtree(folder / "round-3")
    code, found = verified(recorded, "--base", "HEAD")
    assert code == 1 and any(f["round"] == 3 and f["kind"].endswith("deleted") for f in found)
    git(recorded.root, "checkout", "-q", "--", ".")
    (folder / "round-1").rename(folder / "round-x")
    (folder / "round-2").rename(folder / "round-1")
    (folder / "round-x").rename(folder / "round-2")
    code, found = verified(recorded)  # without a base, the chain alone finds it
    assert code == 1 and {f["round"] for f in found} >= {1, 2}


def test_a_source_edited_after_the_run_and_a_chain_entry_edited_to_match_are_caught(recorded):
    folder = recorded.folder
    reply = folder / "round-1" / "skeptic.md"
    reply.write_text(reply.read_text() + "\nFORGED.\n")
    import hashlib

    index = folder / "discussion.yaml"
    text = index.read_text()
    old = re.search(r"skeptic\.md: ([0-9a-f]{64})", text).group(1)
    index.write_text(text.replace(old, hashlib.sha256(reply.read_bytes()).hexdigest()))
    code, found = verified(recorded)
    assert code == 1 and "chain-edited" in {f["kind"] for f in found}


def test_honest_histories_pass_the_base(recorded):
    root = recorded.root
    assert recorded.cli("follow-up", "swarm-power", "And the spare?", "-q").exit_code == 0
    assert recorded.cli("audit", "swarm-power", "--orders", "1").exit_code == 0
    assert recorded.cli("trials", "swarm-power", "--runs", "1", "--panel", "offline").exit_code == 0
    recorded.cli("new", "Half run?")
    assert recorded.cli("run", "half-run", "--panel", "offline", "--rounds", "1", "--yes", "-q").exit_code == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "second")
    assert recorded.cli("run", "half-run", "--auto", "--yes", "-q").exit_code == 0  # resumed
    assert recorded.cli("audit", "swarm-power", "--orders", "2").exit_code == 0
    for base in ("HEAD", "HEAD~1"):
        code, found = verified(recorded, "--base", base)
        assert code == 0 and found == [], (base, found)


def test_bad_input_is_exit_2_in_words(recorded, tmp_path):
    result = recorded.cli("verify", "--base", "no-such-branch")
    assert result.exit_code == 2 and "no such commit or branch" in result.stderr
    plain = Project(tmp_path / "plain")
    result = plain.cli("verify", "--base", "HEAD")
    assert result.exit_code == 2 and "not in a git repository" in result.stderr


def test_the_pull_request_gate_passes_an_honest_branch_and_fails_a_tampered_one(recorded, tmp_path):
    import os
    import sys

    from discuss.store import yamlio

    assert recorded.cli("ci", "init", "--install", "true").exit_code == 0
    gate = yamlio.load((recorded.root / ".github" / "workflows" / "discuss-verify.yml").read_text())
    assert gate["jobs"]["verify"]["permissions"] == {"contents": "read"} and gate["permissions"] == {}
    step = next(s for s in gate["jobs"]["verify"]["steps"] if "discuss verify" in s.get("run", ""))
    base = git(recorded.root, "rev-parse", "HEAD").strip()
    summary = tmp_path / "summary.md"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "discuss").write_text(f"#!/bin/sh\nexec {sys.executable} -m discuss \"$@\"\n")
    (bin_dir / "discuss").chmod(0o755)
    env = {**os.environ, "BASE_SHA": base, "GITHUB_STEP_SUMMARY": str(summary),
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}

    def gate_run() -> int:
        return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=recorded.root, env=env,
                              capture_output=True, text=True).returncode

    assert gate_run() == 0
    edit(recorded.folder / "discussion.yaml", r"winnerId: (\w+)", "winnerId: nobody")
    assert gate_run() == 1
    assert "winnerId" in summary.read_text()


def test_the_gate_passes_actionlint(recorded):
    from test_ci import actionlint

    exe = actionlint()
    if exe is None:
        pytest.skip("actionlint is not installed")
    assert recorded.cli("ci", "init", "--install", "pip install discuss-panel").exit_code == 0
    gate = recorded.root / ".github" / "workflows" / "discuss-verify.yml"
    done = subprocess.run([exe, "-no-color", str(gate)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_forged_outcome_is_marked_wherever_the_discussion_is_read(recorded):
    from sitekit import MKDOCS, build

    index = recorded.folder / "discussion.yaml"
    winner = re.search(r"winnerId: (\w+)", index.read_text()).group(1)
    other = next(m for m in ("pragmatist", "skeptic", "visionary") if m != winner)
    edit(index, r"winnerId: (\w+)", f"winnerId: {other}")
    shown = recorded.cli("show", "swarm-power").stdout
    assert "does not follow from the recorded ballots" in shown and other in shown
    checked = recorded.cli("check")
    assert checked.exit_code == 1 and "does not follow from its ballots" in checked.stdout
    (recorded.root / "mkdocs.yml").write_text(MKDOCS)
    html = (build(recorded.root) / "questions" / "swarm-power" / "index.html").read_text()
    assert "The recorded outcome does not follow from the record" in html


def test_a_discussion_that_says_it_concluded_with_no_round_is_not_built_on(recorded):
    index = recorded.folder / "discussion.yaml"
    text = index.read_text()
    text = re.sub(r"(?m)^(currentRound|completedRounds): \d+", r"\1: 0", text)
    index.write_text(re.sub(r"(?ms)^rounds:\n.*?(?=^\w)", "rounds: []\n", text))
    for path in recorded.folder.glob("round-*"):
        shutil.rmtree(path)
    (recorded.folder / "conclusion.md").unlink()
    result = recorded.cli("run", "swarm-power", "--auto")
    assert result.exit_code == 2 and "damaged" in result.stderr, result.output
    result = recorded.cli("follow-up", "swarm-power", "And then?")
    assert result.exit_code == 2 and "damaged" in result.stderr, result.output


def test_project_dysons_threads_and_every_recorded_protocol_hold_and_say_the_chain_is_absent(project):
    data = Path(__file__).parent / "data"
    shutil.copytree(data / "dyson", project.content / "research-questions")
    shutil.copytree(data / "recorded", project.content / "recorded")
    result = project.cli("verify", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["findings"] == [] and report["discussions"] >= 11
    absent = {n["question"] for n in report["notes"] if "no chain" in n["note"]}
    assert any(q.startswith("research-questions/") for q in absent) and any(q.startswith("recorded/") for q in absent)


def test_a_source_edited_after_the_run_is_named(project):
    notes = project.content / "questions" / "notes.md"
    notes.write_text("The bus runs at 48 volts.\n")
    project.question.write_text(project.question.read_text().replace("title:", "sources: [notes.md]\ntitle:", 1))
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q", "--yes").exit_code == 0
    assert verified(project) == (0, [])
    notes.write_text("The bus runs at 400 volts.\n")
    code, found = verified(project)
    assert code == 1 and [f["kind"] for f in found] == ["source-changed"] and found[0]["file"] == "notes.md"


def test_a_recorded_file_replaced_by_a_link_out_of_the_project_is_caught_and_never_read(recorded):
    """A pull request can carry a link where a ballot was: verify names the change and reads nothing through it."""
    votes = next(recorded.folder.glob("round-1/votes.yaml"))
    outside = recorded.root.parent / "machine.yaml"
    outside.write_text(votes.read_text().replace("reasoning: ", "reasoning: LEAKED-7f3a ", 1))
    votes.unlink()
    votes.symlink_to(outside)
    result = recorded.cli("verify", "--base", "HEAD", "--json")
    assert result.exit_code == 1 and "round-1/votes.yaml" in result.stdout
    assert "LEAKED" not in result.output + (result.stderr or "")


def test_a_pull_request_that_moves_the_record_is_named_and_the_bases_folder_still_checked(recorded):
    """`content: elsewhere` in the panel file, with a flipped ballot: the base says where the record lives."""
    edit(recorded.folder / "round-1" / "votes.yaml", r"vote: (APPROVE|NEUTRAL)", "vote: REJECT")
    (recorded.root / "elsewhere").mkdir()
    panels = recorded.root / "discussions" / "panels.yaml"
    panels.write_text("content: elsewhere\n" + panels.read_text())
    code, found = verified(recorded, "--base", "HEAD")
    kinds = {f["kind"] for f in found}
    assert code == 1 and "content-moved" in kinds and kinds & {"vote-vote", "score"}, found
    moved = next(f for f in found if f["kind"] == "content-moved")
    assert moved["before"] == "content" and moved["after"] == "elsewhere"


def test_a_frozen_source_rehashed_and_a_panel_rewritten_are_named_against_the_base(project):
    notes = project.content / "questions" / "notes.md"
    notes.write_text("The bus runs at 48 volts.\n")
    project.question.write_text(project.question.read_text().replace("title:", "sources: [notes.md]\ntitle:", 1))
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q", "--yes").exit_code == 0
    git(project.root, "init", "-q", "--initial-branch=main")
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "base")
    import hashlib

    index = project.folder / "discussion.yaml"
    old = hashlib.sha256(notes.read_bytes()).hexdigest()
    notes.write_text("The bus runs at 400 volts.\n")
    index.write_text(index.read_text().replace(old, hashlib.sha256(notes.read_bytes()).hexdigest()))
    assert verified(project) == (0, [])  # the source and its recorded hash agree: only the base can tell
    code, found = verified(project, "--base", "HEAD")
    assert code == 1 and [f for f in found if f["kind"] == "sources-rebound" and "notes.md" in f["message"]], found
    git(project.root, "checkout", "-q", "--", ".")
    edit(index, r"model: offline/skeptic", "model: anthropic/claude-opus-4-6")
    code, found = verified(project, "--base", "HEAD")
    panel = [f for f in found if f["kind"] == "panel-rebound"]
    assert code == 1 and panel and "anthropic/claude-opus-4-6" in panel[0]["message"], found
