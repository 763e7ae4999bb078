"""`discuss mcp`: the SDK's own client lists the tools, starts a discussion on a slow panel and gets its slug at
once, follows it from a second server to its end, reads its conclusion, and gets named errors."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from conftest import Project, fake_panel  # noqa: E402
from discuss.mcp_server.server import build  # noqa: E402

SRC = str(Path(__file__).resolve().parent.parent / "src")


def call(root: Path, tool: str, arguments: dict | None = None, **options):
    async def go():
        async with Client(build(root)) as client:
            return await client.call_tool(tool, arguments or {}, **options)
    return asyncio.run(go())


def test_the_tools_are_listed_with_their_schemas(project):
    async def go():
        async with Client(build(project.root)) as client:
            return await client.list_tools()
    tools = {t.name: t for t in asyncio.run(go()).tools}
    assert {"ask", "status", "show", "follow_up", "reply", "estimate", "audit", "trials", "panels",
            "protocols"} <= set(tools)
    assert tools["ask"].input_schema["required"] == ["question"]
    assert {"background", "panel", "models", "protocol", "max_rounds", "max_cost", "settings", "decision",
            "wait_seconds"} <= \
        set(tools["ask"].input_schema["properties"])


def test_ask_returns_before_a_slow_panel_answers_and_status_follows_it_from_another_server(project, fake):
    fake.latency = 0.4  # every call waits: a discussion takes seconds
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    started = time.monotonic()
    result = call(project.root, "ask", {"question": "Which bus voltage for the swarm?", "panel": "fake",
                                        "background": "Power is shared over one bus."})
    assert time.monotonic() - started < 3 and not result.is_error, result
    row = result.structured_content
    assert row["status"] == "running" and row["started"] and row["path"].startswith("content/questions/")
    again = call(project.root, "ask", {"question": "Which bus voltage for the swarm?", "panel": "fake"})
    assert again.structured_content["started"] is False  # the same question is not run twice
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # a second server, as another agent would start it
        found = call(project.root, "status", {"question": row["slug"]}).structured_content
        if found["status"] == "concluded" and not found["running"]:
            break
        time.sleep(0.5)
    assert found["status"] == "concluded", found
    shown = call(project.root, "show", {"question": row["slug"]}).structured_content
    assert shown["status"] == "concluded" and "Conclusion" in shown["text"] and "discussion" not in shown
    assert len(json.dumps(shown)) < 8000  # compact by default: the outcome, not the record
    whole = call(project.root, "show", {"question": row["slug"], "record": True}).structured_content
    assert whole["discussion"]["status"] == "concluded" and whole["discussion"]["conclusion"]
    responds = [r for r in fake.requests if r["task"] == "respond"]
    assert len(responds) == len({(r["model"], r["messages"][-1]["content"]) for r in responds})  # none twice


def test_ask_with_wait_seconds_reports_progress_and_returns_the_conclusion(project):
    seen = []

    async def progress(done, total, message):
        seen.append(message)

    result = call(project.root, "ask", {"question": "Should the swarm keep a spare unit?", "panel": "offline",
                                        "background": "One unit in ten fails each year.", "wait_seconds": 60},
                  progress_callback=progress)
    row = result.structured_content
    assert row["status"] == "concluded" and "Conclusion" in row["conclusion"], row
    assert seen and all(row["slug"] in m for m in seen)


def test_new_facts_never_get_the_old_answer_and_the_result_says_which_discussion_answered(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    asked = {"question": "May we drop the orders table?", "panel": "fake", "wait_seconds": 60,
             "background": "Nothing reads the table any more."}
    first = call(project.root, "ask", asked).structured_content
    assert first["status"] == "concluded" and first["asked"] == "new", first
    again = call(project.root, "ask", asked).structured_content
    assert again["slug"] == first["slug"] and again["asked"] == "same" and "asked before" in again["note"]
    newer = call(project.root, "ask", {**asked, "background": "The billing job reads it nightly."})
    row = newer.structured_content
    assert row["slug"] != first["slug"] and row["asked"] == "new facts" and "of their own" in row["note"], row
    assert row["status"] == "concluded" and row["verdict"]["slug"] == row["slug"], row
    asked_of = (project.root / row["path"]).read_text()
    assert "billing job" in asked_of and "billing job" not in (project.root / first["path"]).read_text()
    told = [r for r in fake.requests if "billing job" in json.dumps(r["messages"])]
    assert told and {r["model"] for r in told} >= {r["model"] for r in fake.requests if r["task"] == "respond"}


def test_ask_takes_a_decision_and_the_verdict_carries_it(project):
    row = call(project.root, "ask", {"question": "Should the swarm keep a spare unit?", "panel": "offline",
                                     "decision": "yes-no", "wait_seconds": 60}).structured_content
    assert row["status"] == "concluded", row
    assert "decision: yes-no" in (project.root / row["path"]).read_text()
    assert row["verdict"]["decision"] in ("yes", "no", "unclear")
    options = call(project.root, "ask", {"question": "Which orbit first?", "panel": "offline",
                                         "decision": ["low orbit", "high orbit"]}).structured_content
    ended = wait_until(project.root, options["slug"], lambda r: r["status"] in ("concluded", "closed"), 120)
    assert ended["status"] == "concluded", (ended, call(project.root, "status", {"question": options["slug"]}))
    found = call(project.root, "verdict", {"question": options["slug"]}).structured_content
    assert found["options"] == ["low orbit", "high orbit"]
    assert found["decision"] in ("low orbit", "high orbit", "unclear")


def test_ask_gives_the_protocol_its_own_settings(project):
    from discuss.store import yamlio

    result = call(project.root, "ask", {"question": "Should the swarm keep a spare unit?", "panel": "offline",
                                        "protocol": "critique", "settings": {"critiqueRounds": 1},
                                        "wait_seconds": 60})
    row = result.structured_content
    assert row["status"] == "concluded", row
    index = project.root / row["path"].removesuffix(".md") / "discussion.yaml"
    recorded = yamlio.load(index.read_text())
    assert recorded["config"]["critiqueRounds"] == 1 and recorded["currentRound"] == 2  # answers, one critique


@pytest.mark.parametrize("tool, arguments, words", [
    ("show", {"question": "no-such-question"}, "no-such-question"),
    ("status", {"question": "no-such-question"}, "no-such-question"),
    ("ask", {"question": "Q?", "panel": "nope"}, "no panel 'nope'"),
    ("ask", {"question": "Q?", "protocol": "votes"}, "votes"),
    ("ask", {"question": "Q?", "max_rounds": 0}, "max_rounds"),
    ("ask", {"question": "Q?", "protocol": "council", "settings": {"critiqueRounds": 2}}, "not a setting of the council"),
    ("ask", {"question": "Q?", "settings": {"critiqueRoundz": 2}}, "not a setting of any protocol"),
    ("ask", {"question": "Q?", "settings": {"critiqueRounds": 0}}, "critiqueRounds"),
    ("ask", {"question": "Q?", "settings": {"maxRounds": 2}}, "maxRounds: a setting every protocol shares"),
    ("ask", {"question": "Q?", "panel": "ofline"}, "did you mean offline"),
    ("ask", {"question": "Q?", "models": ["openai/gpt-4o-mini"]}, "missing API key"),
    ("ask", {"question": "Q?", "models": ["scripted/../../../outside/x"]}, "a scripted member names a script"),
    ("ask", {"question": "Q?", "max_rounds": 1000000}, "maxRounds"),
    ("ask", {"question": "Q " * 200_000}, "at most 1000"),
    ("ask", {"question": "Q?", "settings": {"foo": 1}}, "not a setting of any protocol"),
    ("audit", {"question": "swarm-power", "orders": 10**6}, "1 to 50"),
    ("ask", {"question": "Q?", "models": ["nosuch/model-x"]}, "nosuch/model-x (model-x): no provider knows"),
    ("ask", {"question": "Q?", "decision": "maybe"}, "decision"),
    ("ask", {"question": "Q?", "decision": ["only one"]}, "2 to 12 different options"),
])
def test_a_refusal_is_a_named_tool_error_with_nothing_written_and_the_server_goes_on(project, tool, arguments, words,
                                                                                   monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    before = project.snapshot()

    async def go():
        async with Client(build(project.root)) as client:
            failed = await client.call_tool(tool, arguments)
            after = await client.call_tool("protocols", {})
            return failed, after
    failed, after = asyncio.run(go())
    assert failed.is_error and words in failed.content[0].text, failed
    assert project.snapshot() == before  # no question file left, no run started
    assert not after.is_error and after.structured_content["protocols"]


def test_no_key_is_ever_part_of_a_result(project, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-3Jk9LmQ2xPz7Wv4R")
    project.write_panels("    hosted:\n      members:\n        - {id: g, model: openai/gpt-4o-mini}\n")
    result = call(project.root, "panels")
    assert not result.is_error and "3Jk9LmQ2" not in str(result.structured_content)
    assert result.structured_content["members"][0]["key"] == "set"


def test_a_discussion_is_a_resource_to_cite(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0

    async def go():
        async with Client(build(project.root)) as client:
            return await client.read_resource("discussion://swarm-power")
    text = asyncio.run(go()).contents[0].text
    assert "swarm" in text.lower() and "conclusion" in text.lower()


def test_the_server_over_stdio_as_a_client_starts_it(project):
    params = StdioServerParameters(command=sys.executable, args=["-m", "discuss", "--root", str(project.root), "mcp"],
                                   env={**os.environ, "PYTHONPATH": SRC})

    async def go():
        async with Client(params) as client:
            tools = await client.list_tools()
            rows = await client.call_tool("status", {})
            return tools, rows
    tools, rows = asyncio.run(go())
    assert "ask" in {t.name for t in tools.tools}
    assert [r["slug"] for r in rows.structured_content["discussions"]] == ["swarm-power"]


def test_status_pages_filters_and_counts_without_looking_each_row_up(project, monkeypatch):
    from discuss.store import questions

    for n in range(7):
        (project.content / "questions" / f"q{n}.md").write_text(f"---\ntitle: Question {n}?\n---\n\nWhy.\n")
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    looked_up = []
    find = questions.find_question
    monkeypatch.setattr(questions, "find_question", lambda *a: looked_up.append(a) or find(*a))
    first = call(project.root, "status", {"limit": 3}).structured_content
    assert first["total"] == 8 and len(first["discussions"]) == 3 and first["offset"] == 0
    rest = call(project.root, "status", {"limit": 100, "offset": 3}).structured_content
    slugs = [r["slug"] for r in first["discussions"] + rest["discussions"]]
    assert len(slugs) == len(set(slugs)) == 8 and "swarm-power" in slugs
    assert all(r["running"] is False for r in rest["discussions"])
    assert looked_up == []  # the page's rows are found in one walk, not one search each
    done = call(project.root, "status", {"status": "concluded"}).structured_content
    assert done["total"] == 1 and done["discussions"][0]["slug"] == "swarm-power"
    assert call(project.root, "status", {"status": "done"}).is_error
    assert call(project.root, "status", {"limit": 0}).is_error


def wait_until(root: Path, slug: str, done, seconds: float = 60) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        row = call(root, "status", {"question": slug}).structured_content
        if done(row) or time.monotonic() > deadline:
            return row
        time.sleep(0.3)


def test_a_person_answers_through_the_agent_and_the_run_goes_on(project, fake):
    from test_people import ANSWER, with_person

    with_person(project, fake)
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    result = call(project.root, "reply", {"question": "swarm-power", "person": "ann", "text": ANSWER})
    assert not result.is_error and result.structured_content["started"], result
    row = wait_until(project.root, "swarm-power", lambda r: not r["running"] and r["waitingFor"])
    assert row["waitingFor"] == ["ann"]  # now her ballot waits: the run went on past her answer
    from discuss.store import discussions as store

    assert store.load(project.folder).rounds[0].replies["ann"].text.strip() == ANSWER
    wrong = call(project.root, "reply", {"question": "swarm-power", "person": "bob", "text": "Hi."})
    assert wrong.is_error and "bob" in wrong.content[0].text


def test_a_follow_up_through_the_agent_is_a_part_of_its_own(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    result = call(project.root, "follow_up", {"question": "swarm-power", "text": "And at night?"})
    assert not result.is_error, result
    part = result.structured_content["slug"]
    assert part != "swarm-power"
    row = wait_until(project.root, part, lambda r: r["status"] == "concluded" and not r["running"])
    assert row["status"] == "concluded", row
    unfinished = call(project.root, "follow_up", {"question": "no-such", "text": "Why?"})
    assert unfinished.is_error and "no-such" in unfinished.content[0].text


def test_estimate_prices_a_run_before_any_call_and_writes_nothing(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    before = project.snapshot()
    result = call(project.root, "estimate", {"question": "swarm-power", "panel": "fake"})
    assert not result.is_error, result
    e = result.structured_content
    assert e["calls"] > 0 and e["promptTokens"] > 0 and e["panel"] == "fake" and e["protocol"] == "vote"
    assert fake.requests == [] and project.snapshot() == before
    cli = project.cli("run", "swarm-power", "--panel", "fake", "--estimate", "--auto")
    assert f"calls:             {e['calls']} " in cli.stdout  # the CLI prints the same value


def test_an_agent_prices_then_runs_the_bias_experiment(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    priced = call(project.root, "audit", {"question": "swarm-power", "orders": 2})
    assert not priced.is_error and priced.structured_content["calls"] == 6
    assert not (project.folder / "audit").exists()
    ran = call(project.root, "audit", {"question": "swarm-power", "orders": 2, "estimate": False})
    assert not ran.is_error, ran
    assert ran.structured_content["figures"]["panel"]["positionBias"]["estimate"] == 1.0
    refused = call(project.root, "audit", {"question": "swarm-power", "round_number": 9})
    assert refused.is_error and "not a finished round with ballots" in str(refused.content)


def test_trials_are_priced_started_apart_and_reported_from_the_files(project):
    priced = call(project.root, "trials", {"question": "swarm-power", "runs": 2, "panel": "offline"})
    assert not priced.is_error, priced
    assert priced.structured_content["toRun"] == 2 and priced.structured_content["total"]["calls"] > 0
    assert list(priced.structured_content) == ["folder", "toRun", "discussions", "total"]
    assert not (project.folder / "trials").exists()  # a price writes nothing
    none_yet = call(project.root, "trials", {"question": "swarm-power"})
    assert none_yet.is_error and "no trial yet" in none_yet.content[0].text
    started = call(project.root, "trials", {"question": "swarm-power", "runs": 2, "panel": "offline",
                                            "estimate": False}).structured_content
    assert started["started"] is True and started["folder"] == "content/questions/swarm-power/trials"
    assert list(started) == ["folder", "runs", "toRun", "started"]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        found = call(project.root, "trials", {"question": "swarm-power"}).structured_content
        if found and found["finished"] == 2 and not found["running"]:
            break
        time.sleep(0.5)
    assert found["runs"] == 2 and found["finished"] == 2, found
    assert found["winnerStability"]["winner"] and found["rounds"]["mean"] >= 1
    assert list(found) == ["folder", "running", "runs", "finished", "rounds", "approval", "winnerStability",
                           "terminationConsistency", "terminationReason", "bias", "orphanRounds"]
    again = call(project.root, "trials", {"question": "swarm-power", "runs": 2, "estimate": False})
    assert again.structured_content["toRun"] == 0 and again.structured_content["started"] is False
    assert call(project.root, "trials", {"question": "swarm-power", "runs": 0}).is_error
    outside = project.root.parent / "elsewhere"
    shutil.copytree(project.folder / "trials", outside / "trials")  # trials of another project, beside this one
    for ref in ("../elsewhere/trials", str(outside / "trials")):
        refused = call(project.root, "trials", {"question": ref})
        assert refused.is_error and "outside the project" in refused.content[0].text, refused
    inside = call(project.root, "trials", {"question": "content/questions/swarm-power/trials"}).structured_content
    assert inside["finished"] == 2


@pytest.mark.parametrize("tool, arguments", [
    ("show", {}), ("status", {}), ("follow_up", {"text": "And then?"}), ("audit", {"estimate": False}),
    ("estimate", {}), ("trials", {}), ("reply", {"person": "ann", "text": "yes"}),
])
def test_a_path_outside_the_project_is_refused_by_every_tool_and_nothing_there_changes(project, tmp_path, tool,
                                                                                      arguments):
    other = Project(tmp_path / "other")
    assert other.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    there = other.snapshot()
    for spelling in (str(other.question), os.path.relpath(other.question, project.root),
                     str(project.content / ".." / ".." / "other" / "content" / "questions" / "swarm-power.md")):
        os.chdir(project.root)  # relative paths are read from the project, as the server reads them
        result = call(project.root, tool, {"question": spelling, **arguments})
        assert result.is_error and "outside the project" in result.content[0].text, (spelling, result)
        assert sys.prefix not in result.content[0].text
    assert other.snapshot() == there


def test_a_scripted_member_named_by_a_path_reads_nothing_outside_the_scripts(project, tmp_path):
    secret = tmp_path / "outside" / "x.yaml"
    secret.parent.mkdir()
    secret.write_text("- reply: the password is hunter2\n")
    result = project.cli("ask", "What now?", "-m", "scripted/../../../outside/x", "-m", "offline/a")
    assert result.exit_code == 2 and "a scripted member names a script" in result.stderr
    assert "hunter2" not in result.output


def test_every_parameter_of_every_tool_says_what_it_is(project):
    async def go():
        async with Client(build(project.root)) as client:
            return await client.list_tools()
    tools = asyncio.run(go()).tools
    assert len(tools) >= 17
    for tool in tools:
        for name, schema in tool.input_schema.get("properties", {}).items():
            assert len(schema.get("description", "")) > 10, (tool.name, name)
    ask = next(t for t in tools if t.name == "ask").input_schema["properties"]
    assert "2 to 12 options" in ask["decision"]["description"] and "slug" in \
        next(t for t in tools if t.name == "show").input_schema["properties"]["question"]["description"]
