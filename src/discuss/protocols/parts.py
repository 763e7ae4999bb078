"""The optional parts of a protocol, each read only by the layer that needs it.

A protocol's rules (`base.Protocol`) are what a plugin must write. What
else it may say comes in three parts with defaults, so a minimal protocol
writes none of them:

- `RoundStorage`: the files of its own in a round folder and what the
  index keeps of a round; read by `store/` only.
- `Presentation`: how `show`, the site and `export` present it, and the
  forms and options people use for it.
- `Figures`: what its rounds decided, for the archive's statistics,
  tables, leaderboard, bias report and `verify`'s recomputation.

A protocol names its parts as class attributes holding instances
(`storage = VoteStorage()`, or `RoundStorage(MyNotes)` where typed notes are
all it keeps); the parts hold no state of a discussion.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from ..domain import Discussion, Question, Round, RoundFigures
from ..errors import InputError


class RoundStorage:
    """How a protocol's rounds are kept beyond the core's files (its replies, `round.yaml`, the index)."""

    # Files of its own in each round folder besides the replies and round.yaml.
    round_files: tuple[str, ...] = ()
    # Round notes kept in discussion.yaml, not a round.yaml.
    index_notes: tuple[str, ...] = ()
    # The TypedDict of what its rounds record in round.yaml; checked when a discussion is loaded.
    notes_type: Any = None

    def __init__(self, notes_type: Any = None) -> None:
        """`RoundStorage(notes_type=MyNotes)`: a protocol whose rounds keep only typed notes needs no subclass."""
        if notes_type is not None:
            self.notes_type = notes_type

    def write_round_file(self, r: Round, name: str, panel_order: list[str]) -> dict[str, Any] | None:
        """The content of `name` (one of `round_files`) for round `r`; None when there is none yet."""
        return None

    def read_round_file(self, r: Round, name: str, data: dict[str, Any]) -> None:
        """Fold `name`, as read back, into round `r`."""

    def round_index(self, r: Round, failures: list[dict[str, Any]]) -> dict[str, Any]:
        """What discussion.yaml records of a round; `failures` as the store writes them."""
        return {"roundNumber": r.number, "stage": r.stage, "agreement": r.agreement,
                "failures": failures, "completedAt": r.completed_at}

    def read_index(self, r: Round, raw: dict[str, Any]) -> None:
        """Fold what discussion.yaml records of round `r` (see `round_index`) into it."""

    def check_round(self, r: Round, folder: Path) -> str | None:
        """What is missing of round `r` on disk in `folder`, where its files say it should be there."""
        return None


class Presentation:
    """How `show`, the site page and `export` present the protocol, and what people fill in for it."""

    # The heading of the result on the site.
    conclusion_title: ClassVar[str] = "Conclusion"
    # The site partial, "package:file": a template with macros `summary(view)` (above the rounds) and
    # `round(r, view)` (inside each round) for what only this protocol records. None: `site.html.j2` in the
    # protocol's own package where it has one (as its prompts are found), else the plain one.
    partial: ClassVar[str | None] = None

    def headline(self, d: Discussion, stats: dict[str, Any], agreement: str | None) -> str:
        """The figure `discuss show` puts under the panel."""
        return f"agreement: {agreement or '-'}"

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

    def why_author(self, d: Discussion) -> str:
        """Why the conclusion's author wrote it, in words (`the winner of round 3`); empty if it goes without saying."""
        return ""

    def export_round(self, r: Round) -> dict[str, Any]:
        """What `show --json` and discussions.json add to a round for this protocol."""
        return {}

    def person_forms(self) -> dict[str, Any]:
        """The forms (`calls.PersonForm`) people fill in for its structured tasks, by task name."""
        return {}

    def own_from_flags(self, name: str, flags: dict[str, Any]) -> dict[str, Any]:
        """Its own settings as command-line options name them (`run --method`); one it does not take is refused."""
        if given := sorted(k for k, v in flags.items() if v is not None):
            raise InputError(f"--{given[0].replace('_', '-')} is not an option of the {name} protocol")
        return {}


class Figures:
    """What a protocol's rounds decided, for the archive: statistics, tables, standings, bias, rescoring."""

    # True where rounds have winners (win rates and approval mean something).
    has_winners: ClassVar[bool] = False

    def of_round(self, r: Round) -> RoundFigures:
        """What the round decided (winner, scores, judgements), for stats, the leaderboard and the site."""
        return RoundFigures()

    def matches(self, d: Discussion) -> list[tuple[str, str, str | None]] | None:
        """Every pairing played (a, b, the winner or None while undecided); None for a protocol without."""
        return None

    def table_discussion(self, d: Discussion) -> dict[str, Any]:
        """Its columns of `discussions.csv` (the vote protocol's counts of votes)."""
        return {}

    def table_round(self, r: Round) -> dict[str, Any]:
        """Its columns of `rounds.csv` for round `r` (the vote protocol's are the Dyson paper's)."""
        return {}

    def table_votes(self, r: Round) -> list[dict[str, Any]]:
        """The rows of `votes.csv` for round `r`: one per judgement, where the protocol has them."""
        return []

    def rescore(self, d: Discussion, setting: str, values: list[str]) -> tuple[list[Any], list[str]] | None:
        """The outcome re-computed under other values of `setting` (empty: the one it re-scores by default),
        as given (data, lines); None if it cannot. InputError for values the setting cannot take."""
        return None

    def bias(self, discussions: list[Discussion]) -> Any | None:
        """Where outcomes may lean on something other than merit (a report with `lines()`), if it can tell."""
        return None

    def recompute(self, d: Discussion, q: Question | None = None) -> list[dict[str, Any]] | None:
        """The recorded outcome checked against what its recorded judgements give under the recorded rules
        (`discuss verify`): a finding per difference ({round, file, kind, before, after, message}); None for
        a protocol that offers no recomputation (said so, never taken to hold). `q`, the question as read
        where the record lives, where the rules read it (a task type, the stakes); None where it is not at hand.
        What a model wrote freely is not recomputed; its frame is (who may write it, in which role)."""
        return None

    def confidence(self, d: Discussion) -> float | None:
        """How firmly the recorded judgements back the outcome, 0 to 1 (`discuss verdict`); None without
        judgements (the verdict then takes the last round's agreement)."""
        return None

    def dissent(self, d: Discussion) -> list[dict[str, str]]:
        """Recorded text that disagreed with the outcome, verbatim, with who wrote it ({panelist, text})."""
        return []

    def abstained(self, r: Round) -> int:
        """How many of the round's judges gave no usable judgement."""
        return 0

    def bias_experiment(self) -> Any | None:
        """What re-asks its recorded judgements under new orders (`discuss audit`), if it has judgements."""
        return None
