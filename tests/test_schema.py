"""Files people edit are checked by type, key and range: exit 2 naming the file and the field, nothing written."""

from __future__ import annotations

import pytest

from conftest import OFFLINE_PANEL, QUESTION

PANEL_HEAD = "panels:\n  offline:\n    members: [offline/pragmatist, offline/skeptic]\n"


@pytest.mark.parametrize("settings, field, expected", [
    ("{maxRounds: 2.9}", "maxRounds", "valid integer"),
    ("{debateChairman: 'false'}", "debateChairman", "valid boolean"),
    ("{selfVoteWeight: true}", "selfVoteWeight", "valid number"),
    ("{maxRounds: -1}", "maxRounds", "greater than or equal to 1"),
    ("{selfVoteWeight: 5}", "selfVoteWeight", "less than or equal to 1"),
    ("{timeoutSeconds: 0}", "timeoutSeconds", "greater than 0"),
    ("{attempts: 0}", "attempts", "greater than or equal to 1"),
    ("{convergenceScore: .nan}", "convergenceScore", "finite number"),
    ("{contextTokens: -5}", "contextTokens", "greater than or equal to 100"),
    ("{convergenceTest: title}", "convergenceTest", "'judge', 'titles' or 'agreement'"),
    ("{maxRoundz: 3}", "maxRoundz", "unknown setting"),
])
def test_panel_settings_of_the_wrong_type_or_range_are_refused(project, settings, field, expected):
    project.write_panels(OFFLINE_PANEL.replace("{retryBaseDelay: 0.0}", settings))
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "offline")
    assert result.exit_code == 2, result.output
    assert "panels.yaml" in result.stderr and field in result.stderr and expected in result.stderr
    assert project.snapshot() == before


@pytest.mark.parametrize("panels, expected", [
    (PANEL_HEAD + "    chairmen: offline/x\n", "unknown field 'chairmen'"),
    (PANEL_HEAD.replace("members: [", "members: [{model: offline/x, api_bse: u}, "), "unknown field 'api_bse'"),
    (PANEL_HEAD + "limits: {openai: two}\n", "limits: 'openai'"),
    ("panels:\n  offline:\n    members: [offline/pragmatist]\n    protocol: 3\n", "'protocol'"),
])
def test_unknown_keys_and_wrong_types_in_the_panel_file(project, panels, expected):
    (project.root / "discussions" / "panels.yaml").write_text(panels)
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "offline")
    assert result.exit_code == 2 and expected in result.stderr, result.output
    assert project.snapshot() == before


@pytest.mark.parametrize("line, expected", [
    ("tags: power", "tags"),
    ("protocol: [vote]", "protocol"),
    ("taskType: 3", "taskType"),
])
def test_front_matter_of_the_wrong_type_is_refused(project, line, expected):
    project.question.write_text(QUESTION.replace("tags: [power]", line))
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "offline")
    assert result.exit_code == 2, result.output
    assert "swarm-power.md" in result.stderr and "front matter" in result.stderr and expected in result.stderr
    assert project.snapshot() == before


def test_front_matter_keeps_keys_of_the_site(project):
    project.question.write_text(QUESTION.replace("tags: [power]", "tags: [power]\nhide: [toc]\ndescription: x"))
    assert project.cli("run", "swarm-power", "--panel", "offline", "-q").exit_code == 0


@pytest.mark.parametrize("old, new, expected", [
    ("  maxRounds: 5\n", "  maxRounds: five\n", "config: 'maxRounds'"),
    ("  maxRounds: 5\n", "  maxRounds: 5\n  maxRoundz: 5\n", "unknown setting 'maxRoundz'"),
    ("  selfVoteWeight: 0.5\n", "  selfVoteWeight: 7\n", "selfVoteWeight"),
])
def test_a_damaged_config_in_discussion_yaml_is_refused(project, old, new, expected):
    assert project.cli("run", "swarm-power", "--panel", "offline", "-q").exit_code == 0
    index = project.folder / "discussion.yaml"
    index.write_text(index.read_text().replace(old, new, 1))
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "offline")
    assert result.exit_code == 2, result.output
    assert "discussion.yaml" in result.stderr and expected in result.stderr
    assert project.snapshot() == before


def test_command_line_settings_are_checked_too(project):
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "offline", "--max-rounds", "500")
    assert result.exit_code == 2 and "maxRounds" in result.stderr and "100" in result.stderr, result.output
    assert project.snapshot() == before


def test_round_notes_of_the_wrong_type_are_refused(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--protocol", "council", "-q").exit_code == 0
    notes = project.folder / "round-1" / "round.yaml"
    text = notes.read_text()
    assert "  score: 0." in text
    notes.write_text(text.replace("  score: 0.", "  score: high0.", 1))
    before = project.snapshot()
    shown = project.cli("show", "swarm-power")
    assert shown.exit_code == 2, shown.output
    assert "round-1/round.yaml" in shown.stderr and "similarity[1]: 'score'" in shown.stderr
    assert project.snapshot() == before


def test_the_field_path_keeps_names_people_chose(project):
    project.write_panels("    Fast:\n      members: [offline/skeptic]\n      settings: {maxRounds: 2.5}\n")
    result = project.cli("run", "swarm-power", "--panel", "Fast")
    assert result.exit_code == 2 and "panels.Fast.settings: 'maxRounds'" in result.stderr, result.stderr


@pytest.mark.parametrize("line,hint", [("protocl: debate", "'protocol'"), ("pannel: offline", "'panel'"),
                                       ("stakse: high", "'stakes'"), ("source: [notes.md]", "'sources'")])
def test_a_misspelt_front_matter_key_is_refused_with_a_hint(project, line, hint):
    project.question.write_text(project.question.read_text().replace("tags: [power]", f"tags: [power]\n{line}"))
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "offline")
    assert result.exit_code == 2 and f"did you mean {hint}" in result.stderr, result.output
    assert project.snapshot() == before


def test_keys_of_the_site_dyson_and_ones_own_pass(project):
    extra = "priority: high\nsourcePhase: phase-1\ndescription: a page\nx-protocl: mine\nreviewer: Dana\n"
    project.question.write_text(project.question.read_text().replace("tags: [power]", "tags: [power]\n" + extra))
    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1").exit_code == 0


def test_a_list_or_mapping_field_defaults_to_an_empty_one_of_its_own():
    """A default of `[]` or `{}` (pydantic copies it for each file): `default_factory=list` had pydantic read
    list's signature from its text, importing and compiling Python's tokenizer on every run's start."""
    import subprocess
    import sys

    from discuss.schema.question import FrontMatterModel

    one, other = FrontMatterModel(title="One"), FrontMatterModel(title="Other")
    one.tags.append("a")
    assert other.tags == [] and other.sources == []
    code = ("import tokenize, discuss.schema.panels, discuss.schema.question, discuss.schema.evalset\n"
            "print(tokenize._compile.cache_info().misses)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "0", done.stderr
