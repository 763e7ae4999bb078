"""Discussions as three tables a study reads: `discussions.csv`, `rounds.csv` and `votes.csv`.

One row per discussion, per round, per judgement. The columns are those of
Project Dyson's paper data where the concept is the same (the protocol
gives its own: the vote protocol's counts and winners), then ours:
protocol, panel, path, part, tags, phase, tokens and cost, and each round's
`answer_similarity` (the lexical agreement of its answers, whatever the
protocol: in a vote round, `agreement` is the voters'). Word counts are
whitespace-separated words of the reply as recorded; means are rounded to
one decimal. Beside the tables, the divergent views: every minority
position a conclusion kept. Pure: discussions in, rows and text out.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..domain import Conclusion, Discussion, Question, Round
from ..protocols import get_protocol
from ..rules.agreement import agreement
from ..store.layout import confined
from .experiments import figures_by_round

DIVERGENT = "divergent_views.yaml"


@dataclass(frozen=True)
class Located:
    """A discussion with where it lives: its folder relative to the content, and its part of a question."""

    d: Discussion
    path: str
    part: int | None = None
    tags: tuple[str, ...] = ()
    phase: str = ""
    bom: tuple[str, str] = ("", "")  # Project Dyson's BOM item id and slug
    category: str = ""


def _mean_words(replies: Iterable[Any]) -> float:
    words = [reply.word_count for reply in replies]
    return round(sum(words) / len(words), 1) if words else 0.0


def _ours(x: Located) -> dict[str, Any]:
    return {"protocol": x.d.protocol, "panel": x.d.panel.name, "path": x.path, "part": x.part or "",
            "trial": x.d.trial or ""}


def _usage(u: Any) -> dict[str, Any]:
    return {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
            "cost": "" if u.cost is None else u.cost}


def discussion_row(x: Located) -> dict[str, Any]:
    d, c = x.d, x.d.conclusion
    replies = [reply for r in d.rounds for reply in r.replies.values()]
    return {"question_id": d.question_id, "question_slug": d.question_slug, "question_title": d.question_title,
            "category": x.category, "status": d.status, "total_rounds": sum(r.complete for r in d.rounds),
            "termination_reason": d.termination_reason or "", "conclusion_generated_by": c.generated_by if c else "",
            **get_protocol(d.protocol).figures.table_discussion(d),
            "total_responses": len(replies), "mean_word_count": _mean_words(replies),
            **_ours(x), "tags": ";".join(x.tags), "phase_id": x.phase, **_usage(d.usage)}


def round_row(x: Located, r: Round) -> dict[str, Any]:
    d = x.d
    similarity = agreement([reply.text for reply in r.replies.values()])
    return {"question_id": d.question_id, "question_slug": d.question_slug, "category": x.category,
            "phase_id": x.phase, "round_number": r.number, "num_responses": len(r.replies),
            "mean_word_count": _mean_words(r.replies.values()),
            **get_protocol(d.protocol).figures.table_round(r),
            "stage": r.stage or "", "agreement": "" if r.agreement is None else r.agreement,
            "answer_similarity": "" if similarity is None else similarity,
            **_ours(x), **_usage(r.usage)}


def vote_rows(x: Located, r: Round) -> list[dict[str, Any]]:
    d = x.d
    rows = get_protocol(d.protocol).figures.table_votes(r)
    return [{"question_id": d.question_id, "question_slug": d.question_slug, "category": x.category,
             "phase_id": x.phase, "round_number": r.number, **row, **_ours(x)} for row in rows]


def divergent_views(located: list[Located]) -> list[dict[str, Any]]:
    """Each conclusion's minority positions, in the shape of Project Dyson's divergent-views files.

    Dyson's `{bomId, itemSlug, generated, topics: [{id, topic, positions:
    [{statement, models}]}]}`, one per discussion that kept a dissent, with
    where the discussion lives beside it. A topic is one minority position:
    the panel's conclusion, held by the members the position does not name,
    against the position, held by those it names (or by whoever it says).
    """
    return [_views(x, c) for x in located if (c := x.d.conclusion) is not None and c.minority_positions]


def _views(x: Located, c: Conclusion) -> dict[str, Any]:
    d = x.d
    members = [(m.id, m.name) for m in d.panel.members]

    def holders(held_by: str) -> list[str]:
        said = held_by.lower()
        return [pid for pid, name in members if pid.lower() in said or name.lower() in said]

    topics = []
    for n, m in enumerate(c.minority_positions, 1):
        named = holders(m.held_by)
        dissent = {"statement": m.position, "models": named or ([m.held_by] if m.held_by else []),
                   **({"reasoning": m.reasoning} if m.reasoning else {})}
        panel = {"statement": c.summary, "models": [pid for pid, _ in members if pid not in named]}
        topics.append({"id": f"minority-{n}", "topic": m.position, "positions": [panel, dissent],
                       **({"round": m.round} if m.round is not None else {})})
    return {"bomId": x.bom[0], "itemSlug": x.bom[1], "generated": c.generated or d.concluded_at or "",
            "questionId": d.question_id, "questionSlug": d.question_slug, "path": x.path, "part": x.part or 1,
            "trial": d.trial, "protocol": d.protocol, "concludedBy": c.generated_by, "topics": topics}


def tables(located: list[Located]) -> dict[str, list[dict[str, Any]]]:
    """The three tables, by file name, rows in the order of `located` and of their rounds."""
    return {
        "discussions.csv": [discussion_row(x) for x in located],
        "rounds.csv": [round_row(x, r) for x in located for r in x.d.rounds],
        "votes.csv": [row for x in located for r in x.d.rounds for row in vote_rows(x, r)],
    }


EXPERIMENTS = "bias_experiments.csv"


def experiment_rows(located: list[Located], content: Path) -> list[dict[str, Any]]:
    """One row per figure of every bias experiment (`discuss audit`) on these discussions: for the panel and
    each voter, position and length bias with their interval and ballots. None where none was run."""
    rows = []
    for x in located:
        for number, found in figures_by_round(content / x.path, x.d).items():
            for who, figures in [("panel", found["panel"]), *found["voters"].items()]:
                rows += [{"path": x.path, "question_id": x.d.question_id, "round": number, "who": who,
                          "measure": measure, **{k: figures[measure][k] for k in ("estimate", "low", "high", "ballots")}}
                         for measure in ("positionBias", "lengthBias")]
    return rows


EVAL_ITEMS = "eval_items.csv"


def eval_item_rows(root: Path) -> list[dict[str, Any]]:
    """Every eval's items table (evals/NAME/items.csv), one after another, for `export`."""
    rows: list[dict[str, Any]] = []
    for path in sorted((root / "evals").glob("*/items.csv")):
        text = confined(path, root, what=str(path.relative_to(root))).read_text(encoding="utf-8")
        rows += [{k: _number_or_text(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]
    return rows


def _number_or_text(cell: str | None) -> Any:
    """A cell read back from a CSV: a number where it is one (written again as a number, never guarded as
    text), else the text as it was."""
    if cell is None or cell.strip() != cell or (cell.lstrip("-").isdigit() and str(int(cell)) != cell):
        return cell  # "0001", an id, stays as written
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        number = float(cell)
    except ValueError:
        return cell
    return number if math.isfinite(number) else cell


def as_csv(rows: list[dict[str, Any]]) -> str:
    """One table as CSV: a column for every key any row has, in first-seen order; blanks where a row has none."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: inert(v) for k, v in row.items()} for row in rows)
    return out.getvalue()


# A spreadsheet evaluates a cell that begins with one of these as a formula (`=HYPERLINK(...)`, `@SUM`, `+cmd|`).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def inert(value: Any) -> Any:
    """A cell a spreadsheet shows as text: text that would start a formula gets a leading `'` (OWASP's rule).

    Only text: numbers (a negative score) stay numbers. A lone carriage return becomes a line end (the
    writer quotes a field by its `\\n`, not its `\\r`, and a reader ends the row at a bare one). The JSON
    export keeps every value exact.
    """
    if not isinstance(value, str):
        return value
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    return f"'{value}" if value.startswith(FORMULA_START) else value


def located(q: Question, d: Discussion, folder: Path, content: Path, part: int | None = None) -> Located:
    """`d`, the discussion in `folder` of question `q` (its own, a part's or a trial's)."""
    return Located(d, folder.relative_to(content).as_posix(), part, tuple(q.tags), q.phase, q.bom_item, q.category)
