"""Asking without waiting: the question written at once, its run a process of its own.

An agent's client gives up on a tool call after a minute or so, and a
deliberation takes minutes. So the question file is written here and the
run goes on as `discuss ask` in a process of its own, started in a new
session so it outlives whoever started it. Its state is the discussion's
files, which anyone can read (`status`, `show`); the discussion's lock
keeps a second start from running the same question twice; its output goes
to a log beside the lock, outside the project, so nothing stray reaches git.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from ..domain import Question
from ..engine.prepare import Options, check_ready, check_routes, prepare
from ..errors import DiscussError, InputError
from ..protocols import get_protocol, names, own_settings_in, refuse_strangers, settings_names
from ..schema import validated
from ..schema.question import FrontMatterModel
from ..schema.settings import refuse_shared
from ..store import discussions as store
from ..store.files import is_running, lock_path
from ..store.layout import Layout
from ..store.questions import asked, find_question, options_of, read_question
from ..text.naming import did_you_mean
from ..text.secrets import scrub
from .results import OPTIONAL, Result
from .running import ASKED, answered_form, ask_file, follow_up_file, save_form, waiting_form

BACKGROUND_BYTES = 1024 * 1024


@dataclass
class AskRequest:
    question: str
    background: str | None = None
    panel: str | None = None
    models: list[str] = field(default_factory=list)
    protocol: str | None = None
    max_rounds: int | None = None
    max_cost: float | None = None
    settings: dict[str, object] = field(default_factory=dict)  # the protocol's own (as `--set KEY=VALUE`)
    decision: str | list[str] | None = None  # `yes-no` or the options: written into the question's front matter

    def check(self, layout: Layout, section: str = "questions", ready: bool = True) -> Path:
        """Everything a run of this request would refuse, refused now, before a file is written or a process
        started: the question, the panel and its models, their keys and scripts, the protocol, the settings and
        their ranges. The CLI's `ask` and the MCP server's both call it. Returns where the question's file is
        (or will be)."""
        self._check_options()
        path, _ = asked(layout.content, section, self.question, self.background, self.decision)
        q = read_question(path) if path.is_file() else Question(
            path=path, slug=path.stem, title=" ".join(self.question.split()), background=self.background or "",
            decision=options_of(self.decision))
        d = prepare(layout.root, q, self.options())
        if not d.concluded:
            check_routes(d)  # a model no provider can reach is refused, estimate or not
            if ready:  # an estimate needs no key
                check_ready(d, layout.root)
        return path

    def options(self) -> Options:
        return Options(panel=self.panel, protocol=self.protocol, models=self.models or None, own=self.settings,
                       overrides={"max_rounds": self.max_rounds, "max_cost": self.max_cost})

    def _check_options(self) -> None:
        if not self.question.strip():
            raise InputError("the question is empty")
        if self.panel and self.models:
            raise InputError("give a panel or models, not both")
        if self.protocol is not None:
            get_protocol(self.protocol)  # an unknown name is refused with the names there are
        if self.max_rounds is not None and self.max_rounds < 1:
            raise InputError("max_rounds must be at least 1")
        if self.max_cost is not None and not self.max_cost >= 0:
            raise InputError("max_cost must be 0 (no budget) or more dollars")
        if self.background is not None and len(self.background.encode("utf-8", "replace")) > BACKGROUND_BYTES:
            raise InputError(f"the background is larger than {BACKGROUND_BYTES // 1024} KB")
        if self.decision is not None:
            self.decision = validated(FrontMatterModel, {"title": "-", "decision": self.decision}, "decision").decision
        self._check_settings()

    def _check_settings(self) -> None:
        """Each setting a protocol's own, of the right kind: the named protocol's, else some protocol's."""
        refuse_shared(self.settings)
        if self.protocol is not None:
            refuse_strangers(get_protocol(self.protocol), self.settings)
        if bad := sorted(k for k, v in self.settings.items() if not isinstance(v, str | int | float | bool)):
            raise InputError(f"{', '.join(bad)}: give a word, a number or true/false")
        if strange := sorted(set(self.settings) - set(own_settings_in(self.settings, "settings"))):


            known = sorted({k for n in names() for k in settings_names(get_protocol(n))})
            raise InputError(f"{', '.join(strange)}: not a setting of any protocol{did_you_mean(strange[0], known)}"
                             " (`protocols` lists each protocol's)")

    def argv(self, root: Path) -> list[str]:
        args = command(root, "ask", " ".join(self.question.split()), "-q")
        for flag, value in (("--panel", self.panel), ("--protocol", self.protocol),
                            ("--max-rounds", self.max_rounds), ("--max-cost", self.max_cost)):
            if value is not None:
                args += [flag, str(value)]
        for model in self.models:
            args += ["--model", model]
        if self.background is not None:
            args += ["--background", "-"]  # handed over on stdin: see `launch`
        for option in [] if self.decision is None else [self.decision] if isinstance(self.decision, str) \
                else self.decision:
            args += ["--decision", option]
        for key, given in self.settings.items():
            args += ["--set", f"{key}={str(given).lower() if isinstance(given, bool) else given}"]
        return args


def log_path(folder: Path) -> Path:
    return lock_path(folder).with_suffix(".log")


STARTED: list[subprocess.Popen[bytes]] = []  # runs this process started: polled, so none lingers as a zombie


def starting(folder: Path) -> bool:
    """Whether a run started for `folder` is alive, though it may not hold the lock yet (its first second)."""
    for child in list(STARTED):
        if child.poll() is not None:
            STARTED.remove(child)
    try:
        pid = int(log_path(folder).with_suffix(".pid").read_text())
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except (OSError, ValueError, IndexError):
        return False


@dataclass
class Started(Result):
    """A run started (or found going, or ended) for a question, a follow-up part or a person's reply."""

    slug: str
    path: str  # the question's file (a reply: the file saved), from the project's root
    status: str
    started: bool  # False where a run was already going, or the discussion had ended
    asked: str | None = field(default=None, metadata=OPTIONAL)  # an ask: "new", "same" or "new facts"
    note: str | None = field(default=None, metadata=OPTIONAL)


@dataclass
class Replied(Result):
    """A person's reply (or ballot) saved, and whether the run started again."""

    slug: str
    saved: str
    started: bool


def start(layout: Layout, request: AskRequest) -> Started:
    """Write the question (or find the one an identical ask wrote) and start its run unless one is going.

    Returns `{slug, path, status, started, asked}` at once, with no model asked: `started` is False where a run was already going,
    or the discussion had ended; `asked` says how the question was found ("new", "same": an earlier ask of
    this text, whose discussion answers this one, or "new facts": the title was asked before with another
    background or decision, and this ask has a discussion of its own), and `note` says it in words.
    """
    request.check(layout)
    path, how = ask_file(layout.content, "questions", request.question, request.background, request.decision)
    q = read_question(path)
    where = path.relative_to(layout.root).as_posix()
    summary = store.summary(q.folder)
    if summary is not None and summary.status in ("concluded", "closed"):
        return Started(q.slug, where, summary.status, False, how,
                       f"asked before and {summary.status}: this is that discussion's answer; "
                       "`follow_up` asks it again with more to go on")
    started = launch(layout, q.folder, request.argv(layout.root), request.background)
    return Started(q.slug, where, "running", started, how, ASKED.get(how))


def launch(layout: Layout, folder: Path, argv: list[str], stdin: str | None = None) -> bool:
    """Start `argv` (a `discuss` command) as a process of its own for the discussion in `folder`, unless a run
    of it is going already; False then. `stdin`: what the command reads there (an ask's background, which
    with its title tells the question apart from another of that title)."""
    if is_running(folder) or starting(folder):
        return False
    log = log_path(folder)
    with open(log, "wb") as out:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE, stdout=out,
                                 stderr=out, start_new_session=True, close_fds=True, cwd=layout.root,
                                 env={**os.environ, "NO_COLOR": "1"})
    if stdin is not None and child.stdin is not None:
        threading.Thread(target=_hand, args=(child.stdin, stdin), daemon=True).start()  # more than a pipe holds
    STARTED.append(child)
    log.with_suffix(".pid").write_text(str(child.pid))
    return True


def _hand(pipe: IO[bytes], text: str) -> None:
    with contextlib.suppress(OSError), pipe:
        pipe.write(text.encode("utf-8", "replace"))


def command(root: Path, *args: str) -> list[str]:
    """`discuss --root ROOT ARGS...` as this Python runs it."""
    return [sys.executable, "-m", "discuss", "--root", str(root), *args]


def follow_up(layout: Layout, question: str, text: str) -> Started:
    """Write a finished discussion's follow-up part and start its run; `{slug, path, status, started}`."""
    if not text.strip():
        raise InputError("the follow-up question is empty")
    part = read_question(follow_up_file(layout.content, question, text, None, None))
    started = launch(layout, part.folder, command(layout.root, "run", str(part.path), "--auto", "-q", "--yes"))
    return Started(part.slug, part.path.relative_to(layout.root).as_posix(), "running", started)


def answer_as(layout: Layout, question: str, person: str, text: str, ballot: bool) -> Replied:
    """A person's reply (or ballot) saved as `reply`/`vote` would save it, and the run started again."""
    form = waiting_form(layout.content, question, person, ballot)
    save_form(form, answered_form(form, text))
    started = launch(layout, form.q.folder, command(layout.root, "run", form.q.slug, "--auto", "-q", "--yes"))
    return Replied(form.q.slug, form.path.relative_to(layout.root).as_posix(), started)


def running(folder: Path) -> bool:
    """Whether a run of the discussion in `folder` is going (it holds the lock, or was started a moment ago)."""
    return is_running(folder) or starting(folder)


def question_running(layout: Layout, question: str) -> bool:
    """Whether a run of the question's discussion is going; False for a question that cannot be found."""
    try:
        return running(find_question(layout.content, question).folder)
    except DiscussError:
        return False


def last_output(layout: Layout, question: str) -> str | None:
    """The last line the question's background run wrote (its error, where it stopped with one), scrubbed."""
    words = last_words(find_question(layout.content, question).folder)
    return scrub(words) if words else None


def last_words(folder: Path) -> str | None:
    """The last line a background run wrote, where one ran here: its error, if it stopped with one."""
    try:
        lines = log_path(folder).read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return None
    return lines[-1][:500] if lines else None
