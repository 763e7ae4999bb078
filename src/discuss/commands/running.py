"""What `run`, `ask`, `follow-up` and a person's turn do, apart from parsing and printing.

`cli/` parses arguments, asks these functions, and prints what they
return; the functions raise `InputError` for bad input before anything is
written. Each is callable from a test or another front end as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import providers
from ..calls import PersonForm
from ..domain import Discussion, Question
from ..engine.client import OnEvent, OnNote, OnTokens, PanelClient
from ..engine.prepare import Options, check_ready, ground, prepare
from ..engine.runner import Runner, prompts_for
from ..protocols.base import Plan
from ..store import documents
from ..store.layout import Layout
from ..store.questions import asked, create_question
from ..text.prompting import Prompts

__all__ = ["ASKED", "Form", "Options", "Plan", "Ready", "ask_file", "follow_up_file", "ready", "run_ready", "save_form",
           "startable", "waiting_form"]
from ..errors import InputError
from ..protocols import get_protocol
from ..providers.human import FOLDER, MARK, filled, person_forms
from ..providers.human import form_text as read
from ..store import discussions as store
from ..store.files import write_atomic
from ..store.followups import create_part, follow_ups
from ..store.questions import find_question, read_question
from .precedents import with_precedent

MANY_ROUNDS = 7  # beyond this, rounds rarely add anything but cost


@dataclass
class Ready:
    """A discussion ready to run: the question file, the discussion, the question as the panel reads it."""

    q: Question
    d: Discussion
    asked: Question
    notes: list[str] = field(default_factory=list)  # warnings to show before anything runs


def ready(root: Path, content: Path, ref: str, options: Options) -> Ready:
    """The discussion of question `ref`, new or resumed, with the warnings a person should see first."""
    q = find_question(content, ref)
    before = store.summary(q.folder)
    d = prepare(root, q, options)
    notes = []
    if before is not None and before.termination_reason == "budget" and before.status == "closed" and not d.concluded:
        notes.append(f"{q.slug}: the budget is raised; going on from round {d.current_round}")
    if d.concluded:
        return Ready(q, d, q, notes)
    asked, changes = ground(root, q, d)

    asked, left_out = with_precedent(Layout(root), q, d, asked)
    notes += [f"warning: {q.slug}: {line}" for line in [*changes, *left_out]]
    if get_protocol(d.protocol).most_rounds(d) > MANY_ROUNDS:
        notes.append(f"warning: more than {MANY_ROUNDS} rounds rarely adds anything but cost; panels converge "
                     "or entrench well before")
    return Ready(q, d, asked, notes)


def startable(root: Path, r: Ready) -> Prompts:
    """The prompts the run reads, once everything that must hold before spending holds (keys, scripts,
    templates, the protocol's own checks); InputError otherwise."""
    prompts = prompts_for(root)
    check_ready(r.d, root)
    return prompts


def run_ready(root: Path, r: Ready, plan: Plan, prompts: Prompts, on_event: OnEvent | None = None,
              on_tokens: OnTokens | None = None, on_note: OnNote | None = None,
              on_round: Callable[[str], None] | None = None) -> Discussion:
    """Run `r` under `plan` to where the plan or a stopping rule ends it; what it paid for is on disk."""
    client = PanelClient(root, r.d.settings, on_event=on_event, on_tokens=on_tokens, on_note=on_note)
    runner = Runner(client.gateway(folder=r.q.folder), prompts, on_round=on_round)
    return providers.run(runner.run(r.asked, r.d, plan))


def ask_file(content: Path, section: str, question: str, background: str | None,
             decision: str | list[str] | None = None) -> tuple[Path, str]:
    """The question file `ask` runs, and how it was found (`store.questions.asked`): an earlier identical ask's
    ("same"), or one written now ("new", or "new facts" where the title was asked before with another
    background or decision)."""
    path, how = asked(content, section, question, background, decision)
    if not path.is_file():
        extra: dict[str, object] = {} if decision is None else {"decision": decision}
        create_question(content, section, question, [], background=background, placeholder=False, extra=extra,
                        at=path)
    return path, how


ASKED = {"same": "asked before: going on with it",
         "new facts": "asked before with another background or decision: these facts go to a discussion of "
                      "their own"}


def follow_up_file(content: Path, ref: str, text: str | None, panel: str | None, protocol: str | None) -> Path:
    """The follow-up part to run: a new one asking `text`, or (no text) the latest unfinished one."""
    q = find_question(content, ref)
    first = store.load(q.folder)
    if first is not None and first.concluded and not first.rounds and first.conclusion is None:
        raise InputError(f"{q.slug}: damaged: it says it concluded, with no round and no conclusion; restore it "
                         "from git before following it up")
    if first is None or not first.concluded:
        raise InputError(f"{q.slug}: a follow-up asks a finished discussion; this one is "
                         f"{first.status if first else 'not started'} (`discuss run` goes on with it)")
    parts = [(q, first)]
    for path in follow_ups(q):
        part = read_question(path)
        if (d := store.load(part.folder)) is None:
            raise InputError(f"{path}: part not started; remove the file or run it: discuss run {path}")
        parts.append((part, d))
    if text is None:
        if parts[-1][1].concluded:
            raise InputError(f"{q.slug}: every part has finished; give the follow-up question's text")
        return parts[-1][0].path
    if protocol is not None:
        get_protocol(protocol)  # refused before a file is written
    return create_part(q, parts, text, panel or parts[-1][1].panel.name, protocol or parts[-1][1].protocol,
                       content)


@dataclass
class Form:
    """A person's form waiting to be filled: its file, its task, the protocol's shape for it."""

    q: Question
    path: Path
    task: str
    shape: PersonForm | None


def waiting_form(content: Path, ref: str, person: str, ballot: bool) -> Form:
    """The newest blank form of `person` (a ballot, or a reply); else, while the discussion goes on,
    the newest filled one (a run refused it)."""
    q = find_question(content, ref)
    d = store.load(q.folder)
    shapes = get_protocol(d.protocol).presentation.person_forms() if d is not None else {}
    mine = [(f, task, blank) for f, task, blank in person_forms(q.folder, person, shapes)
            if (task in shapes and shapes[task].ballot) == ballot]
    forms = [(f, task) for f, task, blank in mine if blank]
    if not forms and d is not None and d.status == "active":
        forms = [(f, task) for f, task, _ in mine[-1:]]
    if not forms:
        raise InputError(f"{q.slug}: no {'ballot' if ballot else 'reply'} waits for {person!r} "
                         f"(forms are written in {q.folder / FOLDER} when a run reaches a person)")
    path, task = forms[-1]
    return Form(q, path, task, shapes.get(task))


def form_text(form: Form) -> str:
    """The form as the person left it; InputError where it cannot be read (a link out of the project, say)."""
    return read(form.path)


def answered_form(form: Form, text: str) -> str:
    """The form's text with `text` written below its line, as a person fills it in."""
    head = form_text(form).split(MARK, 1)[0]
    return head + MARK + "\n\n" + text.strip() + "\n"


def save_form(form: Form, edited: str) -> None:
    """Save the filled form when the rules a model's reply meets pass; else keep the text beside it and refuse."""
    try:  # a person's text is untrusted: YAML it cannot read is refused in words, never a traceback
        reply = filled(edited, form.task, form.shape)
        problem = "nothing was written below the line" if reply is None else None
        if reply is not None and form.shape is not None and form.shape.check is not None:
            labels = [str(x) for x in documents.parse(edited, form.path)[0].get("labels") or []]
            form.shape.check(reply, labels)
    except (ValueError, RecursionError) as exc:
        problem = f"not readable: {str(exc)[:300]}"
    if problem:
        keep = form.path.with_suffix(".draft.md")
        write_atomic(keep, edited)  # nothing typed is lost
        raise InputError(f"{form.path}: refused: {problem}; your text is in {keep}")
    write_atomic(form.path, edited)
