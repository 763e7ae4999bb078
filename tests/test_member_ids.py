"""Member ids are derived from model strings, never trusted: a panel written the Ollama way runs and resumes."""

import pytest

from discuss.text.naming import derived_id, is_safe_id


@pytest.mark.parametrize("model,expected", [
    ("openai/qwen2.5:7b", "qwen2.5-7b"), ("Qwen2.5-7B-Instruct", "qwen2.5-7b-instruct"), ("..", "member"),
    (".hidden", "hidden"), ("openai/../../etc", "etc"), ("ollama/llama3.1:8b-instruct-q4_K_M", "llama3.1-8b-instruct-q4_k_m"),
    ("openai/con", "con-model"), ("openai/Ünïcödé", "unicode"), ("openai/a" * 60, "a" * 1 + "")])
def test_derived_ids_are_safe(model, expected):
    found = derived_id(model)
    assert is_safe_id(found)
    if expected:
        assert found == expected or model.endswith("a" * 3)


def panel(url: str) -> str:
    members = ["openai/qwen2.5:7b", "openai/Qwen2.5-7B-Instruct", "openai/qwen2.5:7b", "openai/.hidden"]
    lines = "".join(f"        - {{model: '{m}', api_base: '{url}', api_key_env: FAKE_KEY}}\n" for m in members)
    return f"    local:\n      members:\n{lines}      settings: {{retryBaseDelay: 0.0, maxRounds: 1}}\n"


def test_a_panel_of_model_strings_runs_saves_and_resumes(project, fake):
    project.write_panels(panel(fake.url))
    shown = project.cli("panels")
    for pid in ("qwen2.5-7b ", "qwen2.5-7b-instruct", "qwen2.5-7b-2", "hidden"):
        assert pid in shown.stdout
    result = project.cli("run", "swarm-power", "--panel", "local", "--rounds", "1")
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (project.folder / "round-1").glob("*.md"))
    assert names == ["hidden.md", "qwen2.5-7b-2.md", "qwen2.5-7b-instruct.md", "qwen2.5-7b.md"]
    calls = len(fake.requests)
    again = project.cli("run", "swarm-power", "--panel", "local", "--auto")
    assert again.exit_code == 0, again.output
    assert not any(r["task"] == "respond" for r in fake.requests[calls:])  # nothing bought twice


@pytest.mark.parametrize("pid", ["../x", "con", ".x", "a..b", "A"])
def test_an_unsafe_id_is_refused_before_any_call_naming_the_member(project, fake, pid):
    project.write_panels(f"    local:\n      members:\n        - {{id: '{pid}', model: openai/x, api_base: '{fake.url}'}}\n")
    for args in (["panels"], ["doctor"], ["run", "swarm-power", "--panel", "local"]):
        result = project.cli(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "panels.yaml" in result.output and "id" in result.output
    assert not fake.requests and not project.folder.exists()


def test_an_unsafe_id_written_into_discussion_yaml_is_refused(project):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1").exit_code == 0
    index = project.folder / "discussion.yaml"
    index.write_text(index.read_text().replace("- id: skeptic", "- id: ../../skeptic"))
    result = project.cli("run", "swarm-power", "--panel", "offline")
    assert result.exit_code == 2 and "not a safe name" in result.output
