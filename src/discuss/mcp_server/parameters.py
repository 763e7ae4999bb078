"""What each parameter of the MCP server's tools is, said to the agent in the tool's schema.

`described` gives a tool's parameters their descriptions from here (a tool's own, else the one its name has
in every tool), so the signatures stay plain; a test holds every parameter of every tool to having one.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from pydantic import Field

F = TypeVar("F", bound=Callable[..., Any])

REF = "The question: its slug (as `status` lists it) or the path of its file under the content folder"

# A parameter's meaning wherever it appears.
COMMON = {
    "question": REF,
    "panel": "A panel of discussions/panels.yaml (the `panels` tool lists them); default the project's",
    "protocol": "A protocol by name (the `protocols` tool lists them); default the question's or the project's",
    "estimate": "True (the default): only what it would take, nothing written; false: do it",
    "text": "What to ask or answer, in words",
    "limit": "How many rows at most",
}

# A tool's own meaning of a parameter.
OWN = {
    ("ask", "question"): "The research question, in words (one line; at most 1000 characters)",
    ("ask", "background"): (
        "What the panel knows before it starts (Markdown; at most 1 MB); new facts for a "
        "title asked before make a discussion of their own"
    ),
    ("ask", "models"): (
        "Models for an ad-hoc panel instead of `panel` (litellm's names, as in panels.yaml); a model no provider knows is refused"
    ),
    ("ask", "max_rounds"): "Stop after this round (1 or more)",
    ("ask", "max_cost"): "A budget in dollars (0: none)",
    ("ask", "settings"): (
        "The protocol's own settings by name, as {\"critiqueRounds\": 2} (the `protocols` tool lists each protocol's)"
    ),
    ("ask", "decision"): 'Ask for a decision: "yes-no", or 2 to 12 options; `verdict` then gives the one chosen',
    ("ask", "wait_seconds"): ("Wait up to this long (at most 600) for the conclusion, reporting progress; 0 returns at once"),
    ("follow_up", "text"): "The further question, in words",
    ("sources_add", "urls"): "Web addresses (http or https; public ones only) to freeze",
    ("sources_search", "query"): "What to search for",
    ("sources_search", "count"): "How many results (1 to 20)",
    ("sources_search", "add"): "The numbers (from 1) of results to freeze as the question's sources",
    ("reply", "person"): "The person's member id on the panel",
    ("reply", "text"): "The answer in words, or (with ballot) the ballot's YAML",
    ("reply", "ballot"): "True where `text` is a ballot (a vote), not an answer",
    ("status", "question"): "One question (its slug or path); without it, a page of every discussion's rows",
    ("status", "status"): "Only the rows of this status: not started, active, concluded or closed",
    ("status", "limit"): "How many rows at most in the page (1 or more)",
    ("status", "offset"): "The first row of the page, from 0",
    ("show", "full"): "Every round's replies in the text too",
    ("show", "record"): "The whole record as `show --json` gives it, as well",
    ("verify", "questions"): "Questions to check (slugs or paths); default every discussion",
    ("verify", "base"): ("A git ref: also name every recorded file changed since it, and read where the record lives from it"),
    ("audit", "round_number"): "The vote round to audit; default the last",
    ("audit", "orders"): "How many new orders to ask in (1 to 50)",
    ("audit", "padding"): "Also measure length bias, with answers lengthened by a restatement of themselves",
    ("eval_", "labelled"): "A labelled set: evals/NAME.jsonl or .yaml, or a built-in one (arithmetic, gsm8k, bbh-...)",
    ("eval_", "arms"): "Arms, comma-separated: a protocol's name, majority, self-consistency, single:MEMBER",
    ("eval_", "items"): "Only the first N items (1 to 10,000)",
    ("eval_", "seed"): "The seed the eval's orders and samples are drawn with; another seed needs another name",
    ("eval_", "max_cost"): "A budget in dollars for the whole eval",
    ("trials", "runs"): "How many independent runs; without it, the figures of the trials there",
    ("related", "question"): "A question's slug or path, or a text to find discussions near",
    ("related", "limit"): "How many discussions at most",
    ("resolve", "outcome"): "What happened, in words",
    ("resolve", "answer"): "yes or no, or one of the question's decision options",
    ("resolve", "sources"): "Evidence: web addresses (never fetched) or files of the project",
}


def described(tool: F) -> F:
    """`tool` with each parameter's type carrying its description (before the server reads the signature)."""
    hints = typing.get_type_hints(tool)
    for name, hint in hints.items():
        if name in ("return", "ctx"):
            continue
        about = OWN.get((tool.__name__, name)) or COMMON.get(name)
        if about is None:
            raise KeyError(f"{tool.__name__}({name}): no description")
        tool.__annotations__[name] = Annotated[hint, Field(description=about)]
    return tool
