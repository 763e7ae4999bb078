"""Coding agents on the panel: Claude Code, Codex and Gemini CLI as `cli/claude`, `cli/codex`, `cli/gemini`.

Each tool is asked through its documented non-interactive mode with
machine-readable output, read-only, in the project's root (so it can read
the repository the question is about), the prompt on stdin: processes.py
bounds the child process. Its reply becomes a Completion like any model's,
so ballots go through the same schema checks and re-asks; its usage is the
tool's own counts (through the one usage sanitiser) and its cost the tool's
where it reports one (Claude Code does), else the member's own price, else
unknown: the reply's usage says `unpriced`, never that the call was free.

Before a run, `ready` finds each tool (the member's `command:`, else its
name on PATH; never a file of the project, which a pull request could
change), checks its version and the flags a member adds, asks it whether it
is logged in where it has a documented way to say, and records the tool,
its version and the flags used with the panel.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..calls import CallSpec
from ..domain import CLI_PREFIX, Panel, Panelist
from ..errors import InputError
from ..text.secrets import scrub
from . import processes
from .base import Completion, Diagnosis, OnTokens
from .usage import agent_usage, sane_cost, text_of, whole

PROBE_SECONDS = 20.0  # a Node tool's first start can take seconds


@dataclass(frozen=True)
class Said:
    """What a tool's output says: the answer, its raw counts and cost, or the error it reports."""

    text: str = ""
    prompt: Any = None
    completion: Any = None
    cached: Any = None
    cost: Any = None
    error: str | None = None


@dataclass(frozen=True)
class Tool:
    name: str
    minimum: tuple[int, ...]  # the oldest version whose flags and output are the ones read here
    flags: tuple[str, ...]  # non-interactive, machine-readable, read-only; the member's args go after them
    last: tuple[str, ...]  # after the member's args (codex's `-`: the prompt is on stdin)
    vendor: tuple[str, ...]  # its own environment variables' prefixes
    allowed: tuple[str, ...]  # the flags a member may add: none that widens what the tool may do
    login: tuple[str, ...]  # its documented check of a login, or () where it has none
    read: Callable[[str], Said]
    install: str
    log_in: str


def _json(out: str) -> Any:
    """A tool's JSON output: the whole, else from the first line that opens an object (a notice before it)."""
    try:
        return json.loads(out)
    except ValueError:
        start = re.search(r"^\{", out, re.MULTILINE)
        if start is None:
            raise
        return json.loads(out[start.start():])


def read_claude(out: str) -> Said:
    """`claude -p --output-format json`: one result object (`result`, `usage`, `total_cost_usd`)."""
    found = _json(out)
    if isinstance(found, list):  # a verbose run lists every message; the result is the last
        found = next((m for m in reversed(found) if isinstance(m, dict) and m.get("type") == "result"), None)
    if not isinstance(found, dict) or found.get("type") != "result":
        raise ValueError("no result object")
    found = dict(found)
    if found.get("is_error") or found.get("subtype") not in (None, "success") or not isinstance(found.get("result"), str):
        return Said(error=str(found.get("result") or found.get("subtype") or "an error, not described"))
    usage: dict[str, Any] = found["usage"] if isinstance(found.get("usage"), dict) else {}
    # Its prompt is what it was sent plus what it wrote to and read from its prompt cache.
    parts = [whole(usage[k]) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
             if k in usage]
    prompt = sum(n for n in parts if n is not None) if parts and None not in parts else None
    return Said(found["result"], prompt, usage.get("output_tokens"), usage.get("cache_read_input_tokens"),
                found.get("total_cost_usd"))


def read_codex(out: str) -> Said:
    """`codex exec --json`: JSON Lines events; the answer is the last `agent_message` item, the counts are
    each `turn.completed`'s usage, a failure is `turn.failed` or `error`."""
    text, error, seen = None, None, False
    prompt = completion = cached = 0
    for line in out.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # a notice among the events
        if not isinstance(event, dict):
            continue
        seen = True
        kind, item = event.get("type"), event.get("item")
        if kind == "item.completed" and isinstance(item, dict) and item.get("type") == "agent_message":
            text = str(item["text"]) if isinstance(item.get("text"), str) else text
        elif kind == "turn.completed" and isinstance(event.get("usage"), dict):
            u = event["usage"]
            prompt, completion, cached = (n + (u.get(k) if isinstance(u.get(k), int) else 0) for n, k in
                                          ((prompt, "input_tokens"), (completion, "output_tokens"),
                                           (cached, "cached_input_tokens")))
        elif kind in ("turn.failed", "error"):
            said: dict[str, Any] = event["error"] if isinstance(event.get("error"), dict) else event
            error = str(said.get("message") or kind)
    if not seen:
        raise ValueError("no JSON event")
    if error is not None or text is None:
        return Said(error=error or "no answer among its events")
    return Said(text, prompt or None, completion or None, cached)


def read_gemini(out: str) -> Said:
    """`gemini --output-format json`: one object (`response`, `stats.models.*.tokens`, `error`)."""
    found = _json(out)
    if not isinstance(found, dict):
        raise ValueError("not a JSON object")
    if isinstance(found.get("error"), dict) or not isinstance(found.get("response"), str):
        error: dict[str, Any] = found["error"] if isinstance(found.get("error"), dict) else {}
        return Said(error=str(error.get("message") or "no response in its output"))
    stats: dict[str, Any] = found["stats"] if isinstance(found.get("stats"), dict) else {}
    models: dict[str, Any] = stats["models"] if isinstance(stats.get("models"), dict) else {}
    counts: list[dict[str, Any]] = [m["tokens"] for m in models.values()
                                    if isinstance(m, dict) and isinstance(m.get("tokens"), dict)]

    def total(*keys: str) -> int | None:
        numbers = [whole(t[k]) for t in counts for k in keys if k in t]
        return sum(n for n in numbers if n is not None) if numbers and None not in numbers else None

    return Said(found["response"], total("prompt"), total("candidates", "thoughts"), total("cached"))


# The flags each tool's documentation gives (docs/panels.md says which versions were read).
TOOLS = {t.name: t for t in (
    Tool("claude", (2, 0, 0),
         ("-p", "--output-format", "json", "--permission-mode", "plan",
          "--disallowedTools", "Bash,Edit,Write,MultiEdit,NotebookEdit", "--setting-sources", "user"), (),
         ("ANTHROPIC_", "CLAUDE_"), ("--model", "--fallback-model", "--max-turns", "--effort",
                                     "--max-budget-usd", "--append-system-prompt"),
         ("auth", "status"), read_claude, "npm install -g @anthropic-ai/claude-code",
         "run `claude` once and log in (or set ANTHROPIC_API_KEY)"),
    Tool("codex", (0, 45, 0),
         ("exec", "--json", "--sandbox", "read-only", "--skip-git-repo-check", "--color", "never"), ("-",),
         ("OPENAI_", "CODEX_"), ("--model", "-m", "--profile", "--oss", "--local-provider"),
         ("login", "status"), read_codex, "npm install -g @openai/codex", "run `codex login`"),
    Tool("gemini", (0, 6, 0),
         ("--output-format", "json", "--approval-mode", "default"), (),
         ("GEMINI_", "GOOGLE_"), ("--model", "-m"),
         (), read_gemini, "npm install -g @google/gemini-cli",
         "run `gemini` once and log in (or set GEMINI_API_KEY)"),
)}


def tool_of(p: Panelist) -> Tool:
    return TOOLS[p.model.removeprefix(CLI_PREFIX)]


def argv_tail(p: Panelist) -> list[str]:
    """Every flag the tool is run with, the member's own among them (never the prompt)."""
    tool = tool_of(p)
    return [*tool.flags, *p.args, *tool.last]


def prompt_text(messages: list[dict[str, Any]]) -> str:
    """The conversation as one prompt: a tool takes one text. A system message and a question are joined;
    a longer exchange (a re-ask after an unusable reply) is written out turn by turn."""
    texts = [(str(m.get("role") or "user"), text_of(m.get("content"))) for m in messages]
    if [r for r, _ in texts if r != "system"] == ["user"]:
        return "\n\n".join(t for _, t in texts)
    return "\n\n".join(f"[{role}]\n{text}" for role, text in texts)


def executable(p: Panelist) -> Path | None:
    """The tool's executable: the member's `command:` (a full path, or a name looked up on PATH), else the
    tool's own name on PATH; None where there is none."""
    given = p.command or tool_of(p).name
    if "/" in given:
        path = Path(given).expanduser()
        return path if path.is_absolute() and path.is_file() else None
    found = shutil.which(given, path=processes.tool_env(()).get("PATH"))
    return Path(found) if found else None


def version_of(said: str) -> tuple[int, ...] | None:
    found = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", said)
    return tuple(int(n) for n in found.groups(default="0")) if found else None


@lru_cache(maxsize=32)
def _checked(name: str, path: str, stamp: tuple[int, int], root: str) -> tuple[tuple[int, ...] | None, str, str]:
    """The tool's version, what it said asked for it, and whether it is logged in (`yes`, `no: WORDS`, or
    `unknown`); asked once per process while the executable is unchanged."""
    tool, env, cwd = TOOLS[name], processes.tool_env(TOOLS[name].vendor), Path(root)
    code, said = processes.probe([path, "--version"], env, cwd, PROBE_SECONDS)
    version = version_of(said) if code == 0 else None
    return version, said.strip()[:200], _logged_in(tool, path, env, cwd)


# Where a tool without a documented login check keeps what logs it in: a key in its environment, or a login
# saved under the home folder. Their presence is taken as logged in; their absence proves nothing.
SAVED = {"gemini": (("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA"),
                    ".gemini/oauth_creds.json")}


def _logged_in(tool: Tool, path: str, env: dict[str, str], cwd: Path) -> str:
    if not tool.login:
        names, saved = SAVED.get(tool.name, ((), ""))
        home = Path(env.get("HOME") or "~").expanduser()
        return "yes" if any(env.get(n) for n in names) or (saved and (home / saved).is_file()) else "unknown"
    code, said = processes.probe([path, *tool.login], env, cwd, PROBE_SECONDS)
    try:
        state = json.loads(said).get("loggedIn") if said.lstrip().startswith("{") else None
    except (ValueError, AttributeError):
        state = None
    if state is False or re.search(r"\bnot logged in\b", said, re.IGNORECASE):
        return "no: " + " ".join(said.split())[:160]
    return "yes" if code == 0 else "unknown"


def problems(p: Panelist, root: Path) -> tuple[list[str], str]:
    """What stops `p`'s tool from running here (each a sentence with the way on), and its login state."""
    tool = tool_of(p)
    found = executable(p)
    if found is None:
        where = f"{p.command} is not an executable file (give a full path)" if p.command else \
            f"`{tool.name}` is not installed (not found on PATH)"
        return [f"{where}: install it ({tool.install}) or give its path as `command:`"], "unknown"
    if found.resolve().is_relative_to(root.resolve()):
        return [f"{found.name} is a file of this project, which a pull request could change: only a tool "
                "installed outside the project is run"], "unknown"
    wrong = [a.split("=")[0] for a in p.args if a.startswith("-") and a.split("=")[0] not in tool.allowed]
    out = [f"args: {', '.join(wrong)} is not a flag discuss passes to {tool.name} (it runs read-only); "
           f"allowed: {', '.join(tool.allowed)}"] if wrong else []
    stat = found.stat()
    version, said, login = _checked(tool.name, str(found), (stat.st_mtime_ns, stat.st_size), str(root))
    if version is None:
        out.append(f"`{found.name} --version` did not say its version ({scrub(said)[:120]!r}): is it {tool.name}?")
    elif version < tool.minimum:
        out.append(f"{tool.name} {'.'.join(map(str, version))} is older than {'.'.join(map(str, tool.minimum))}, "
                   f"the oldest whose flags and output discuss reads: update it ({tool.install})")
    if login.startswith("no"):
        out.append(f"not logged in ({scrub(login[4:])}): {tool.log_in}")
    return out, login


def agent_record(p: Panelist, root: Path) -> dict[str, Any]:
    """What answered for `p`: the tool, its version and the flags it runs with, as the index records them."""
    found = executable(p)
    version: tuple[int, ...] | None = None
    if found is not None:
        stat = found.stat()
        version = _checked(tool_of(p).name, str(found), (stat.st_mtime_ns, stat.st_size), str(root))[0]
    return {"tool": tool_of(p).name, "version": ".".join(map(str, version)) if version else "",
            "flags": argv_tail(p)}


def ready(panel: Panel, root: Path) -> Panel:
    """`panel` with each coding agent's tool, version and flags recorded; InputError, before anything is
    written, naming every tool missing, too old, given a flag that is not allowed, or not logged in."""
    agents = [p for p in panel.everyone if p.model.startswith(CLI_PREFIX)]
    found = [f"{p.model} ({p.id}): {line}" for p in agents for line in problems(p, root)[0]]
    if found:
        raise InputError("; ".join(found) + " (`discuss doctor` checks the panel); nothing was written")
    if not agents:
        return panel
    recorded = {p.id: dataclasses.replace(p, agent=agent_record(p, root)) for p in agents}

    def one(p: Panelist | None) -> Panelist | None:
        return recorded.get(p.id, p) if p is not None else None

    return dataclasses.replace(panel, members=tuple(recorded.get(m.id, m) for m in panel.members),
                               chairman=one(panel.chairman), judge=one(panel.judge),
                               synthesizer=one(panel.synthesizer))


def _tail(text: str) -> str:
    """The end of what a tool said, in one line: where its error is."""
    return " ".join(text.split())[-300:]


class AgentProvider:
    """A coding agent's tool as a provider: one process per call, read-only, in the project's root."""

    simulated = False

    def __init__(self, root: Path):
        self.root = root

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float,
                       on_tokens: OnTokens | None = None) -> Completion:
        p, tool = spec.panelist, tool_of(spec.panelist)
        found = executable(p)
        if found is None:
            raise processes.ToolFailed(f"{tool.name} is not installed here (`discuss doctor` says more)")
        prompt = prompt_text(messages)
        done = await processes.run([str(found), *argv_tail(p)], prompt, processes.tool_env(tool.vendor), self.root)
        out = done.out.decode("utf-8", "replace")
        try:
            said: Said | None = tool.read(out)
        except ValueError:
            said = None
        if done.code != 0:
            words = said.error if said is not None and said.error else _tail(done.words) or _tail(out) or "nothing said"
            raise processes.ToolFailed(scrub(f"{tool.name} exited {done.code}: {words}", p))
        if said is None:
            raise processes.ToolFailed(scrub(f"{tool.name}'s output is not the JSON its documentation gives: "
                                             + " ".join((out or done.words).split())[:300], p))
        if said.error is not None:
            raise processes.ToolFailed(scrub(f"{tool.name} said: {' '.join(said.error.split())[:300]}", p))
        usage = agent_usage(said.prompt, said.completion, said.cached, messages, said.text)
        usage.cost = sane_cost(said.cost)
        if usage.cost is None:
            usage.cost = self.price(p, usage.prompt_tokens, usage.completion_tokens)
            usage.unpriced = int(usage.cost is None)
        return Completion(said.text, usage)

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        """The member's own price where it gives one; else unknown (a tool prices its calls only after)."""
        if p.price is None:
            return None
        return (prompt_tokens * p.price[0] + completion_tokens * p.price[1]) / 1_000_000

    def missing_keys(self, panelists: list[Panelist]) -> list[str]:
        return []  # each tool has its own login, checked by `ready`

    def warm_up(self, panelists: list[Panelist]) -> None:
        pass

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        found, login = problems(p, self.root)
        tool = tool_of(p)
        key = {"yes": "ok (logged in)", "unknown": f"warn: cannot tell whether logged in; if not, {tool.log_in}"}\
            .get(login, f"fail: not logged in: {tool.log_in}")
        price = "ok (its own price)" if p.price else \
            "ok (the tool's report)" if tool.name == "claude" else "warn: no cost reported: counted as unknown"
        endpoint = "fail: " + "; ".join(f for f in found if not f.startswith("not logged in")) \
            if any(not f.startswith("not logged in") for f in found) else \
            f"ok ({tool.name} {agent_record(p, self.root)['version']})"
        return Diagnosis(scrub(key, p), price, scrub(endpoint, p))
