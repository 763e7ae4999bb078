"""The vocabulary of a deliberation as plain dataclasses.

Nothing here reads a file or calls a model: the store turns these into
Markdown and YAML, the protocols decide what to ask next from them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

# A discussion ends `concluded` (a conclusion was written) or `closed` (it ended without one).
FINISHED = ("concluded", "closed")
STATUSES = ("active", *FINISHED)  # a started discussion's; a question without one is "open"
OFFLINE_PREFIX = "offline/"
SCRIPTED_PREFIX = "scripted/"
HUMAN_PREFIX = "human/"  # a person on the panel: answers and ballots through files
CLI_PREFIX = "cli/"  # a coding agent's command-line tool on the panel (cli/claude, cli/codex, cli/gemini)
CLI_TOOLS = ("claude", "codex", "gemini")


@dataclass(frozen=True)
class Panelist:
    id: str
    model: str
    name: str
    persona: str = ""
    api_base: str | None = None
    api_key_env: str | None = None
    # Passed to the provider with every call (temperature, seed, top_p, max_tokens, stop, extra_body...).
    options: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    # How a structured reply's JSON schema is sent: auto (where the model takes it), json_schema,
    # json_object (llama-cpp-python's form, with the schema), or text (never).
    response_format: str = "auto"
    # Dollars per million prompt and completion tokens, the member's own: it prices the calls in
    # place of litellm's table (which may not know the model).
    price: tuple[float, float] | None = None
    allow_unknown_model: bool = False  # `doctor` passes a model litellm does not know
    # Options the discussion gives where the member gives none (a Project Dyson thread's temperature):
    # a model that refuses one is asked without it. Derived each run, never recorded.
    defaults: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    # A coding agent's tool (`cli/...`): the executable to run (else found on PATH) and flags added to ours.
    command: str | None = None
    args: tuple[str, ...] = ()
    # What answered for a `cli/...` member, found before a run: tool, version (its `--version`) and the flags
    # used; recorded with the panel in the index. Empty until then.
    agent: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def simulated(self) -> bool:
        return self.model.startswith((OFFLINE_PREFIX, SCRIPTED_PREFIX))

    @property
    def settings_line(self) -> str:
        """Its provider options and reply format in one line: `temperature=0.7 seed=42 json_schema`."""
        shown = [f"{k}={v}" for k, v in self.options.items() if k != "extra_body"]
        shown += ["extra_body"] if "extra_body" in self.options else []
        return " ".join(shown + ([self.response_format] if self.response_format != "auto" else []))

    @property
    def human(self) -> bool:
        return self.model.startswith(HUMAN_PREFIX)


@dataclass(frozen=True)
class Panel:
    name: str
    members: tuple[Panelist, ...]
    # Writes syntheses; a member or a model of its own. None: the first member.
    chairman: Panelist | None = None
    protocol: str | None = None
    # Scores convergence (critique protocol); a small model is enough. None: see protocols.base.referee.
    judge: Panelist | None = None
    # Writes the critique protocol's answer; best one that did not debate. None: see protocols.base.referee.
    synthesizer: Panelist | None = None

    def member(self, panelist_id: str) -> Panelist:
        for m in self.everyone:
            if m.id == panelist_id:
                return m
        raise KeyError(panelist_id)

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.members]

    @property
    def simulated(self) -> bool:
        return any(m.simulated for m in self.everyone)

    @property
    def chair(self) -> Panelist:
        return self.chairman or self.members[0]

    @property
    def everyone(self) -> list[Panelist]:
        """Members, then the chairman, judge and synthesizer that are not members."""
        out = list(self.members)
        for p in (self.chairman, self.judge, self.synthesizer):
            if p is not None and p.id not in {o.id for o in out}:
                out.append(p)
        return out



@dataclass
class Question:
    path: Path
    slug: str
    title: str
    background: str
    question_id: str = ""
    tags: list[str] = field(default_factory=list)
    panel: str | None = None
    protocol: str | None = None
    task_type: str = "default"  # sets the deliberate protocol's consensus threshold
    stakes: str = ""  # low, medium or high: high stakes make an auto council debate
    phase: str = ""  # a Project Dyson question's phase (`sourcePhase`): its discussion is kept in Dyson's shape
    sources: list[str] = field(default_factory=list)  # files, globs and URLs the panel is grounded in
    question_type: str = ""  # Project Dyson's `questionType`: only `discussion` questions are for a panel
    bom_item: tuple[str, str] = ("", "")  # Project Dyson's `sourceBOMItemId` and `sourceBOMItemSlug`
    category: str = ""  # Project Dyson's `category`, where a question has one (a column of its paper's tables)
    decision: tuple[str, ...] = ()  # the options the question asks the panel to choose from; () for none
    forecast: str = ""  # `yes-no`: each panelist states the probability of yes, each round
    precedent: str | tuple[str, ...] = ()  # `auto`, or the slugs of earlier discussions round 1 reads

    @property
    def folder(self) -> Path:
        """The discussion folder: beside the question file, named by its stem."""
        return self.path.with_suffix("")


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    calls: int = 0
    # Of the prompt tokens, those the provider read from its prompt cache (priced lower by most).
    cached_tokens: int = 0
    # Calls whose counts the provider gave absurd (missing, negative, beyond what was sent): counted here.
    recounted: int = 0
    # Calls nobody priced (a coding agent's tool that reports no cost, with no price of the member's own):
    # their cost is unknown, not nothing.
    unpriced: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cached_tokens += other.cached_tokens
        self.calls += other.calls
        self.recounted += other.recounted
        self.unpriced += other.unpriced
        if other.cost is not None:
            self.cost = round((self.cost or 0.0) + other.cost, 8)


def usage_dict(u: Usage) -> dict[str, Any]:
    """A usage as files record it."""
    out: dict[str, Any] = {"calls": u.calls, "promptTokens": u.prompt_tokens,
                           "completionTokens": u.completion_tokens, "totalTokens": u.total_tokens}
    if u.cost is not None:
        out["cost"] = u.cost
    if u.cached_tokens:
        out["cachedTokens"] = u.cached_tokens
    if u.recounted:
        out["recounted"] = u.recounted
    if u.unpriced:
        out["unpriced"] = u.unpriced
    return out


def paid_usage(u: Usage) -> dict[str, Any]:
    """A usage entry for records that may or may not have cost anything: none where nothing was paid."""
    return {"usage": usage_dict(u)} if u.calls or u.total_tokens else {}


def usage_from(raw: Any) -> Usage:
    """A usage as files record it, read back; anything missing counts as nothing."""
    raw = raw if isinstance(raw, dict) else {}
    cost = raw.get("cost")
    # A file from a pull request is as untrusted as a server: a negative count must not buy budget back.
    return Usage(
        prompt_tokens=_whole(raw.get("promptTokens")),
        completion_tokens=_whole(raw.get("completionTokens")),
        cost=max(float(cost), 0.0) if isinstance(cost, int | float) and not isinstance(cost, bool)
        and cost == cost and cost != float("inf") else None,
        calls=_whole(raw.get("calls")),
        cached_tokens=_whole(raw.get("cachedTokens")),
        recounted=_whole(raw.get("recounted")),
        unpriced=_whole(raw.get("unpriced")),
    )


def _whole(value: Any) -> int:
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError, OverflowError):
        return 0


@dataclass
class Settings:
    """The settings every protocol shares (its own are in `own`); stored with the discussion."""

    max_rounds: int = 5
    vote_attempts: int = 3
    context_tokens: int = 6000
    source_tokens: int = 4000  # a question's sources in every prompt, shared equally among them
    # Hours a run waits for a person's answer or ballot before going on without it (0: always wait).
    person_wait_hours: float = 0.0
    max_response_words: int = 800
    # Longer replies are cut to this many characters (the cut is recorded) before anyone reads them.
    max_reply_chars: int = 24000
    timeout_seconds: float = 120.0
    # A call that timed out is dropped from its round at once unless this asks to try it again.
    retry_timeouts: bool = False
    attempts: int = 3
    retry_base_delay: float = 1.0
    # How alike answers are (lexical or embedding), and what agreement reads as consensus or contested.
    agreement_measure: str = "lexical"
    consensus_at: float = 0.70
    contested_at: float = 0.30
    # Budget of a discussion; 0 means no limit.
    max_calls: int = 0
    max_tokens: int = 0
    max_cost: float = 0.0
    # auto: the part of a prompt that repeats is marked for providers that cache only what is marked
    # (Anthropic's); off: no mark. Recorded only when off.
    prompt_cache: str = "auto"
    # The discussion's protocol's own settings (its `settings_model`), by camelCase name.
    own: dict[str, Any] = field(default_factory=dict)
    # The config as discussion.yaml recorded it, in its order, when the discussion was read: written
    # back in that order, with what it recorded for no setting of today's (an earlier version's
    # settings) kept as it was, so a recorded discussion keeps its bytes. Empty for a new discussion.
    recorded: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


# Settings written into a new discussion's config only when they differ from their defaults, so
# discussions recorded before they existed keep their bytes.
QUIET_SETTINGS = frozenset({"prompt_cache"})
# Fields of `Settings` that are no setting: what the config holds beside the shared settings.
NOT_SHARED = frozenset({"own", "recorded"})


@dataclass
class Reply:
    model_id: str
    model_name: str
    round_number: int
    text: str
    generated: str
    usage: Usage = field(default_factory=Usage)
    latency_ms: int = 0
    role: str = "respondent"
    simulated: bool = False
    # Characters the reply had before it was cut to the cap; None: kept whole.
    cut_from: int | None = None
    finish_reason: str | None = None  # the provider's, where it was not the reply's end ("length")
    # True once this reply is on disk as it is here; a reply never changes after that.
    saved: bool = field(default=False, compare=False, repr=False)

    @property
    def word_count(self) -> int:
        return len(self.text.split())


@dataclass
class Failure:
    phase: str
    model_id: str
    error: str
    attempts: int = 1
    timed_out: bool = False
    usage: Usage = field(default_factory=Usage)
    invalid: bool = False  # every reply came back unusable (not a passing fault): asking again will not help
    lasting: bool = False  # the provider refused the call itself (a wrong key or model): asking again fails too


class RoundRecord(Protocol):
    """What a protocol keeps of a round beyond its replies and notes (the vote protocol's ballot box)."""

    def usages(self) -> list[Usage]: ...

    def settle(self, pos: Callable[[str], tuple[int, str]]) -> None: ...


@dataclass
class Round:
    number: int
    seed: int
    replies: dict[str, Reply] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    agreement: float | None = None
    completed_at: str | None = None
    # The stage this round is (protocols of stages), and the protocol's structured results.
    stage: str | None = None
    notes: dict = field(default_factory=dict)
    # Written by another tool (Project Dyson's): kept on disk exactly as it is, never rewritten.
    imported: bool = False
    record: RoundRecord | None = None  # the protocol's own record of the round, if it keeps one

    @property
    def complete(self) -> bool:
        return self.completed_at is not None

    def failed(self, phase: str) -> set[str]:
        return {f.model_id for f in self.failures if f.phase == phase}

    @property
    def usage(self) -> Usage:
        total = Usage()
        parts = [*(r.usage for r in self.replies.values()), *(f.usage for f in self.failures),
                 *(self.record.usages() if self.record is not None else [])]
        for part in parts:
            total.add(part)
        return total

    def settle(self, panel_order: list[str]) -> None:
        """Put every record in the order a reload gives it, never the order calls finished in.

        Replies by key (as their files sort), the rest by the panel's order (as
        the round's files and discussion.yaml list them): a resumed run and an
        uninterrupted one then show the same prompts and write the same files.
        """
        rank = {pid: i for i, pid in enumerate(panel_order)}

        def pos(pid: str) -> tuple[int, str]:
            return rank.get(pid, len(rank)), pid

        self.replies = dict(sorted(self.replies.items()))
        self.failures.sort(key=lambda f: (f.phase, pos(f.model_id)))
        if self.record is not None:
            self.record.settle(pos)


@dataclass(frozen=True)
class Judgement:
    """One panelist's judgement of one answer, as the figures across protocols count it."""

    judge: str
    target: str
    points: int  # on the protocol's scale: 2 for approval, 0 for rejection
    approves: bool
    invented: bool = False  # filled in by a recording tool, never cast: shown, not counted


@dataclass(frozen=True)
class Score:
    """What the answers of a round scored, where the protocol scores them."""

    target: str
    weighted: float
    approvals: int
    rejections: int


@dataclass(frozen=True)
class RoundFigures:
    """What a round decided, as reports, the leaderboard and the site show it; empty for a protocol without."""

    winner: str | None = None
    winner_score: float | None = None
    tie_break: str | None = None
    scores: tuple[Score, ...] = ()
    judgements: tuple[Judgement, ...] = ()
    # Each member's probability that the answer is yes, where the question asks for a forecast (`forecast:`).
    forecasts: tuple[tuple[str, float], ...] = ()

    def score_of(self, target: str) -> Score | None:
        return next((s for s in self.scores if s.target == target), None)


@dataclass
class MinorityPosition:
    position: str
    held_by: str = ""
    reasoning: str = ""
    round: int | None = None


@dataclass
class Conclusion:
    summary: str
    key_points: list[str] = field(default_factory=list)
    unresolved_questions: list[str] = field(default_factory=list)
    recommended_actions: list[str] = field(default_factory=list)
    minority_positions: list[MinorityPosition] = field(default_factory=list)
    # What would make the panel look again, and how sure it is (the critique protocol's synthesis).
    triggers: list[str] = field(default_factory=list)
    confidence: str = ""
    decision: str = ""  # the option the conclusion chose, where the question asks for a decision
    generated_by: str = ""
    generated: str = ""
    usage: Usage = field(default_factory=Usage)
    simulated: bool = False
    # Text of a conclusion written by another tool, kept as it was.
    body: str | None = None


@dataclass
class Foreign:
    """A thread another tool wrote, kept in that tool's shape (a Project Dyson thread): that format's fields."""

    format: str  # the format's name, as the store's formats know it
    index: dict = field(default_factory=dict)  # the thread's index as read, written back in its shape
    # Round folders its index does not list (a round the tool began and left): never read as rounds, as the
    # tool's own analysis never reads them; reported where they are.
    orphan_rounds: list[int] = field(default_factory=list)


@dataclass
class Discussion:
    question_id: str
    question_slug: str
    question_title: str
    panel: Panel
    settings: Settings
    protocol: str = ""  # a name in the protocols' registry
    status: str = "active"
    started_at: str = ""
    rounds: list[Round] = field(default_factory=list)
    termination_reason: str | None = None
    concluded_at: str | None = None
    conclusion: Conclusion | None = None
    # Which limit stopped the discussion, with the figures, when one did.
    budget_stop: dict | None = None
    # The people whose forms the last run stopped at (ids); emptied when a run starts.
    waiting_for: list[str] = field(default_factory=list)
    # Deliberate protocol: the persona each member takes, fixed when the discussion starts.
    personas: dict[str, dict] = field(default_factory=dict)
    foreign: Foreign | None = None  # a thread in another tool's format, with its fields; None for ours
    # The question's sources as the discussion started with them: label, path or url, sha256.
    sources: list[dict] = field(default_factory=list)
    # One of repeated, independent runs of the question (`discuss trials`): its number, from 1.
    trial: int | None = None
    # Calls made for the discussion outside its rounds (the bias audit's re-asks, their files beside it):
    # not part of its usage, but of what its budget counts.
    side_usage: Usage = field(default_factory=Usage)
    # The record's chain (`store/chain.py`): a digest per finished round and of the conclusion. None for a
    # discussion recorded before the chain existed, which is never given one.
    record: dict | None = None
    # For a discussion of an eval's item: the final answer it gave as the grader reads it, with the rule, the
    # file read and each round's answers (`archive/finalanswer.py`); None elsewhere.
    answer: dict | None = None

    @property
    def seed_key(self) -> str:
        """What every draw of the discussion is seeded by: the question, and the trial where it is one."""
        return self.question_slug if self.trial is None else f"{self.question_slug}/trial-{self.trial}"

    @property
    def usage(self) -> Usage:
        """Summed from every call's record, so a crash between two writes cannot skew it."""
        total = Usage()
        for r in self.rounds:
            total.add(r.usage)
        if self.conclusion:
            total.add(self.conclusion.usage)
        return total

    @property
    def spent(self) -> Usage:
        """Everything paid for the discussion, what its budget counts: its usage and its side calls."""
        total = Usage()
        total.add(self.usage)
        total.add(self.side_usage)
        return total

    @property
    def current_round(self) -> int:
        return len(self.rounds)

    @property
    def legacy(self) -> bool:
        """Kept in another tool's format: its rounds stay as that tool wrote them, ours are written in it too."""
        return self.foreign is not None

    @property
    def concluded(self) -> bool:
        """True once the discussion has ended, with a conclusion or (status `closed`) without one."""
        return self.status in FINISHED


def leader_of(winners: list[str | None]) -> str | None:
    """The panelist with most round wins, from the rounds' winners in order; the latest among equals."""
    wins: dict[str, int] = {}
    for w in winners:
        if w:
            wins[w] = wins.get(w, 0) + 1
    if not wins:
        return None
    top = max(wins.values())
    return next(w for w in reversed(winners) if w and wins[w] == top)
