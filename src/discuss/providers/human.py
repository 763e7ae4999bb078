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

from ..calls import CallSpec, PersonForm
from ..domain import Panelist, Usage
from ..errors import InputError
from ..store import documents, yamlio, yamlwrite
from ..store.files import write_atomic
from ..text.jsonreply import ReplyError
from .base import Completion, Diagnosis, Local, OnTokens, Waiting

FOLDER = "for-people"
MARK = "## Your reply (below this line)"
# Forms for free text that must have a shape: the headings a reply is read by, to fill in.
SKELETONS = {"conclude": "## Summary\n\n\n\n## Key Points\n\n- \n\n## Unresolved Questions\n\n- \n\n"
                         "## Recommended Actions\n\n- \n\n## Minority Positions\n\n- \n"}
FORM = re.compile(r"^round-(\d+)-([a-z_]+)-(.+)$")


class Overdue(Exception):
    """No answer within `personWaitHours`: the call fails, and the run goes on without the person."""


def form_path(folder: Path, spec: CallSpec) -> Path:
    return folder / FOLDER / f"round-{spec.context.get('round', 0)}-{spec.task}-{spec.panelist.id}.md"


def person_forms(folder: Path, person: str, shapes: dict[str, PersonForm]) -> list[tuple[Path, str, bool]]:
    """A person's forms, oldest first: (form, task, still blank); `shapes` the protocol's forms, by task.

    `person` is taken literally, never as a pattern.
    """
    found = []
    forms = (folder / FOLDER).glob("round-*.md") if (folder / FOLDER).is_dir() else []
    for form in sorted(forms, key=lambda f: (f.stat().st_mtime, f.name)):
        named = FORM.match(form.stem)
        if named and named.group(3) == person:
            task = named.group(2)
            found.append((form, task, filled(form_text(form), task, shapes.get(task)) is None))
    return found


def form_text(path: Path) -> str:
    """A form as the person left it (line ends made `\n`); InputError saying why it cannot be read, a link
    out of the project among the reasons (a form comes with the project's files, from a pull request too)."""
    try:
        text = documents.read_text(path)
    except ValueError as exc:
        raise InputError(f"{path}: cannot be read: {exc}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def blank(spec: CallSpec, messages: list[dict[str, str]], now: str) -> str:
    """A form: what a model would be asked, and where to answer."""
    labels = list(spec.context.get("order") or {})
    meta: dict[str, Any] = {"for": spec.panelist.id, "task": spec.task, "round": spec.context.get("round", 0),
                            "asked": now, "type": "person-form"}
    if labels:
        meta["labels"] = labels
    prompt = "\n\n".join(m["content"] for m in messages if m["role"] == "user")
    if spec.form is not None:
        how, answer = spec.form.how, f"```yaml\n{yamlwrite.dump(spec.form.blank(labels))}```\n"
    elif spec.task in SKELETONS:
        how = ("Fill in the sections below the line, in Markdown: a summary at least, and a point a line under "
               "each other heading. Replace nothing above it.")
        answer = SKELETONS[spec.task]
    else:
        how = "Write your reply below the line, in Markdown. Replace nothing above it."
        answer = ""
    body = f"{how}\n\n<details><summary>What you are asked</summary>\n\n{prompt}\n\n</details>\n\n{MARK}\n\n{answer}"
    return documents.render(meta, body)


def filled(text: str, task: str, form: PersonForm | None = None) -> str | None:
    """The person's reply as a model would have sent it, or None while the form is still blank."""
    reply = text.split(MARK, 1)[1].strip() if MARK in text else ""
    if form is None:
        return reply if reply and reply != SKELETONS.get(task, "").strip() else None
    block = re.search(r"```(?:yaml)?\n(.*?)```", reply, re.DOTALL)
    data = yamlio.load(block.group(1) if block else reply) if reply else None
    made = form.reply(data) if isinstance(data, dict) else None
    return json.dumps(made) if made is not None else None


def check(text: str, spec: CallSpec) -> str | None:
    """Why a filled form would be refused, else None: the same rules as a model's reply."""
    try:
        reply = filled(text, spec.task, spec.form)
    except (ValueError, RecursionError) as exc:
        return f"not readable: {str(exc)[:300]}"
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
                       on_tokens: OnTokens | None = None) -> Completion:
        if self.folder is None:
            raise ValueError("a person on the panel needs the discussion's folder")
        path = form_path(self.folder, spec)
        if not path.is_file():
            stamp = self.clock().replace(microsecond=0).isoformat().replace("+00:00", "Z")
            write_atomic(path, blank(spec, messages, stamp))
            raise Waiting(path, "the form is not filled in yet")
        text = form_text(path)
        problem = check(text, spec)
        if problem is None:
            return Completion(str(filled(text, spec.task, spec.form)), Usage(calls=1))
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
