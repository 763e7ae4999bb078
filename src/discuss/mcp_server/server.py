"""The MCP server: the tools an agent calls, each a thin call of the application layer the CLI calls too.

No tool makes an agent wait for the models: `ask` writes the question and
starts its run as a process of its own, then answers at once (or waits as
long as the agent says, reporting progress). Everything else reads files, so
any number of servers and CLIs see the same state. A problem the CLI would
report (a missing question, panel or key, an unknown protocol) is a tool
error in the same words; the server goes on serving. Nothing outside the
project is read or written, and no key is ever part of a result.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from .. import __version__, commands
from ..commands.project import Layout
from ..errors import DiscussError
from ..text import placeholders, secrets
from ..text.secrets import scrub
from .parameters import described

T = TypeVar("T")
POLL_SECONDS = 0.5
MAX_WAIT = 600.0


def answered(call: Callable[[], T]) -> T:
    """The application's result, or its refusal as a tool error in the CLI's words.

    Whatever goes wrong reaches the agent in words, scrubbed of keys and of this machine's paths (the
    interpreter's, the project's): never a bare "Error executing tool", never a traceback.
    """
    try:
        return call()
    except DiscussError as exc:
        raise ToolError(_words(str(exc))) from None
    except OSError as exc:
        raise ToolError(_words(f"{exc.filename or 'a file'}: {exc.strerror or exc}")) from None
    except Exception as exc:  # noqa: BLE001 - a tool call never ends in a bare error
        raise ToolError(_words(f"could not be done: {type(exc).__name__}: {exc}"[:2000])) from None


def _words(text: str) -> str:
    import sys

    for folder in sorted({sys.prefix, sys.base_prefix, str(Path.cwd())}, key=len, reverse=True):
        if len(folder) > 1:
            text = text.replace(folder + "/", "").replace(folder, ".")
    return scrub(text)


def build(root: Path) -> MCPServer:
    """A server over the project at `root` (found as the CLI finds it)."""
    layout = Layout(root)
    secrets.remember_project(layout.root)
    placeholders.remember_project(layout.prompts)
    app = MCPServer("discuss", version=__version__, instructions=(
        "A panel of language models deliberates on a research question; every step is a file in this project. "
        "Call `ask` to start a discussion (it returns at once with a slug), `status` to follow it, `show` to read "
        "its conclusion. Use it before a decision that is hard to undo."))
    for tools in (_asking_tools, _reading_tools, _study_tools, _memory_tools):
        tools(app, layout)
    return app


def _asking_tools(app: MCPServer, layout: Layout) -> None:
    """Tools that start or continue a discussion, whose run goes on as a process of its own."""
    @app.tool()
    @described
    async def ask(question: str, ctx: Context, background: str | None = None, panel: str | None = None,
                  models: list[str] | None = None, protocol: str | None = None, max_rounds: int | None = None,
                  max_cost: float | None = None, settings: dict[str, str | int | float | bool] | None = None,
                  decision: str | list[str] | None = None, wait_seconds: float = 0) -> dict[str, Any]:
        """Put a research question to the panel. Returns at once with {slug, status, path, asked, note}; with
        wait_seconds, waits up to that long (reporting progress) and returns the conclusion if it came.
        `decision`: "yes-no", or 2 to 12 options, to get a decision `verdict` gives. `settings`: the
        protocol's own, by name ({"critiqueRounds": 2}; the `protocols` tool lists each protocol's). The same
        title with another background or decision is a discussion of its own (`asked: "new facts"`); the same
        text asked again returns that discussion (`asked: "same"`)."""
        request = commands.asking.AskRequest(question, background, panel, list(models or []), protocol, max_rounds,
                                             max_cost, dict(settings or {}), decision)
        started = answered(lambda: commands.asking.start(layout, request))
        ends = time.monotonic() + min(max(wait_seconds, 0.0), MAX_WAIT)
        status = started.status
        while time.monotonic() < ends:
            row = answered(lambda: commands.reading.status_rows(layout.content, started.slug)[0][0])
            status = row.status
            await ctx.report_progress(row.rounds, None, f"{started.slug}: {status}, round {row.rounds}")
            if status in ("concluded", "closed") or not commands.asking.question_running(layout, started.slug):
                break
            await asyncio.sleep(POLL_SECONDS)
        return _with_outcome(layout, started.to_json() | {"status": status})

    @app.tool()
    @described
    def follow_up(question: str, text: str) -> dict[str, Any]:
        """Ask a finished discussion a further question: a part that reads its conclusion and ends in its own.
        Returns at once with the part's {slug, status, path}; follow it with `status`."""
        return answered(lambda: commands.asking.follow_up(layout, question, text)).to_json()

    @app.tool()
    @described
    def sources_add(question: str, urls: list[str]) -> dict[str, Any]:
        """Freeze web pages into the question's sources: each fetched once (public addresses only), its
        readable text kept as sources/<question>/<name>.md and listed in the question's `sources:`. Each on its
        own: {frozen, failed: [{url, error}]}; an address frozen before is kept as it is (`already`); a tool
        error only where none could be kept."""
        return answered(lambda: commands.sourcing.add(layout, question, urls)).to_json()

    @app.tool()
    @described
    def sources_search(question: str, query: str, count: int = 10, add: list[int] | None = None) -> dict[str, Any]:
        """Ask the search endpoint panels.yaml names; {query, results: [{title, url, snippet}], added, failed}.
        `add`: the numbers (from 1) of results to freeze as the question's sources, each on its own (those that
        could not be are in `failed` with why)."""
        return answered(lambda: commands.sourcing.search(layout, question, query, count, add)).to_json()

    @app.tool()
    @described
    def reply(question: str, person: str, text: str, ballot: bool = False) -> dict[str, Any]:
        """Answer as a person on the panel (the person's id), or vote (ballot: true, the ballot's YAML), where
        the run stopped waiting for them; the run then goes on by itself."""
        return answered(lambda: commands.asking.answer_as(layout, question, person, text, ballot)).to_json()


def _reading_tools(app: MCPServer, layout: Layout) -> None:
    """Tools and resources that read the files: any server or CLI sees the same state."""
    @app.tool()
    @described
    def status(question: str | None = None, status: str | None = None, limit: int = 100,
               offset: int = 0) -> dict[str, Any]:
        """With a question: that question's row (status, rounds, leader, termination, usage, protocol, running,
        and `lastOutput` where its run stopped before the end). Without: a page of every discussion's rows,
        {discussions, total, offset, limit, warnings}; `status` keeps only the rows of one status (not started,
        active, concluded, closed); `limit` rows from `offset` (from 0) of `total`."""
        if question is None:
            return answered(lambda: commands.reading.status_page(layout.content, status, limit, offset)).to_json()
        row = answered(lambda: commands.reading.status_rows(layout.content, question))[0][0]
        row.running = commands.asking.question_running(layout, row.slug)
        if not row.running and row.status not in ("concluded", "closed"):
            row.last_output = commands.asking.last_output(layout, row.slug)
        return {k: v for k, v in commands.results.to_json(row).items() if v is not None}

    @app.tool()
    @described
    def show(question: str, full: bool = False, record: bool = False) -> dict[str, Any]:
        """One discussion, compact: its status, outcome and dissent as `show` prints them (text). `full`: every
        round's replies in the text too; `record`: the whole record as `show --json` gives it, as well."""
        text = answered(lambda: commands.showing.discussion_text(layout.content, question, full))
        row = answered(lambda: commands.reading.status_rows(layout.content, question))[0][0]
        out = {"slug": row.slug, "status": row.status, "rounds": row.rounds, "text": text}
        if record:
            out["discussion"] = answered(lambda: commands.showing.discussion_data(layout.content, question))
        return out

    @app.tool()
    @described
    def verdict(question: str) -> dict[str, Any]:
        """What the panel decided, to act on: {decision (where the question asks for one: `decision: yes-no` or
        options in its front matter), confidence (from the recorded ballots), conclusion, dissent (verbatim),
        members, degraded, protocol, rounds, recordDigest, uri, verified, findings, notes}. A record that does not
        hold (`verified: false`, its findings named) has `decision: unverified`: never act on it."""
        return commands.results.to_json(answered(lambda: commands.verifying.verdict(layout, question)))

    @app.tool()
    @described
    def verify(questions: list[str] | None = None, base: str | None = None) -> dict[str, Any]:
        """Recompute every recorded outcome (or those of `questions`) from its files and check the chain of
        digests; with `base` (a git ref), that no round recorded there changed. {discussions, findings, notes}."""
        return answered(lambda: commands.verifying.verify(layout, list(questions or []), base)).to_json()

    @app.tool()
    @described
    def panels() -> dict[str, Any]:
        """The panels of the project: members, models, roles, and whether each key is set (never its value)."""
        return {"members": answered(lambda: commands.choices.panel_rows(layout))}

    @app.tool()
    @described
    def protocols() -> dict[str, Any]:
        """The protocols a discussion can follow, each with a line on what it does and the settings of its own."""
        return {"protocols": [row.to_json() for row in commands.choices.protocol_rows()]}

    @app.resource("discussion://{slug}", mime_type="text/markdown")
    def discussion(slug: str) -> str:
        """A discussion as `show` prints it: its conclusion first, to cite."""
        return answered(lambda: commands.showing.discussion_text(layout.content, slug, full=True))


def _study_tools(app: MCPServer, layout: Layout) -> None:
    """Tools that price a run or measure a panel: estimates, the bias audit, trials."""
    @app.tool()
    @described
    def estimate(question: str, panel: str | None = None, protocol: str | None = None) -> dict[str, Any]:
        """What running the question to its end would take at most (calls, tokens, dollars), before any call;
        nothing is written."""
        options = commands.running.Options(panel=panel, protocol=protocol)
        return answered(lambda: commands.estimating.estimate(layout.root, layout.content, question, options,
                                                             commands.running.Plan(auto=True))).to_json()

    @app.tool()
    @described
    def audit(question: str, round_number: int | None = None, orders: int = 4, padding: bool = False,
              estimate: bool = True) -> dict[str, Any]:
        """Measure the voters' position bias (and with padding, length bias) on a finished vote round: they are
        asked again with the same answers in `orders` new orders. With estimate (the default) only what the
        re-asks would take; call again with estimate false to make them (it returns when they are done)."""
        return answered(lambda: commands.auditing.audit(layout.root, layout.content, question, round_number, orders,
                                                        padding, estimate)).to_json()

    @app.tool(name="eval")
    @described
    def eval_(labelled: str, panel: str | None = None, arms: str = "vote,majority", items: int | None = None,
              seed: int = 1, estimate: bool = True, max_cost: float | None = None) -> dict[str, Any]:
        """Whether deliberating beats asking one model or a plain majority, on a labelled set (evals/NAME.jsonl
        or .yaml, or a built-in one: arithmetic, gsm8k, bbh-...): with estimate (the default) what the eval would
        take at most; with estimate false it starts as a process of its own ({started}), spending at most
        max_cost dollars where given; while it runs, calling again with the same arguments returns how far it has
        got ({running: true, items: {done, total}, calls: {done, planned}}), and once it is done, the figures
        (also in evals/NAME/report.yaml)."""
        return answered(lambda: commands.evaluating.start_eval(layout, labelled, panel, arms, items, seed, estimate,
                                                               max_cost)).to_json()

    @app.tool()
    @described
    def trials(question: str, runs: int | None = None, panel: str | None = None, protocol: str | None = None,
               estimate: bool = True) -> dict[str, Any]:
        """How stable a question's outcome is over independent runs. Without runs: the figures of the trials
        there (rounds, approval, winner, termination, with intervals). With runs: with estimate (the default)
        what running the trials still missing would take; with estimate false they start as a process of their
        own and this returns at once ({started, runs}); call again without runs for the figures."""
        return answered(lambda: commands.repeating.trials(layout, question, runs, panel, protocol, estimate)).to_json()


def _memory_tools(app: MCPServer, layout: Layout) -> None:
    """Tools that read the archive as a memory and record what happened: related, resolve."""
    @app.tool()
    @described
    def related(question: str, limit: int = 5) -> dict[str, Any]:
        """Earlier discussions nearest to a question (its slug, or a text), best first (BM25 over titles,
        backgrounds and conclusions; no model is asked): {query, slug, related: [{slug, title, status, decision,
        score, concluded}], warnings}."""
        return answered(lambda: commands.remembering.related(layout.content, question, limit)).to_json()

    @app.tool()
    @described
    def resolve(question: str, outcome: str, answer: str | None = None,
                sources: list[str] | None = None) -> dict[str, Any]:
        """Record what happened after a finished discussion (a follow-up part: `<slug>-part-N`): `outcome` in
        words, `answer` (yes or no, or one of the question's decision options), `sources` (web addresses, never
        fetched, or files of the project). Writes outcome.md, sealed onto the record's chain; {slug, path, resolved,
        answer, decision, bornOut, evidence, resolvedBy, chained}."""
        return answered(lambda: commands.remembering.resolve(layout, question, outcome, answer, list(sources or []))).to_json()


def _with_outcome(layout: Layout, row: dict[str, Any]) -> dict[str, Any]:
    """The ask's row, with the conclusion once the discussion has one."""
    if row.get("status") in ("concluded", "closed"):
        row["conclusion"] = answered(lambda: commands.showing.discussion_text(layout.content, row["slug"]))
        row["verdict"] = commands.results.to_json(answered(lambda: commands.verifying.verdict(layout, row["slug"])))
    return row


def serve(root: Path) -> None:
    """Serve the project over stdio until the client closes it.

    The server works from the project's folder, so a relative path an agent sends names a file of the
    project (and is then held inside it), whatever folder the client started the server in."""
    import os

    os.chdir(root)
    build(root).run("stdio")
