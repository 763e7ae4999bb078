"""Every protocol's outcome recomputed from its record: a forgery with the chain recomputed to match (what a
reader of the docs can do) is named by `verify` without a base, and with one; honest records hold."""

from __future__ import annotations

import json
import re

import pytest

from conftest import Project
from discuss.protocols import names as protocol_names
from discuss.store import yamlio, yamlwrite
from discuss.store.chain import new_record, sealed
from test_verify import git

PROTOCOLS = protocol_names()[:9]


def asked(project: Project, protocol: str, *extra: str):
    result = project.cli("ask", f"Which unit first, by {protocol}?", "--protocol", protocol, "--panel", "offline",
                         "-q", *extra)
    assert result.exit_code == 0, (protocol, result.output)
    return project.content / "questions" / f"which-unit-first-by-{protocol}"


def reseal(folder) -> None:
    """The chain written again from the files as they are now: the forger's last step."""
    index = folder / "discussion.yaml"
    data = yamlio.load(index.read_text())
    was = data["record"]
    fresh = new_record(was.get("question"))
    sealed(fresh, [int(e["round"]) for e in was["rounds"]], lambda n: folder / f"round-{n}",
           folder / "conclusion.md" if "conclusion" in was else None)
    data["record"] = fresh
    index.write_text(yamlwrite.dump(data))


def edit(path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert re.search(old, text), (path, old)
    path.write_text(re.sub(old, new, text, count=count))


def kinds(project: Project, *args: str) -> tuple[int, set[str], list[dict]]:
    result = project.cli("verify", *args, "--json")
    found = json.loads(result.stdout)["findings"]
    return result.exit_code, {f["kind"] for f in found}, found


def other_member(now: str) -> str:
    return next(m for m in ("pragmatist", "skeptic", "visionary") if m != now)


def _author(folder) -> None:
    edit(folder / "conclusion.md", r"generatedBy: (\w+)",
         lambda m: f"generatedBy: {other_member(m.group(1))}")


def _agreement(folder) -> None:
    edit(folder / "discussion.yaml", r"agreement: 0\.\d+", "agreement: 0.9")
    edit(folder / "round-1" / "round.yaml", r"agreement: 0\.\d+", "agreement: 0.9")


def _critique_stop(folder) -> None:
    # Round 2's judge did not converge (the stop came a round later): say it did, and stop there.
    path = folder / "round-2" / "round.yaml"
    edit(path, r"converged: false", "converged: true")


def _critique_score(folder) -> None:
    edit(folder / "round-3" / "round.yaml", r"(?m)^  caveats: [\d.]+", "  caveats: 0.5")


def _deliberate_best(folder) -> None:
    edit(folder / "round-3" / "round.yaml", r"(?m)^  best: A", "  best: B")


def _deliberate_threshold(folder) -> None:
    edit(folder / "round-3" / "round.yaml", r"(?m)^  taskType: default\n  threshold: 0.7",
         "  taskType: documentation\n  threshold: 0.5")


def _tournament_champion(folder) -> None:
    text = (folder / "round-3" / "round.yaml").read_text()
    winner = re.search(r"champion: (\w+)", text).group(1)
    loser = next(s for s in re.findall(r"[ab]: (\w+)", text) if s != winner)
    edit(folder / "round-3" / "round.yaml", r"champion: \w+", f"champion: {loser}")


def _tournament_bracket(folder) -> None:
    edit(folder / "round-3" / "round.yaml", r"winner: (\w+)", "winner: visionary")


def _decompose_assignee(folder) -> None:
    edit(folder / "round-2" / "round.yaml", r"assignee: (\w+)", "assignee: pragmatist")


def _auto_escalation(folder) -> None:
    edit(folder / "round-1" / "round.yaml", r"debate: true", "debate: false")


def _adversarial_reviewer(folder) -> None:
    reply = next((folder / "round-2").glob("*.md"))
    edit(reply, r"role: reviewer", "role: converger")


def _debate_critique(folder) -> None:
    edit(folder / "round-2" / "round.yaml", r"target: (\w+)", lambda m: f"target: {other_member(m.group(1))}")


# protocol -> forgery -> (what it does, the kinds any of which names it)
FORGERIES = {
    ("council", "agreement raised"): (_agreement, {"agreement"}),
    ("council", "synthesis author"): (_author, {"conclusion-author"}),
    ("debate", "agreement raised"): (_agreement, {"agreement"}),
    ("debate", "critique retargeted"): (_debate_critique, {"critique"}),
    ("adversarial", "answer credited to another"): (_author, {"conclusion-author"}),
    ("adversarial", "review relabelled"): (_adversarial_reviewer, {"reply-author"}),
    ("critique", "stop rewritten to converged"): (_critique_stop, {"convergence", "termination"}),
    ("critique", "judge's score above its axes"): (_critique_score, {"judge-score", "convergence"}),
    ("critique", "attributed answer by a debater"): (_author, {"conclusion-author"}),
    ("deliberate", "consensus handed to the runner-up"): (_deliberate_best, {"consensus-best"}),
    ("deliberate", "threshold lowered by the task type"): (_deliberate_threshold, {"task-type"}),
    ("deliberate", "decision by another"): (_author, {"conclusion-author"}),
    ("tournament", "champion set to the final's loser"): (_tournament_champion, {"champion"}),
    ("tournament", "a winner who was no side"): (_tournament_bracket, {"match-winner", "champion"}),
    ("decompose", "answer credited to a part's author"): (_author, {"conclusion-author"}),
    ("decompose", "a part reassigned"): (_decompose_assignee, {"assignment", "reply-author"}),
    ("auto", "escalation flipped"): (_auto_escalation, {"escalation", "stage"}),
    ("auto", "synthesis author"): (_author, {"conclusion-author"}),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES), ids=lambda f: f"{f[0]}: {f[1]}")
def test_each_rule_forged_with_the_chain_to_match_is_named_without_a_base_and_with_one(project, forgery):
    protocol = forgery[0]
    if protocol == "auto":  # a question at high stakes: the council debates, whatever its agreement
        project.cli("new", f"Which unit first, by {protocol}?")
        path = project.content / "questions" / f"which-unit-first-by-{protocol}.md"
        path.write_text(path.read_text().replace("title:", "stakes: high\ntitle:", 1))
        assert project.cli("run", path.stem, "--protocol", "auto", "--panel", "offline", "--auto", "-q",
                           "--yes").exit_code == 0
        folder = path.with_suffix("")
    else:
        folder = asked(project, protocol)
    git(project.root, "init", "-q", "--initial-branch=main")
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "base")
    assert kinds(project)[0] == 0
    forge, expected = FORGERIES[forgery]
    forge(folder)
    reseal(folder)
    code, found, detail = kinds(project)
    assert code == 1 and expected & found, detail
    assert "chain-edited" not in found and "file-changed" not in found  # the chain itself holds: the rules catch it
    code, found, detail = kinds(project, "--base", "HEAD")
    assert code == 1 and expected & found, detail


def test_every_protocol_recomputes_and_a_plugin_without_is_said_to_have_none(project, monkeypatch):
    from discuss.protocols.council import Council
    from discuss.protocols.parts import Figures

    for protocol in PROTOCOLS:
        asked(project, protocol)
    report = json.loads(project.cli("verify", "--json").stdout)
    assert report["findings"] == [] and report["discussions"] == len(PROTOCOLS)
    assert not [n for n in report["notes"] if "no recomputation" in n["note"]]
    monkeypatch.setattr(Council, "figures", Figures())  # as a plugin that offers none
    report = json.loads(project.cli("verify", "--json").stdout)
    said = [n for n in report["notes"] if "no recomputation" in n["note"]]
    assert [n["question"] for n in said] == ["questions/which-unit-first-by-council"]
    assert "not known to hold" in said[0]["note"]


@pytest.mark.parametrize("edited", ["background", "title"])
def test_a_question_edited_after_a_round_answered_it_is_named_with_and_without_a_base(project, edited):
    folder = asked(project, "council")
    git(project.root, "init", "-q", "--initial-branch=main")
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "base")
    path = folder.with_suffix(".md")
    if edited == "background":
        path.write_text(path.read_text() + "\nAlso: the panel must favour the cheapest option.\n")
    else:
        edit(path, r"title: .*", "title: Which unit first, and why the cheapest?")
    for args in ((), ("--base", "HEAD")):
        code, found, detail = kinds(project, *args)
        named = [f for f in detail if f["kind"] == "question-changed"]
        assert code == 1 and named, detail
        assert named[0]["round"] == 1 and "follow-up" in named[0]["message"]
