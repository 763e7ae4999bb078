"""`discuss export` and `discuss rescore`: the archive as the tables a study reads, and its ballots re-scored.

Both read every discussion of the questions asked for (default: all of
them), each with its follow-up parts and its trials. Export gives the
discussions, rounds and votes tables (and the bias experiments, eval items
and forecasts where the project has them) with the divergent views, and
writes them as CSV where asked; rescore asks each discussion's protocol how
its round winners would change under other weights or tie rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..archive.scores import FORECASTS, resolved
from ..archive.scores import rows as graded
from ..archive.tables import (
    DIVERGENT,
    EVAL_ITEMS,
    EXPERIMENTS,
    as_csv,
    divergent_views,
    eval_item_rows,
    experiment_rows,
    located,
    tables,
)
from ..errors import InputError
from ..protocols import get_protocol
from ..store import discussions as store
from ..store.files import write_atomic
from ..store.followups import part_files
from ..store.layout import question_files
from ..store.questions import find_question, read_question
from ..store.yamlwrite import dump as dump_yaml
from .repeating import TRIALS, trial_number
from .results import JSON, Result

if TYPE_CHECKING:
    from ..archive.tables import Located
    from ..domain import Discussion


@dataclass
class Exported(Result):
    """The tables by file name (`discussions.csv`...), the divergent views, and the files written."""

    tables: dict[str, list[dict[str, JSON]]]
    divergent_views: list[dict[str, JSON]]
    written: list[str] = field(default_factory=list)  # file names, in the folder given, where CSV was asked for

    def document(self) -> dict[str, JSON]:
        """The one JSON document `export --json` prints: each table under its name, then the divergent views."""
        return {**{name.removesuffix(".csv"): list(rows) for name, rows in self.tables.items()},
                "divergent_views": list(self.divergent_views)}


def export(root: Path, content: Path, questions: list[str] | None, csv_dir: Path | None) -> Exported:
    """The archive's tables (of `questions`, default every discussion); written as CSV into `csv_dir` if given."""
    rows = archive(content, questions)
    found, views = tables(rows), divergent_views(rows)
    if experiments := experiment_rows(rows, content):  # only where `discuss audit` was run
        found[EXPERIMENTS] = experiments
    if evaluated := eval_item_rows(root):  # only where `discuss eval` was run
        found[EVAL_ITEMS] = evaluated
    paths = {x.path for x in rows}
    if forecasts := [r for r in graded(resolved(content)[0]) if r["path"] in paths]:  # only where resolved
        found[FORECASTS] = forecasts
    done = Exported(dict(found), list(views))
    if csv_dir is not None:
        for name, table in found.items():
            write_atomic(csv_dir / name, as_csv(table))
        write_atomic(csv_dir / DIVERGENT, dump_yaml({"schema": 1, "divergentViews": views}))
        done.written = [*found, DIVERGENT]
    return done


def archive(content: Path, questions: list[str] | None) -> list[Located]:
    """The discussions of these questions (default: every one), each its own, its follow-ups' and its trials'."""
    asked = [find_question(content, ref) for ref in questions] if questions else [
        read_question(p) for p in question_files(content)]
    rows = []
    for q in asked:
        folders = [(q, q.folder, None)] + [(read_question(p), p.with_suffix(""), n)
                                            for n, p in enumerate(part_files(q), 2)]
        folders += [(q, f, None) for f in sorted((q.folder / TRIALS).glob("trial-*"), key=trial_number)]
        rows += [located(owner, d, f, content, n) for owner, f, n in folders if (d := store.load(f)) is not None]
    return rows


@dataclass
class Rescored(Result):
    """One discussion's round winners under each value of the setting re-scored."""

    path: str
    question_slug: str
    variants: list[dict[str, JSON]]  # the protocol's figures for each value: label, winners, changed...

    def label(self, i: int) -> str:
        return str(self.variants[i].get("label", ""))

    def rounds(self, i: int) -> int:
        """How many round winners the i-th value decides."""
        winners = self.variants[i].get("winners")
        return len(winners) if isinstance(winners, list) else 0

    def changed(self, i: int) -> list[int]:
        """The rounds whose winner the i-th value changes."""
        changed = self.variants[i].get("changed")
        return [n for n in changed if isinstance(n, int)] if isinstance(changed, list) else []


def rescore(content: Path, spec: str, questions: list[str] | None) -> list[Rescored]:
    """Every discussion (of `questions`) whose protocol can re-score its recorded ballots under `spec`
    (`selfVoteWeight=0,0.5,1`, `tieRule=fair,list-order`); InputError where none can."""
    setting, values = rescore_spec(spec)
    found = []
    for x in archive(content, questions):
        try:
            done = get_protocol(x.d.protocol).figures.rescore(x.d, setting, values)
        except InputError as exc:
            raise InputError(f"{spec!r}: {exc}") from None
        if done is not None:
            found.append(Rescored(x.path, x.d.question_slug, done[0]))
    if not found:
        raise InputError(f"no discussion here can be re-scored by {setting or spec}")
    return found


def rescore_one(d: Discussion, wanted: str) -> tuple[list[dict[str, JSON]], list[str]]:
    """`show --rescore`: one discussion's recorded ballots tallied again under `wanted` (`selfVoteWeight=0,0.5,1`),
    as figures and as lines."""
    setting, values = rescore_spec(wanted)
    try:
        found = get_protocol(d.protocol).figures.rescore(d, setting, values)
    except InputError as exc:
        raise InputError(f"--rescore {wanted!r}: {exc}") from None
    if found is None:
        raise InputError(f"--rescore: the {d.protocol} protocol cannot re-score {setting or wanted}")
    return list(found[0]), list(found[1])


def rescore_spec(wanted: str) -> tuple[str, list[str]]:
    """`selfVoteWeight=0,0.5,1` as (setting, values); a bare list of values gives no setting (the protocol's own)."""
    setting, _, listed = wanted.rpartition("=")
    return setting.strip(), [v.strip() for v in listed.split(",") if v.strip()]
