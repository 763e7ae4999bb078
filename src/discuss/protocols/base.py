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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from ..calls import CallResult, CallSpec
from ..domain import Discussion, Failure, Panelist, Question, Reply, Round, RoundFigures
from ..errors import InputError, RunError

if TYPE_CHECKING:
    from ..rules.convergence import Convergence
    from ..schema.settings import ProtocolSettings
    from ..text.prompting import Prompts
    from .threads import ThreadFormat


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


@dataclass
class Setup:
    """What a protocol may read of the project before its first call; the store reads it for the protocol."""

    personas: Callable[[], dict[str, dict[str, Any]]] = dict  # the persona library, by id


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
    """One way of deliberating. Subclasses live in `protocols/<name>/`, registered by name."""

    name: str = ""
    # One line for `discuss protocols` and the CLI's help.
    summary: ClassVar[str] = ""
    # True: one `discuss run` runs every stage (a fixed sequence, not open-ended rounds).
    runs_to_end: ClassVar[bool] = False
    # The heading of the result on the site.
    conclusion_title: ClassVar[str] = "Conclusion"
    # True where rounds have winners (win rates and approval mean something).
    has_winners: ClassVar[bool] = False
    # True where its prompts cut texts by tokens: the run loads the tokenizer while its first requests are out.
    counts_tokens: ClassVar[bool] = False
    index_notes: ClassVar[tuple[str, ...]] = ()  # round notes kept in discussion.yaml, not a round.yaml
    # The site partial, "package:file": a template with macros `summary(view)` (above the rounds)
    # and `round(r, view)` (inside each round) for what only this protocol records.
    partial: ClassVar[str] = "discuss.protocols:site.html.j2"
    # The TypedDict of what its rounds record in round.yaml; checked when a discussion is loaded.
    notes_type: ClassVar[Any] = None
    # Settings of its own beyond the shared ones: a `schema.settings.ProtocolSettings` subclass.
    # They are read from panels.yaml like any setting and recorded only in its discussions.
    settings_model: ClassVar[type[ProtocolSettings] | None] = None

    def own_settings(self, raw: dict[str, Any], where: str) -> dict[str, Any]:
        """Its own settings among `raw` (camelCase), checked and with defaults, in the order it declares them."""
        if self.settings_model is None:
            return {}
        from ..schema import validated

        mine = {k: v for k, v in raw.items() if k in self.settings_model.names()}
        return validated(self.settings_model, mine, where, noun="setting").model_dump(by_alias=True)

    def refuse_strangers(self, given: Iterable[str]) -> None:
        """InputError naming each of `given` that is no setting of this protocol's own (`--set`, an ask's)."""
        from ..errors import InputError
        from ..schema.settings import refuse_shared

        refuse_shared(given)
        known = self.settings_names()
        if strange := sorted(set(given) - known):
            from ..text.naming import did_you_mean

            hint = did_you_mean(strange[0], sorted(known))
            mine = f"its settings: {', '.join(sorted(known))}" if known else "it has no settings of its own"
            raise InputError(f"{', '.join(strange)}: not a setting of the {self.name} protocol{hint} ({mine}; "
                             "shared ones such as maxRounds have options of their own)")

    def settings_names(self) -> set[str]:
        """The names of its own settings (camelCase), as `--set` takes them."""
        return set(self.settings_model.names()) if self.settings_model is not None else set()

    def options(self, d: Discussion) -> Any:
        """The discussion's own settings of this protocol, typed (an instance of `settings_model`)."""
        if self.settings_model is None:
            raise TypeError(f"the {self.name} protocol declares no settings of its own")
        return self.settings_model.of(d.settings)

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

    def result_of(self, d: Discussion) -> str | None:
        """The panelist whose answer is the result, for a protocol that writes no conclusion."""
        return None

    def why_author(self, d: Discussion) -> str:
        """Why the conclusion's author wrote it, in words (`the winner of round 3`); empty if it goes without saying."""
        return ""

    def matches(self, d: Discussion) -> list[tuple[str, str, str | None]] | None:
        """Every pairing played (a, b, the winner or None while undecided); None for a protocol without."""
        return None

    def check_ready(self, d: Discussion) -> None:
        """Raise InputError for anything that would fail after money was spent."""

    def most_rounds(self, d: Discussion) -> int:
        """The most rounds of deliberation this discussion may take under its settings."""
        return d.settings.max_rounds

    def round_index(self, r: Round, failures: list[dict[str, Any]]) -> dict[str, Any]:
        """What discussion.yaml records of a round; `failures` as the store writes them."""
        return {"roundNumber": r.number, "stage": r.stage, "agreement": r.agreement,
                "failures": failures, "completedAt": r.completed_at}

    def show_round(self, r: Round, names: dict[str, str]) -> list[str]:
        """The lines `discuss show` prints for a round, after the header."""
        return [f"- {names.get(reply.model_id, pid)} ({reply.role}): {reply.word_count} words"
                for pid, reply in r.replies.items()]

    def show_reply(self, r: Round, key: str, names: dict[str, str]) -> list[str]:
        """Lines `discuss show --full` prints under a reply (how it was judged, say)."""
        return []

    def audit(self, d: Discussion) -> list[str]:
        """Lines on what mechanics rather than the panel decided (list-order ties, invented ballots)."""
        return []

    def own_from_flags(self, flags: dict[str, Any]) -> dict[str, Any]:
        """Its own settings as command-line options name them (`run --method`); one it does not take is refused."""
        if given := sorted(k for k, v in flags.items() if v is not None):
            raise InputError(f"--{given[0].replace('_', '-')} is not an option of the {self.name} protocol")
        return {}

    def bias_experiment(self) -> Any | None:
        """What re-asks its recorded judgements under new orders (`discuss audit`), if it has judgements."""
        return None

    def thread_format(self) -> ThreadFormat | None:
        """The format of another tool's threads this protocol reads and continues in their shape, if any."""
        return None

    def headline(self, d: Discussion, stats: dict[str, Any], agreement: str | None) -> str:
        """The figure `discuss show` puts under the panel."""
        return f"agreement: {agreement or '-'}"

    # ---- its own record: figures for reports, and the files it keeps ----------------

    def figures(self, r: Round) -> RoundFigures:
        """What the round decided (winner, scores, judgements), for stats, the leaderboard and the site."""
        return RoundFigures()

    def export_round(self, r: Round) -> dict[str, Any]:
        """What `show --json` and discussions.json add to a round for this protocol."""
        return {}

    def table_discussion(self, d: Discussion) -> dict[str, Any]:
        """Its columns of `discussions.csv` (the vote protocol's counts of votes)."""
        return {}

    def table_round(self, r: Round) -> dict[str, Any]:
        """Its columns of `rounds.csv` for round `r` (the vote protocol's are the Dyson paper's)."""
        return {}

    def table_votes(self, r: Round) -> list[dict[str, Any]]:
        """The rows of `votes.csv` for round `r`: one per judgement, where the protocol has them."""
        return []

    def person_forms(self) -> dict[str, Any]:
        """The forms (`calls.PersonForm`) people fill in for its structured tasks, by task name."""
        return {}

    def rescore(self, d: Discussion, setting: str, values: list[str]) -> tuple[list[Any], list[str]] | None:
        """The outcome re-computed under other values of `setting` (empty: the one it re-scores by default),
        as given (data, lines); None if it cannot.

        InputError for values the setting cannot take."""
        return None

    def bias(self, discussions: list[Discussion]) -> Any | None:
        """Where outcomes may lean on something other than merit (a report with `lines()`), if it can tell."""
        return None

    # Files of its own in each round folder besides the replies and round.yaml.
    round_files: ClassVar[tuple[str, ...]] = ()

    def write_round_file(self, r: Round, name: str, panel_order: list[str]) -> dict[str, Any] | None:
        """The content of `name` (one of `round_files`) for round `r`; None when there is none yet."""
        return None

    def read_round_file(self, r: Round, name: str, data: dict[str, Any]) -> None:
        """Fold `name`, as read back, into round `r`."""

    def read_index(self, r: Round, raw: dict[str, Any]) -> None:
        """Fold what discussion.yaml records of round `r` (see `round_index`) into it."""

    def check_round(self, r: Round, folder: Path) -> str | None:
        """What is missing of round `r` on disk in `folder`, where its files say it should be there."""
        return None


def make_labels(count: int) -> list[str]:
    """A, B, C...: how answers are named to those who judge them."""
    if count > len(string.ascii_uppercase):
        raise ValueError("at most 26 replies can be labelled")
    return list(string.ascii_uppercase[:count])


def require_measure(d: Discussion) -> None:
    """The agreement measure of the settings must be usable before anything is paid for."""
    from ..rules.agreement import measure

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
    from ..rules.convergence import in_words

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
                                result.timed_out, result.usage, result.invalid))


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
    raise RunError(f"round {rnd.number}: every participant failed to answer; run again to retry")


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


def conclusion_step(protocol: Protocol, d: Discussion, spec: CallSpec, ctx: Context) -> Step:
    failed: list[CallResult] = []

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
