"""What a protocol is, and what every protocol shares.

`Protocol` says what a protocol provides: how its rounds start, step and
end, its conclusion, its readiness checks, what `discuss show` prints and
which site partial renders its rounds. The rest of the program asks a
protocol through this interface and never tests a protocol's name. This
module also holds the plan of a run, the steps a protocol hands the runner,
and the skeleton that decides between a round, a new round and the
conclusion.
"""

from __future__ import annotations

import hashlib
import string
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from ..calls import CallResult, CallSpec
from ..domain import Discussion, Failure, Panelist, Question, Reply, Round
from ..errors import InputError, RunError
from ..rules.agreement import measure
from ..rules.convergence import in_words
from ..text.jsonreply import ReplyError
from .parts import Figures, Presentation, RoundStorage

if TYPE_CHECKING:
    from ..rules.convergence import Convergence
    from ..schema.settings import ProtocolSettings
    from ..text.prompting import Prompts


@dataclass
class Plan:
    """What the user asked of this run."""

    auto: bool = False
    rounds: int | None = None  # new rounds to run; None: one, or all with auto
    conclude: bool = False


@dataclass
class Step:
    """One thing to do: calls to make at once, then an optional closing action."""

    label: str
    specs: list[CallSpec] = field(default_factory=list)
    apply: Callable[[CallResult], None] | None = None
    # Runs after the calls; may return a line to report.
    after: Callable[[], str | None] | None = None
    final: bool = False  # the conclusion: no room needs keeping after it


def _no_personas(shipped: Path | None = None) -> dict[str, dict[str, Any]]:
    return {}


@dataclass
class Setup:
    """What a protocol may read of the project before its first call; the store reads it for the protocol."""

    # The persona library, by id: the personas the protocol ships in the folder `shipped` names, then the
    # project's own (`discussions/personas/`), which replace one of the same id.
    personas: Callable[[Path | None], dict[str, dict[str, Any]]] = _no_personas


@dataclass
class Context:
    q: Question
    prompts: Prompts
    clock: Callable[[], str]
    plan: Plan
    rounds_started: int = 0

    def may_start_round(self) -> bool:
        if self.plan.auto:
            return True
        budget = self.plan.rounds if self.plan.rounds is not None else (0 if self.plan.conclude else 1)
        return self.rounds_started < budget


class Protocol(ABC):
    """One way of deliberating: its rules. Subclasses live in `protocols/<name>/`, registered by name.

    A plugin writes the rules below; how its rounds are stored, shown and
    counted are optional parts with defaults (`parts.py`), each read only by
    the layer that needs it.
    """

    name: str = ""
    # One line for `discuss protocols` and the CLI's help.
    summary: ClassVar[str] = ""
    # Settings of its own beyond the shared ones: a `schema.settings.ProtocolSettings` subclass.
    # They are read from panels.yaml like any setting and recorded only in its discussions.
    settings_model: ClassVar[type[ProtocolSettings] | None] = None
    # True: one `discuss run` runs every stage (a fixed sequence, not open-ended rounds).
    runs_to_end: ClassVar[bool] = False
    # True where its prompts cut texts by tokens: the run loads the tokenizer while its first requests are out.
    counts_tokens: ClassVar[bool] = False
    # Its optional parts: the files of its rounds (store/), how it is shown (show, site, export), its figures.
    storage: ClassVar[RoundStorage] = RoundStorage()
    presentation: ClassVar[Presentation] = Presentation()
    figures: ClassVar[Figures] = Figures()

    @abstractmethod
    def new_round(self, d: Discussion) -> Round: ...

    @abstractmethod
    def round_step(self, d: Discussion, rnd: Round, ctx: Context) -> Step: ...

    def finished_rounds(self, d: Discussion) -> bool:
        """True when no further round belongs to the protocol (stopping rules decide otherwise)."""
        return False

    @abstractmethod
    def conclusion_spec(self, d: Discussion, ctx: Context) -> CallSpec | None:
        """The call that writes the conclusion; None when the protocol ends without one."""

    def prepare(self, d: Discussion, setup: Setup) -> None:
        """Fix what the discussion needs before its first call (personas, say) from what the project has."""

    def check_ready(self, d: Discussion) -> None:
        """Raise InputError for anything that would fail after money was spent."""

    def most_rounds(self, d: Discussion) -> int:
        """The most rounds of deliberation this discussion may take under its settings."""
        return d.settings.max_rounds

    def result_of(self, d: Discussion) -> str | None:
        """The panelist whose answer is the result, for a protocol that writes no conclusion."""
        return None

def make_labels(count: int) -> list[str]:
    """A, B, C...: how answers are named to those who judge them."""
    if count > len(string.ascii_uppercase):
        raise ValueError("at most 26 replies can be labelled")
    return list(string.ascii_uppercase[:count])


def require_measure(d: Discussion) -> None:
    """The agreement measure of the settings must be usable before anything is paid for."""
    try:
        measure(d.settings.agreement_measure)
    except ValueError as exc:
        raise InputError(f"agreementMeasure: {exc}") from None


def question_turn(d: Discussion) -> int:
    """A number fixed by the question, so duties that rotate fall to different members across an archive."""
    return int(hashlib.sha256(d.seed_key.encode()).hexdigest()[:8], 16)


def referee(d: Discussion, named: Panelist | None, turn: int, avoid: tuple[str, ...] = ()) -> Panelist:
    """Who judges or writes above the debate.

    The one the panel names; else a chairman, judge or synthesizer who is no
    member; else the members take turns (`turn`), those in `avoid` last.
    """
    if named is not None:
        return named
    panel = d.panel
    for p in (panel.chairman, panel.judge, panel.synthesizer):
        if p is not None and p.id not in panel.ids:
            return p
    members = [m for m in panel.members if m.id not in avoid] or list(panel.members)
    return members[turn % len(members)]


def dissent_context(p: Panelist) -> dict[str, str]:
    """What a stand-in needs to voice the dissent of `p` in a conclusion."""
    return {"minority": p.name, "minority_model": p.model}


def convergence_line(check: Convergence | None) -> list[str]:
    return [f"  {check['test']} test: {'passed' if check['converged'] else 'not passed'} ({in_words(check)})"] \
        if check else []


def messages(p: Panelist, prompts: Prompts, user: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": prompts.render("system", panelist=p)},
            {"role": "user", "content": user}]


def open_round(d: Discussion) -> Round | None:
    return d.rounds[-1] if d.rounds and not d.rounds[-1].complete else None


def record_failure(rnd: Round, phase: str, result: CallResult, who: str | None = None) -> None:
    """A call that failed, as the round keeps it: by phase and by who (default: the panelist)."""
    rnd.failures.append(Failure(phase, who or result.spec.panelist.id, result.error or "", result.attempts,
                                result.timed_out, result.usage, result.invalid, result.lasting))


def record_reply(rnd: Round, p: Panelist, result: CallResult, key: str, role: str, text: str, now: str) -> None:
    """A finished call's text as the round keeps it, with its usage and any cut the gateway made."""
    rnd.replies[key] = Reply(p.id, p.name, rnd.number, text, now, result.usage, result.latency_ms,
                             role=role, simulated=p.simulated, cut_from=result.cut_from,
                             finish_reason=result.finish_reason)


class Unusable(RunError):
    """Every participant of a phase replied, and no reply could be used: another run would fare no better."""


def require_replies(rnd: Round, phase: Phase[Any] | None = None) -> None:
    """Stop the run when nobody answered (the round, or one phase of it): the next run asks again."""
    if phase.answered() if phase is not None else rnd.replies:
        return
    failures = [f for f in rnd.failures if phase is None or f.phase == phase.name]
    if failures and all(f.invalid for f in failures):
        raise Unusable(f"round {rnd.number}: no participant's reply could be used, after every re-ask")
    said = "; ".join(sorted({f"{f.model_id}: {f.error}" for f in failures})[:3])
    if failures and all(f.lasting for f in failures):
        raise RunError(f"round {rnd.number}: every participant failed to answer, and running again will not help "
                       f"until what the providers said is mended ({said})")
    raise RunError(f"round {rnd.number}: every participant failed to answer" + (f" ({said})" if said else "")
                   + "; run again to retry")


T = TypeVar("T")


def _member_id(p: Any) -> str:
    return str(p.id)


@dataclass
class Phase(Generic[T]):
    """One phase of a round: the calls it still owes, what a failed one leaves, when the run stops.

    The resume rule lives here so that no protocol writes it. A call that
    failed is not asked again while others of its phase answered: the phase
    goes on without it. When none answered, the run stops with an error and
    the next run asks everyone again. A finished call is never asked again.
    `items` are whatever the phase asks about (members, parts); `key` names
    each one's reply and failure in the round.
    """

    rnd: Round
    name: str
    items: list[T]
    key: Callable[[T], str] = _member_id

    def answered(self) -> bool:
        return any(self.key(item) in self.rnd.replies for item in self.items)

    def pending(self) -> list[T]:
        failed = self.rnd.failed(self.name) if self.answered() else set()
        return [item for item in self.items if self.key(item) not in self.rnd.replies and self.key(item) not in failed]

    def step(self, label: str, spec: Callable[[T], CallSpec], apply: Callable[[CallResult], None]) -> Step | None:
        """The calls still owed, as a step; `apply` sees only calls that succeeded. None when none is owed."""
        pending = self.pending()
        if not pending:
            return None

        def fold(result: CallResult) -> None:
            if result.ok:
                apply(result)
            else:
                record_failure(self.rnd, self.name, result, who=result.spec.key)

        return Step(label, [spec(item) for item in pending], fold, lambda: require_replies(self.rnd, self))


def next_step(protocol: Protocol, d: Discussion, ctx: Context) -> Step | None:
    if d.concluded:
        return None
    rnd = open_round(d)
    if rnd is not None and d.termination_reason is None:
        return protocol.round_step(d, rnd, ctx)
    if d.termination_reason is None:
        if protocol.finished_rounds(d):
            d.termination_reason = "completed"
        elif ctx.may_start_round():
            def start() -> None:
                protocol.new_round(d)
                ctx.rounds_started += 1
            return Step("", after=start)
        elif ctx.plan.conclude:
            return Step("", after=lambda: setattr(d, "termination_reason", "forced"))
        else:
            return None
    spec = protocol.conclusion_spec(d, ctx)
    if spec is None:
        return Step("", after=lambda: finish(d, ctx.clock(), protocol.result_of(d) is not None))
    return conclusion_step(protocol, d, spec, ctx)


def finish(d: Discussion, now: str, result: bool = False) -> None:
    """The discussion has ended: `concluded` with a conclusion or a result, else `closed`."""
    d.status, d.concluded_at = ("concluded" if d.conclusion or result else "closed"), now


def asking_decision(spec: CallSpec, options: tuple[str, ...]) -> CallSpec:
    """The conclusion's call, where the question asks for a decision: told to give one of `options` as
    `decision`, in the schema too, and a reply that names another refused (asked again, as any bad reply)."""
    import dataclasses


    if not options:
        return spec
    said = ", ".join(f'"{o}"' for o in options)
    ask = (f"\n\nThe question asks for a decision: also give \"decision\" in your JSON, exactly one of {said}, "
           "the option your conclusion supports.")
    messages = [*spec.messages[:-1], {**spec.messages[-1], "content": str(spec.messages[-1]["content"]) + ask}]
    schema = spec.schema
    if schema and isinstance(schema.get("properties"), dict):
        schema = {**schema, "properties": {**schema["properties"], "decision": {"type": "string", "enum": list(options)}}}
    check = spec.validate

    def validate(text: str) -> Any:
        c = check(text) if check is not None else None
        chosen = getattr(c, "decision", "")
        if c is not None and chosen and chosen not in options:
            match = next((o for o in options if o.casefold() == chosen.strip().casefold()), None)
            if match is None:
                raise ReplyError(f"'decision' must be one of {said}, not {chosen[:40]!r}")
            c.decision = match
        return c

    return dataclasses.replace(spec, messages=messages, schema=schema, validate=validate)


def conclusion_step(protocol: Protocol, d: Discussion, spec: CallSpec, ctx: Context) -> Step:
    failed: list[CallResult] = []
    spec = asking_decision(spec, ctx.q.decision)

    def apply(result: CallResult) -> None:
        if not result.ok:
            failed.append(result)
            return
        c = result.value
        c.generated_by, c.generated = result.spec.panelist.id, ctx.clock()
        c.usage, c.simulated = result.usage, result.spec.panelist.simulated
        d.conclusion = c
        finish(d, c.generated)

    def after() -> None:
        if not failed:
            return
        result = failed[0]
        if d.rounds:
            record_failure(d.rounds[-1], "conclude", result)  # what it cost is counted, and why it failed shown
        if result.invalid:
            # Asked again and again and never usable: no conclusion is written in the panel's name.
            finish(d, ctx.clock())
            return
        raise RunError(f"the conclusion by {spec.panelist.id} failed: {result.error}; run again to retry")

    return Step(f"conclusion ({d.termination_reason})", [spec], apply, after, final=True)
