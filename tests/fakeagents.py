"""Fake `claude`, `codex` and `gemini` executables that imitate each tool's documented JSON output.

Each is a small Python script written into a folder of its own (outside the
project) and put on PATH. It answers as the fake server's cooperative
panelist does (tests/fakeserver.py), in its tool's output format, and records
each call (argv, environment, working folder, what came on stdin) in
`<tool>.calls.jsonl` beside it. `<tool>.json` beside it changes how it
behaves: `mode` (ok, hang, flood, garbage, fail), `version`, `login`.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

HERE = Path(__file__).parent

SCRIPT = r'''#!{python}
import json, os, subprocess, sys, time
from pathlib import Path
sys.path.insert(0, {tests!r})
from fakeserver import default_reply

TOOL = {tool!r}
home = Path(__file__).resolve().parent
conf = json.loads((home / f"{{TOOL}}.json").read_text()) if (home / f"{{TOOL}}.json").is_file() else {{}}
argv = sys.argv[1:]
if argv == ["--version"]:
    print(conf.get("version", {{"claude": "2.1.3 (Claude Code)", "codex": "codex-cli 0.46.0",
                                "gemini": "0.9.0"}}[TOOL]))
    sys.exit(0)
if argv in (["auth", "status"], ["login", "status"]):
    logged = conf.get("login", "yes") == "yes"
    if TOOL == "claude":
        print(json.dumps({{"loggedIn": logged, "authMethod": "claude.ai"}}))
    else:
        print("Logged in using ChatGPT" if logged else "Not logged in")
    sys.exit(0 if logged else 1)
prompt = sys.stdin.read()
with open(home / f"{{TOOL}}.calls.jsonl", "a") as f:
    f.write(json.dumps({{"argv": sys.argv, "env": dict(os.environ), "cwd": os.getcwd(), "stdin": prompt}}) + "\n")
mode = conf.get("mode", "ok")
if mode == "hang":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(home / f"{{TOOL}}.pids", "a") as f:
        f.write(f"{{os.getpid()}} {{child.pid}}\n")
    time.sleep(600)
if mode == "flood":
    block = b"x" * (1 << 20)
    for _ in range(50):
        sys.stdout.buffer.write(block)
    sys.exit(0)
key = next((v for k, v in os.environ.items() if k.endswith("_API_KEY")), "no key")
if mode == "garbage":
    print(f"<html>Service unavailable; request used key {{key}}</html>")
    sys.exit(0)
if mode == "fail":
    print(f"Error: authentication failed for key {{key}}", file=sys.stderr)
    sys.exit(1)
text = default_reply(TOOL, [{{"role": "user", "content": prompt}}])
words = len(text.split())
if TOOL == "claude":
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": False, "duration_ms": 900,
                      "num_turns": 1, "result": text, "session_id": "0e639165", "total_cost_usd": 0.0125,
                      "usage": {{"input_tokens": 40, "cache_creation_input_tokens": 300,
                                "cache_read_input_tokens": 15000, "output_tokens": words * 2}}}}))
elif TOOL == "codex":
    for event in ({{"type": "thread.started", "thread_id": "0199a213"}}, {{"type": "turn.started"}},
                  {{"type": "item.completed", "item": {{"id": "item_0", "type": "reasoning", "text": "**Reading**"}}}},
                  {{"type": "item.completed", "item": {{"id": "item_1", "type": "agent_message", "text": text}}}},
                  {{"type": "turn.completed", "usage": {{"input_tokens": 24763, "cached_input_tokens": 24448,
                                                        "output_tokens": words * 2}}}}):
        print(json.dumps(event))
else:
    print(json.dumps({{"session_id": "abc", "response": text, "stats": {{"models": {{"gemini-2.5-pro": {{
        "api": {{"totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 800}},
        "tokens": {{"input": 900, "prompt": 1200, "candidates": words * 2, "total": 1300, "cached": 300,
                   "thoughts": 7, "tool": 0}}}}}}, "tools": {{"totalCalls": 0}}, "files": {{}}}}}}, indent=2))
'''


def install(folder: Path, tools=("claude", "codex", "gemini")) -> Path:
    """The fake tools written into `folder` (made here); returns the folder, to put first on PATH."""
    folder.mkdir(parents=True, exist_ok=True)
    for tool in tools:
        path = folder / tool
        path.write_text(SCRIPT.format(python=sys.executable, tests=str(HERE), tool=tool))
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def configure(folder: Path, tool: str, **conf) -> None:
    (folder / f"{tool}.json").write_text(json.dumps(conf))


def calls(folder: Path, tool: str) -> list[dict]:
    path = folder / f"{tool}.calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def on_path(monkeypatch, folder: Path) -> None:
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
