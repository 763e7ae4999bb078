"""A person on the panel: each call becomes a form in the discussion's `for-people/` folder.

The first time a call reaches a person, the form is written (the prompt as a
model would see it, anonymised answers in the same shuffled order, and a
place to answer) and the call waits. Once the person has filled it in (by
hand, through `discuss reply` / `discuss vote`, or in a pull request), the
next run reads it and checks it with the same rules as a model's reply. A
form left unanswered past `personWaitHours` fails the call, so the run goes
on without that person: an abstention, never an invented answer.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..calls import CallSpec
from ..domain import Panelist, Usage
from ..jsonreply import ReplyError
from ..store import documents, yamlio
from ..store.files import write_atomic
from .base import Diagnosis, Local, OnTokens, Waiting

FOLDER = "for-people"
MARK = "## Your reply (below this line)"
BALLOT_TASKS = ("vote",)
CHOICES = "APPROVE | NEUTRAL | REJECT"
CLOSING = "CONCLUDE | CONTINUE"
# Forms for free text that must have a shape: the headings a reply is read by, to fill in.
SKELETONS = {"conclude": "## Summary\n\n\n\n## Key Points\n\n- \n\n## Unresolved Questions\n\n- \n\n"
                         "## Recommended Actions\n\n- \n\n## Minority Positions\n\n- \n"}
FORM = re.compile(r"^round-(\d+)-([a-z_]+)-(.+)$")


class Overdue(Exception):
    """No answer within `personWaitHours`: the call fails, and the run goes on without the person."""


def form_path(folder: Path, spec: CallSpec) -> Path:
    return folder / FOLDER / f"round-{spec.context.get('round', 0)}-{spec.task}-{spec.panelist.id}.md"


def person_forms(folder: Path, person: str) -> list[tuple[Path, str, bool]]:
    """A person's forms, oldest first: (form, task, still blank). `person` is taken literally, never as a pattern."""
    found = []
    forms = (folder / FOLDER).glob("round-*.md") if (folder / FOLDER).is_dir() else []
    for form in sorted(forms, key=lambda f: (f.stat().st_mtime, f.name)):
        named = FORM.match(form.stem)
        if named and named.group(3) == person:
            found.append((form, named.group(2), filled(form.read_text(encoding="utf-8"), named.group(2)) is None))
    return found


def blank(spec: CallSpec, messages: list[dict[str, str]], now: str) -> str:
    """A form: what a model would be asked, and where to answer."""
    labels = list(spec.context.get("order") or {})
    meta: dict[str, Any] = {"for": spec.panelist.id, "task": spec.task, "round": spec.context.get("round", 0),
                            "asked": now, "type": "person-form"}
    if labels:
        meta["labels"] = labels
    prompt = "\n\n".join(m["content"] for m in messages if m["role"] == "user")
    if spec.task in BALLOT_TASKS:
        form = yamlio.dump({"votes": {label: {"vote": CHOICES, "reasoning": ""} for label in labels},
                            "termination": {"vote": CLOSING, "reasoning": ""}})
        how = ("Fill in the YAML below: one vote per answer label, with a sentence of reasoning, and whether "
               "the panel should conclude. The answers' authors are hidden, as they are from the models.")
        answer = f"```yaml\n{form}```\n"
    elif spec.task in SKELETONS:
        how = ("Fill in the sections below the line, in Markdown: a summary at least, and a point a line under "
               "each other heading. Replace nothing above it.")
        answer = SKELETONS[spec.task]
    else:
        how = "Write your reply below the line, in Markdown. Replace nothing above it."
        answer = ""
    body = f"{how}\n\n<details><summary>What you are asked</summary>\n\n{prompt}\n\n</details>\n\n{MARK}\n\n{answer}"
    return documents.render(meta, body)


def filled(text: str, task: str) -> str | None:
    """The person's reply as a model would have sent it, or None while the form is still blank."""
    reply = text.split(MARK, 1)[1].strip() if MARK in text else ""
    if task not in BALLOT_TASKS:
        return reply if reply and reply != SKELETONS.get(task, "").strip() else None
    block = re.search(r"```(?:yaml)?\n(.*?)```", reply, re.DOTALL)
    data = yamlio.load(block.group(1) if block else reply) if reply else None
    if not isinstance(data, dict) or _choices_left(data):
        return None
    votes: dict[str, Any] = data["votes"] if isinstance(data.get("votes"), dict) else {}
    ballot = {"votes": [{"label": str(label), **(v if isinstance(v, dict) else {"vote": v})}
                        for label, v in votes.items()],
              "termination": data.get("termination")}
    return json.dumps(ballot)


def _choices_left(data: dict[str, Any]) -> bool:
    """The template's choices still stand in a vote: not filled in yet (a reason may say anything)."""
    votes: dict[str, Any] = data["votes"] if isinstance(data.get("votes"), dict) else {}
    values = [v.get("vote") if isinstance(v, dict) else v for v in votes.values()]
    closing = data.get("termination")
    values.append(closing.get("vote") if isinstance(closing, dict) else closing)
    return any(isinstance(v, str) and v in (CHOICES, CLOSING) for v in values)


def check(text: str, spec: CallSpec) -> str | None:
    """Why a filled form would be refused, else None: the same rules as a model's reply."""
    reply = filled(text, spec.task)
    if reply is None:
        return "the form is not filled in yet"
    if spec.validate is not None:
        try:
            spec.validate(reply)
        except ReplyError as exc:
            return str(exc)
    return None


class HumanProvider(Local):
    simulated = False

    def __init__(self, folder: Path | None = None, wait_hours: float = 0.0,
                 clock: Callable[[], dt.datetime] | None = None):
        self.folder = folder
        self.wait_hours = wait_hours
        self.clock = clock or (lambda: dt.datetime.now(dt.UTC))

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float,
                       on_tokens: OnTokens | None = None) -> tuple[str, Usage]:
        if self.folder is None:
            raise ValueError("a person on the panel needs the discussion's folder")
        path = form_path(self.folder, spec)
        if not path.is_file():
            stamp = self.clock().replace(microsecond=0).isoformat().replace("+00:00", "Z")
            write_atomic(path, blank(spec, messages, stamp))
            raise Waiting(path, "the form is not filled in yet")
        text = path.read_text(encoding="utf-8")
        problem = check(text, spec)
        if problem is None:
            return str(filled(text, spec.task)), Usage(calls=1)
        asked = documents.parse(text, path)[0].get("asked")
        if self.wait_hours and isinstance(asked, str) and self._overdue(asked):
            raise Overdue(f"no reply from {spec.panelist.name} within {self.wait_hours:g} hours ({path.name})")
        raise Waiting(path, problem)

    def _overdue(self, asked: str) -> bool:
        try:
            then = dt.datetime.fromisoformat(asked.replace("Z", "+00:00"))
        except ValueError:
            return False
        return (self.clock() - then).total_seconds() > self.wait_hours * 3600

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        return Diagnosis("ok (a person)", "ok (no cost)", "not checked (a person)")
