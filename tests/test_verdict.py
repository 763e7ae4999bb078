"""`discuss verdict`: a decision from the synthesis's structured reply, confidence from the ballots, dissent verbatim."""

from __future__ import annotations

import asyncio
import json

import pytest

from scripted import ballot, scripted_panel, write_scripts

QUESTION = """---
title: Should the swarm keep a spare unit?
slug: spare-unit
decision: yes-no
---

Background: a spare costs mass, a failure costs a month.
"""


def everyone(**votes):
    return {pid: votes.get(pid, "APPROVE") for pid in ("ann", "bob", "cy")}


def conclusion(decision: str) -> dict:
    return {"summary": "Keep one spare unit in orbit.", "keyPoints": ["A month of outage costs more."],
            "minorityPositions": [{"position": "A spare is dead mass.", "heldBy": "cy", "reasoning": "mass"}],
            "decision": decision}


@pytest.fixture
def decided(project):
    (project.content / "questions" / "spare-unit.md").write_text(QUESTION)
    project.write_panels(scripted_panel(settings="{retryBaseDelay: 0.0, maxRounds: 1}"))
    vote = ballot("CONCLUDE", **everyone(cy="REJECT"))
    vote["votes"] = [dict(v, reasoning="too heavy to carry" if v["vote"] == "REJECT" else v["reasoning"])
                     for v in vote["votes"]]
    scripts = {pid: [{"task": "vote", "json": vote}, {"task": "conclude", "json": conclusion("yes")}]
               for pid in ("ann", "bob", "cy")}
    write_scripts(project.root, **scripts)
    result = project.cli("run", "spare-unit", "--auto", "-q")
    assert result.exit_code == 0, result.output
    return project


def test_the_verdict_carries_every_field_and_the_panels_decision(decided):
    result = decided.cli("verdict", "spare-unit", "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    for key in ("question", "decision", "confidence", "conclusion", "dissent", "members", "degraded", "protocol",
                "rounds", "recordDigest", "uri"):
        assert key in found, key
    assert found["decision"] == "yes" and found["options"] == ["yes", "no"]
    assert 0 < found["confidence"] <= 1 and found["recordDigest"] and found["uri"] == "discussion://spare-unit"
    assert set(found["degraded"]) == {"failedCalls", "cutReplies", "abstentions", "missingMembers"}
    record = "".join(p.read_text() for p in (decided.content / "questions" / "spare-unit").rglob("*") if p.is_file())
    assert found["dissent"] and all(item["text"] in record for item in found["dissent"])  # verbatim, never made up
    assert {"panelist": "cy", "name": "Cy", "simulated": True, "text": "A spare is dead mass."} in found["dissent"]
    assert all(item["panelist"] in ("ann", "bob", "cy") for item in found["dissent"])  # one name for each member


def test_a_split_panel_is_unclear_whatever_the_synthesis_says(project):
    (project.content / "questions" / "spare-unit.md").write_text(QUESTION)
    project.write_panels(scripted_panel(settings="{retryBaseDelay: 0.0, maxRounds: 1}"))
    split = ballot("CONCLUDE", **{pid: "REJECT" for pid in ("ann", "bob", "cy")})
    write_scripts(project.root, **{pid: [{"task": "vote", "json": split}, {"task": "conclude", "json": conclusion("no")}]
                                   for pid in ("ann", "bob", "cy")})
    assert project.cli("run", "spare-unit", "--auto", "-q").exit_code == 0
    found = json.loads(project.cli("verdict", "spare-unit", "--json").stdout)
    assert found["confidence"] < 0.5 and found["decision"] == "unclear"


def test_a_decision_outside_the_options_is_asked_again(project):
    (project.content / "questions" / "spare-unit.md").write_text(QUESTION)
    project.write_panels(scripted_panel(settings="{retryBaseDelay: 0.0, maxRounds: 1}"))
    vote = ballot("CONCLUDE", **everyone())
    write_scripts(project.root, **{pid: [{"task": "vote", "json": vote},
                                         {"task": "conclude", "ask": 1, "json": conclusion("maybe")},
                                         {"task": "conclude", "json": conclusion("No")}] for pid in ("ann", "bob", "cy")})
    assert project.cli("run", "spare-unit", "--auto", "-q").exit_code == 0
    found = json.loads(project.cli("verdict", "spare-unit", "--json").stdout)
    assert found["decision"] == "no"  # asked again, and the option's own spelling kept


def test_the_mcp_verdict_tool_and_a_waited_ask_give_the_same(decided):
    from mcp import Client

    from discuss.mcp_server.server import build

    async def go():
        async with Client(build(decided.root)) as client:
            return (await client.call_tool("verdict", {"question": "spare-unit"})).structured_content
    found = asyncio.run(go())
    assert found["decision"] == "yes" and found["slug"] == "spare-unit"


def test_a_forged_record_is_never_handed_out_as_the_panels_decision(decided):
    """The CLI, the MCP tool and the result of a waited ask carry `verified` and the findings; a forged vote's
    decision is `unverified`, with no confidence."""
    import re

    from mcp import Client

    from discuss.mcp_server.server import build

    honest = json.loads(decided.cli("verdict", "spare-unit", "--json").stdout)
    assert honest["verified"] is True and honest["findings"] == [] and honest["decision"] == "yes"
    index = decided.content / "questions" / "spare-unit" / "discussion.yaml"
    text = index.read_text()
    winner = re.search(r"winnerId: (\w+)", text).group(1)
    index.write_text(text.replace(f"winnerId: {winner}", f"winnerId: {'ann' if winner != 'ann' else 'bob'}", 1))
    found = json.loads(decided.cli("verdict", "spare-unit", "--json").stdout)
    assert found["verified"] is False and found["decision"] == "unverified" and found["confidence"] is None
    assert any(f["kind"] == "winner" for f in found["findings"])
    shown = decided.cli("verdict", "spare-unit").stdout
    assert "UNVERIFIED" in shown and "decision: yes" not in shown

    async def go():
        async with Client(build(decided.root)) as client:
            return (await client.call_tool("verdict", {"question": "spare-unit"})).structured_content
    tool = asyncio.run(go())
    assert tool["verified"] is False and tool["decision"] == "unverified"
    from discuss.mcp_server.server import _with_outcome
    from discuss.store.layout import Layout

    waited = _with_outcome(Layout(decided.root), {"slug": "spare-unit", "status": "concluded"})  # a waited ask's end
    assert waited["verdict"]["verified"] is False and waited["verdict"]["decision"] == "unverified"


def test_dissent_names_each_member_one_way_with_whether_a_stand_in_wrote_it(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    found = json.loads(project.cli("verdict", "swarm-power", "--json").stdout)
    names = {m["id"]: m["name"] for m in found["members"]}
    assert found["dissent"], found  # the offline panel's conclusion keeps a minority position
    for item in found["dissent"]:
        assert item["panelist"] in names and item["name"] == names[item["panelist"]] and item["simulated"] is True
