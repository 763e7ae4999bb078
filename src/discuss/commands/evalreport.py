"""What `discuss eval` gives, typed: its report, where a run under way has got, a run started apart, and what an
eval's answers are bound to.

The report's figures are the archive's (`archive/evaluation.py`), which
report.yaml keeps as they are and `verify` recomputes; here each has its
fields, in the order and under the keys of that file, so `to_json()` gives
the report as report.yaml holds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .evalestimate import EstimateTotal
from .results import JSON, OPTIONAL, Result


@dataclass
class Member(Result):
    """A panel member as an eval records it: its id, model and options, and its persona where it has one."""

    id: str
    model: str
    options: dict[str, JSON]
    persona: str | None = field(default=None, metadata=OPTIONAL)


@dataclass
class PanelBound(Result):
    name: str
    members: list[Member]
    settings_digest: str  # of the settings its members share (timeouts, caps, retries)


@dataclass
class Binding(Result):
    """What every answer of an eval's folder depends on, as eval.yaml records it (`store/evalfolder.py`): a run
    that differs in any of these is refused."""

    set_name: str = field(metadata={"key": "set"})
    set_digest: str
    seed: int
    rule: str
    panel: PanelBound
    arms: list[str]
    items: int | None  # None: all of the set
    discuss_version: str


@dataclass
class Interval(Result):
    """A share with its 95% Wilson interval; all None where nothing was answered."""

    estimate: float | None
    low: float | None
    high: float | None


@dataclass
class RoundAccuracy(Result):
    """An arm's accuracy had its items stopped at this round (an item that stopped before keeps its last)."""

    round: int
    estimate: float | None
    low: float | None
    high: float | None


@dataclass
class ArmFigures(Result):
    """One arm over the items it answered: its accuracy, what could not be graded, and what it spent."""

    accuracy: Interval
    items: int
    correct: int
    ungradable: int
    ungradable_share: float | None
    calls_per_item: float | None
    tokens_per_item: float | None
    cost_per_item: float | None
    by_round: list[RoundAccuracy]
    compute_ratio: float | None  # its tokens per item over the protocol arms' median
    equal_compute: bool | None = field(default=None, metadata=OPTIONAL)  # self-consistency's only


@dataclass
class Paired(Result):
    """One arm against another over the items both answered: the difference, its interval, McNemar's test."""

    difference: float | None
    low: float | None
    high: float | None
    a_wins: int
    b_wins: int
    p_value: float | None
    differs: bool
    detectable: float | None  # the smallest difference these items detect with 80% power
    equal_compute: bool


@dataclass
class Flips(Result):
    """A panelist's answers changed from one round to the next, by the labels and toward the leading answer."""

    pairs: int
    flips: int
    right_to_wrong: int
    wrong_to_right: int
    toward_winner: int
    flip_rate: float | None
    toward_winner_share: float | None


@dataclass
class Diversity(Result):
    providers: list[str]
    families: list[str]
    one_family: bool


@dataclass
class Independence(Result):
    """How many independent voters the members are worth, from how often they err together."""

    members: int
    error_correlation: float | None
    effective_voters: float | None
    arms: list[str] = field(metadata={"key": "from"})  # whose answers the errors were read from


@dataclass
class Grader(Result):
    rule: str
    module: str


@dataclass
class Provenance(Result):
    """What a reader needs to cite the report: the panel, the version and date, the command, the set's digest,
    the seed, the grader and the statistics by name."""

    panel: str | None
    members: list[Member]
    settings_digest: str | None
    discuss_version: str | None
    date: str
    command: str
    set_digest: str | None
    seed: int | None
    grader: Grader
    statistics: dict[str, str]


@dataclass
class EvalReport(Result):
    """An eval's figures (`eval --json`, report.yaml): every arm, the paired differences, conformity, the
    panel's diversity and independence, and the provenance; `not_started`, items a budget held back."""

    set_name: str = field(metadata={"key": "set"})
    source: str
    licence: str
    items: int
    seed: int
    rule: str
    arms: dict[str, ArmFigures]
    paired: dict[str, Paired]
    conformity: dict[str, dict[str, Flips]]
    diversity: Diversity
    independence: Independence
    provenance: Provenance
    not_started: int | None = field(default=None, metadata=OPTIONAL)


@dataclass
class Count(Result):
    """Items done of those to do (None: not known yet)."""

    done: int
    total: int | None


@dataclass
class Calls(Result):
    """Calls made of those the estimate allowed (None where none was made first)."""

    done: int
    planned: int | None


@dataclass
class EvalProgress(Result):
    """How far a run of the eval under way has got (progress.yaml)."""

    running: bool  # True
    folder: str
    state: str  # starting, running, finished or stopped
    items: Count
    calls: Calls
    tokens: int
    not_started: int


@dataclass
class EvalStarted(Result):
    """An eval started as a process of its own, with its estimate and how far it has got."""

    started: bool  # False where a run of it was going already
    running: bool
    folder: str
    estimate: EstimateTotal
    state: str
    items: Count
    calls: Calls
    tokens: int
    not_started: int
