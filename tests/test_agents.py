"""Coding agents on the panel: fake `claude`, `codex` and `gemini` executables imitating each tool's JSON."""

from __future__ import annotations

import json
import os
import time

import pytest
import yaml

import fakeagents

ANTHROPIC = "sk-ant-api03-Qx7fakeAnthropicKey0123456789abcdef"
OPENAI = "sk-proj-Zq9fakeOpenAIKey0123456789abcdefgh"
GEMINI = "AIzaFakeGeminiKey0123456789abcdefghijk"
UNRELATED = {"GITHUB_TOKEN": "ghp_fakeGithubToken0123456789abcdefghij", "AWS_SECRET_ACCESS_KEY": "aws-secret-0123456789",
             "DATABASE_URL": "postgres://admin:hunter2@db/prod"}
KEYS = {"claude": ("ANTHROPIC_API_KEY", ANTHROPIC), "codex": ("OPENAI_API_KEY", OPENAI),
        "gemini": ("GEMINI_API_KEY", GEMINI)}
READ_ONLY = {"claude": ["--permission-mode", "plan", "--disallowedTools", "Bash,Edit,Write,MultiEdit,NotebookEdit"],
             "codex": ["--sandbox", "read-only"], "gemini": ["--approval-mode", "default"]}


def agents_panel(settings: str = "{timeoutSeconds: 30, maxRounds: 1, retryBaseDelay: 0.0}", extra: str = "") -> str:
    return ("    agents:\n      members:\n"
            "        - {id: claude, model: cli/claude, name: Claude Code}\n"
            "        - {id: codex, model: cli/codex, name: Codex}\n"
            f"        - {{id: gemini, model: cli/gemini, name: Gemini CLI{extra}}}\n"
            f"      settings: {settings}\n")


@pytest.fixture
def tools(tmp_path, monkeypatch):
    """The three fake tools on PATH, each vendor's key and some unrelated secrets in the environment."""
    folder = fakeagents.install(tmp_path / "bin")
    fakeagents.on_path(monkeypatch, folder)
    for name, value in [*KEYS.values(), *UNRELATED.items()]:
        monkeypatch.setenv(name, value)
    return folder


def index(project) -> dict:
    return yaml.safe_load((project.folder / "discussion.yaml").read_text())


def front(path) -> dict:
    return yaml.safe_load(path.read_text().split("---")[1])


def test_a_vote_of_three_coding_agents_concludes_with_each_reply_and_its_usage(project, tools):
    project.write_panels(agents_panel())
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "agents")
    assert result.exit_code == 0, result.output
    d = index(project)
    assert d["status"] == "concluded" and d["rounds"][0]["failures"] == []
    claude, codex, gemini = (front(project.folder / "round-1" / f"{t}.md")["usage"] for t in ("claude", "codex", "gemini"))
    # Claude Code reports its cost and cache reads; Codex and Gemini CLI count tokens only: unpriced, not free.
    assert claude["cost"] == 0.0125 and claude["promptTokens"] == 15340 and claude["cachedTokens"] == 15000
    assert "unpriced" not in claude
    assert codex["promptTokens"] == 24763 and codex["cachedTokens"] == 24448 and "cost" not in codex
    assert gemini["promptTokens"] == 1200 and gemini["cachedTokens"] == 300 and "cost" not in gemini
    assert codex["unpriced"] == gemini["unpriced"] == 1
    assert d["usage"]["unpriced"] >= 2
    members = {m["id"]: m for m in d["panel"]["members"]}
    assert members["claude"]["agent"] == {"tool": "claude", "version": "2.1.3", "flags": [
        "-p", "--output-format", "json", *READ_ONLY["claude"], "--setting-sources", "user"]}
    assert members["codex"]["agent"]["version"] == "0.46.0" and members["codex"]["agent"]["flags"][-1] == "-"
    assert members["gemini"]["agent"]["version"] == "0.9.0"
    # Nothing of the project changed but discuss's own files.
    after = project.snapshot()
    assert {k: v for k, v in after.items() if k in before} == before
    assert all(k.startswith("content/questions/swarm-power/") for k in after if k not in before)


def test_each_tool_gets_the_prompt_on_stdin_read_only_in_the_project_with_only_its_own_variables(project, tools):
    project.write_panels(agents_panel())
    assert project.cli("run", "swarm-power", "--panel", "agents").exit_code == 0
    for tool, (own, key) in KEYS.items():
        seen = fakeagents.calls(tools, tool)
        assert len(seen) >= 2  # an answer and a ballot at least
        for call in seen:
            assert "swarm" in call["stdin"].lower()
            assert not any("swarm" in arg.lower() or len(arg) > 200 for arg in call["argv"])  # no prompt in argv
            flags = call["argv"][1:]
            assert all(flags[i:i + len(READ_ONLY[tool])] == READ_ONLY[tool] for i in [flags.index(READ_ONLY[tool][0])])
            assert call["cwd"] == str(project.root)
            assert call["env"].get(own) == key
            others = [v for t, (_, v) in KEYS.items() if t != tool] + list(UNRELATED.values()) + ["sk-fake-test-key-123456"]
            assert not any(v in json.dumps(call["env"]) for v in others)
            assert set(call["env"]) <= {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ",
                                        "TMPDIR", "NO_COLOR", own} | {k for k in call["env"] if k.startswith(
                                            {"claude": ("ANTHROPIC_", "CLAUDE_"), "codex": ("OPENAI_", "CODEX_"),
                                             "gemini": ("GEMINI_", "GOOGLE_")}[tool])}


def test_a_missing_tool_is_named_by_doctor_and_refused_before_anything_is_written(project, tools):
    (tools / "gemini").unlink()
    project.write_panels(agents_panel())
    doctor = project.cli("doctor", "--panel", "agents")
    assert doctor.exit_code == 1
    assert "`gemini` is not installed (not found on PATH)" in doctor.output
    assert "npm install -g @google/gemini-cli" in doctor.output
    before = project.snapshot()
    for command in (["run", "swarm-power", "--panel", "agents"], ["ask", "Which orbit first?", "--panel", "agents"]):
        refused = project.cli(*command)
        assert refused.exit_code == 2, refused.output
        assert "cli/gemini (gemini): `gemini` is not installed" in refused.output and "nothing was written" in refused.output
        assert project.snapshot() == before
    assert fakeagents.calls(tools, "claude") == []  # no tool was asked anything either


def test_doctor_names_a_tool_too_old_or_logged_out_and_a_run_refuses_it(project, tools):
    fakeagents.configure(tools, "claude", version="1.0.44 (Claude Code)")
    fakeagents.configure(tools, "codex", login="no")
    project.write_panels(agents_panel())
    doctor = project.cli("doctor", "--panel", "agents")
    assert doctor.exit_code == 1
    assert "claude 1.0.44 is older than 2.0.0" in doctor.output
    assert "fail: not logged in: run `codex login`" in doctor.output
    assert "gemini  ok (logged in)" in doctor.output  # no documented check: its key in its environment
    refused = project.cli("run", "swarm-power", "--panel", "agents")
    assert refused.exit_code == 2 and not project.folder.exists()
    assert "claude 1.0.44 is older than 2.0.0" in refused.output and "not logged in (Not logged in)" in refused.output


def test_doctor_cannot_tell_whether_a_tool_without_a_login_check_is_logged_in(project, tools, monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.setenv("HOME", str(tools))
    project.write_panels(agents_panel())
    doctor = project.cli("doctor", "--panel", "agents")
    assert doctor.exit_code == 0, doctor.output  # a warning: its absence proves nothing
    assert "warn: cannot tell whether logged in; if not, run `gemini` once and log in" in doctor.output


def test_flags_that_would_widen_a_tool_and_a_tool_inside_the_project_are_refused(project, tools):
    project.write_panels(agents_panel(extra=", args: [--yolo]"))
    refused = project.cli("run", "swarm-power", "--panel", "agents")
    assert refused.exit_code == 2 and "--yolo is not a flag discuss passes to gemini" in refused.output
    inside = project.root / "tools" / "claude"
    inside.parent.mkdir()
    inside.write_bytes((tools / "claude").read_bytes())
    inside.chmod(0o755)
    project.write_panels(agents_panel().replace("model: cli/claude,", f"model: cli/claude, command: '{inside}',"))
    refused = project.cli("run", "swarm-power", "--panel", "agents")
    assert refused.exit_code == 2 and "claude is a file of this project" in refused.output
    assert not project.folder.exists()
    project.write_panels("    p:\n      members:\n        - {id: x, model: openai/gpt-4o, command: /bin/sh}\n")
    assert "only a coding agent's member" in project.cli("run", "swarm-power", "--panel", "p").output


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie not yet reaped by its parent is dead too
        return f.read().split(")")[-1].split()[0] != "Z"


def test_a_hanging_tool_and_its_child_are_killed_at_the_timeout(project, tools):
    fakeagents.configure(tools, "codex", mode="hang")
    project.write_panels(agents_panel("{timeoutSeconds: 2, maxRounds: 1, retryBaseDelay: 0.0}"))
    started = time.monotonic()
    result = project.cli("run", "swarm-power", "--panel", "agents")
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < 20
    failures = index(project)["rounds"][0]["failures"]
    assert any(f["modelId"] == "codex" and f["timedOut"] for f in failures), failures
    pids = [int(n) for line in (tools / "codex.pids").read_text().splitlines() for n in line.split()]
    assert pids and not any(alive(pid) for pid in pids)


def test_fifty_megabytes_of_output_are_capped_and_a_failed_call(project, tools):
    fakeagents.configure(tools, "gemini", mode="flood")
    project.write_panels(agents_panel())
    result = project.cli("run", "swarm-power", "--panel", "agents")
    assert result.exit_code == 0, result.output
    failures = [f for f in index(project)["rounds"][0]["failures"] if f["modelId"] == "gemini"]
    assert failures and "its output passed 33,554,432 bytes and was not read further" in failures[0]["error"]


@pytest.mark.parametrize("mode", ["garbage", "fail"])
def test_malformed_output_or_a_failed_exit_is_a_failed_call_with_the_echoed_key_scrubbed(project, tools, mode):
    fakeagents.configure(tools, "claude", mode=mode)
    project.write_panels(agents_panel())
    result = project.cli("run", "swarm-power", "--panel", "agents")
    assert result.exit_code == 0, result.output
    failures = [f for f in index(project)["rounds"][0]["failures"] if f["modelId"] == "claude"]
    said = {"garbage": "claude's output is not the JSON its documentation gives: <html>Service unavailable",
            "fail": "claude exited 1: Error: authentication failed for key"}[mode]
    assert failures and said in failures[0]["error"] and "[redacted]" in failures[0]["error"]
    written = "".join(p.read_text() for p in project.folder.rglob("*") if p.is_file()) + result.output
    assert ANTHROPIC not in written and ANTHROPIC[14:30] not in written


def test_a_tool_takes_one_call_at_a_time_unless_limits_name_it():
    from discuss.domain import Panelist
    from discuss.engine.gateway import ProviderLimits

    limits = ProviderLimits({"cli/codex": 3})
    claude, codex = Panelist("a", "cli/claude", "A"), Panelist("b", "cli/codex", "B")
    assert limits.provider(claude) == "cli/claude" and limits.limit_of("cli/claude") == 1
    assert limits.limit_of(limits.provider(codex)) == 3
    assert ProviderLimits({}).limit_of(limits.provider(Panelist("c", "anthropic/claude-opus-4-6", "C"))) is None


def test_the_agents_provider_is_registered_through_the_entry_point_group_like_the_built_in_ones():
    import tomllib
    from pathlib import Path

    from discuss.domain import Panelist
    from discuss.providers import base, registry
    from discuss.providers.agents import AgentProvider

    declared = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]["entry-points"]
    assert declared["discuss.providers"] == registry.BUILT_IN
    assert isinstance(registry.plugin_for(Panelist("x", "cli/codex", "X")).provider(base.Where()), AgentProvider)


def test_an_unknown_tool_is_refused_by_name(project):
    project.write_panels("    p:\n      members:\n        - {id: x, model: cli/cursor}\n")
    refused = project.cli("run", "swarm-power", "--panel", "p")
    assert refused.exit_code == 2 and "one of cli/claude, cli/codex, cli/gemini" in refused.output
