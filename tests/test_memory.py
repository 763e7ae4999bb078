"""The archive as a memory: `related` finds a planted near-duplicate among many discussions, ranks by the
conclusions too, and is the same through the MCP server."""

from __future__ import annotations

import json

import pytest

from conftest import Project

TOPICS = ["lunar regolith sintering", "asteroid mining claims", "radiation shielding for crews",
          "deep space optical links", "reactor cooling loops", "habitat air recycling", "launch cadence economics",
          "thermal radiator panels", "docking latch tolerances", "ion thruster lifetime", "food growth under LEDs",
          "telescope mirror coatings", "crew sleep schedules", "water ice prospecting", "cable tether dynamics",
          "debris avoidance manoeuvres", "battery chemistry in cold", "robotic arm calibration",
          "spacesuit glove dexterity", "antenna pointing accuracy", "propellant depot boil-off",
          "software update rollback", "sample return sterilisation", "microgravity welding",
          "magnetic sail deployment", "cargo manifest audits", "solar flare forecasting", "wheel slip on dust",
          "mission patch design"]


def question(project: Project, slug: str, title: str, background: str, extra: str = "") -> None:
    path = project.content / "questions" / f"{slug}.md"
    path.write_text(f"---\ntitle: {title}\nslug: {slug}\n{extra}---\n\n{background}\n")


@pytest.fixture
def archive(project: Project) -> Project:
    """29 questions on other matters, a planted near-duplicate of swarm-power, and swarm-power itself."""
    for n, topic in enumerate(TOPICS):
        question(project, f"topic-{n}", f"What should we decide about {topic}?",
                 f"The team must settle {topic} before the next review; the options differ in cost and risk.")
    question(project, "beamed-energy", "Which users should the orbital swarm's beamed energy reach first?",
             "The swarm collects power in orbit; we must choose where that power is distributed first.")
    return project


def related(project: Project, *args: str) -> dict:
    result = project.cli("related", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_planted_near_duplicate_ranks_in_the_top_three_of_thirty(archive):
    found = related(archive, "swarm-power", "--limit", "3")
    assert found["slug"] == "swarm-power"
    slugs = [r["slug"] for r in found["related"]]
    assert "beamed-energy" in slugs and "swarm-power" not in slugs  # a question is not its own relative
    assert slugs[0] == "beamed-energy"
    assert [r["score"] for r in found["related"]] == sorted((r["score"] for r in found["related"]), reverse=True)
    row = found["related"][0]
    assert set(row) == {"slug", "title", "status", "decision", "score", "concluded"}
    assert row["status"] == "not started" and row["decision"] is None


def test_a_text_is_ranked_too_and_a_conclusion_is_read(archive):
    assert archive.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    # Words only the offline panel's conclusion holds find it: the conclusion is part of what is ranked.
    found = related(archive, "interface specification pilot success criteria")
    assert found["slug"] is None
    top = found["related"][0]
    assert top["slug"] == "swarm-power" and top["status"] == "concluded" and top["concluded"]


def test_no_shared_word_lists_nothing_and_bad_input_is_refused(archive):
    assert related(archive, "xylophone")["related"] == []
    result = archive.cli("related", "the of and")
    assert result.exit_code == 2 and "words" in result.stderr
    assert archive.cli("related", "swarm", "--limit", "0").exit_code == 2


def test_the_mcp_tool_gives_what_the_cli_gives(archive):
    pytest.importorskip("mcp")
    from test_mcp import call

    result = call(archive.root, "related", {"question": "swarm-power", "limit": 3})
    assert json.loads(result.content[0].text) == related(archive, "swarm-power", "--limit", "3")
