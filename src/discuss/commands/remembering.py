"""The archive as a memory: earlier discussions near a question (`related`), and what happened afterwards
(`resolve`). Values in, plain values out; the CLI and the MCP server both call these."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..archive.related import archive, query_of, rank
from ..archive.scores import resolved, scores
from ..errors import InputError
from ..store import discussions as store
from ..store import yamlio, yamlwrite
from ..store.chain import OUTCOME, file_hash, with_outcome
from ..store.documents import read_text, render
from ..store.files import DiscussionLock, write_atomic
from ..store.layout import DISCUSSION_FILE, Layout, confined
from ..store.outcomes import forecasts_by_round, panel_forecast, read_outcome
from ..store.questions import find_question
from .results import OPTIONAL, Result

if TYPE_CHECKING:
    from ..domain import Discussion

MOST = 100  # related discussions one call lists at most


@dataclass
class RelatedRow(Result):
    """An earlier discussion near the question: `decision` where its conclusion gave one, `concluded` when its
    conclusion was written (None before it has one)."""

    slug: str
    title: str
    status: str
    decision: str | None
    score: float
    concluded: str | None


@dataclass
class RelatedFound(Result):
    """The discussions nearest to `query`, best first; `slug` where the query is one of the project's questions."""

    query: str
    slug: str | None
    related: list[RelatedRow]
    warnings: list[str]


def related(content: Path, question: str, limit: int = 5) -> RelatedFound:
    """{query, slug (where QUESTION is one of the project's), related: [{slug, title, status, decision, score,
    concluded}], warnings}: the discussions nearest to QUESTION (a slug, a question file, or a text), best first."""
    if not 1 <= limit <= MOST:
        raise InputError(f"--limit {limit}: give 1 to {MOST}")
    if not question.strip() or not question.isprintable():
        raise InputError("give a question: its slug, its file, or the text to look for")
    earlier, warnings = archive(content)
    query, own = query_of(content, question.strip(), earlier)
    found = rank(earlier, query, {own} if own else set(), limit)
    return RelatedFound(question.strip(), own, [RelatedRow(r.slug, r.title, r.status, r.decision or None, r.score,
                                                           r.concluded or None) for r in found], warnings)


MOST_OUTCOME = 8000  # characters of what happened: a paragraph or a few, never a document
MOST_EVIDENCE = 20


@dataclass
class Evidence(Result):
    """Evidence of an outcome: a web address, or a file of the project with its sha256."""

    url: str | None = field(default=None, metadata=OPTIONAL)
    file: str | None = field(default=None, metadata=OPTIONAL)
    sha256: str | None = field(default=None, metadata=OPTIONAL)


@dataclass
class Resolved(Result):
    """An outcome recorded: where, when, by whom, the answer, and whether the panel's decision was borne out
    (None where there was no answer or no decision to hold it against); `chained` whether the record's chain
    seals it."""

    slug: str
    path: str
    resolved: str
    answer: str | None
    decision: str | None
    born_out: bool | None
    evidence: list[Evidence]
    resolved_by: str
    chained: bool


def resolve(layout: Layout, question: str, outcome: str, answer: str | None = None,
            evidence: list[str] | None = None, now: str | None = None) -> Resolved:
    """Record what happened to a finished discussion (a follow-up part as `<slug>-part-N`, on its own): its
    outcome.md (when, what, the answer, the evidence, who), sealed onto the record's chain. Returns {slug, path,
    resolved, answer, decision, bornOut, evidence, resolvedBy, chained}; InputError (nothing written) for a
    question without a finished discussion, one resolved already, an answer the question does not offer, or
    evidence that is neither a web address nor a file of the project."""
    q = find_question(layout.content, question)
    text = _outcome_text(outcome)
    d = store.load(q.folder)
    if d is None or not d.concluded:
        raise InputError(f"{q.slug}: {'no discussion yet' if d is None else 'its discussion has not ended'}; "
                         "an outcome is recorded for a finished discussion")
    path = q.folder / OUTCOME
    if path.exists():
        raise InputError(f"{q.slug}: resolved already ({path.name}); an outcome is part of the record, so a "
                         "correction is an edit a pull request shows (and `discuss verify --base` names)")
    chosen = _answer(q, answer)
    listed = [_evidence(layout, e) for e in evidence or []]
    if len(listed) > MOST_EVIDENCE:
        raise InputError(f"--source: at most {MOST_EVIDENCE}")
    decided = d.conclusion.decision if d.conclusion else ""
    meta: dict[str, Any] = {"questionSlug": q.slug, "type": "outcome", "resolved": now or _now(),
                            "resolvedBy": who_resolves(layout.root)}
    if chosen:
        meta["answer"] = chosen
    if decided:
        meta["decision"] = decided
        if chosen:
            meta["bornOut"] = decided.casefold() == chosen.casefold()
    if listed:
        meta["evidence"] = listed
    _write(d, q.folder, path, meta, text)
    return Resolved(q.slug, path.relative_to(layout.root).as_posix(), meta["resolved"], chosen or None,
                    decided or None, meta.get("bornOut"), [Evidence(**e) for e in listed], meta["resolvedBy"],
                    d.record is not None and not d.legacy)


def _write(d: Any, folder: Path, path: Path, meta: dict[str, Any], text: str) -> None:
    """The outcome, then the chain in the index over it (a Project Dyson thread or one recorded before the
    chain has none: its outcome is a file like any other). Only the index's `record` gains the entry: nothing
    recorded before (the conclusion above all, which the chain holds by its hash) is written again."""
    with DiscussionLock(folder):
        write_atomic(path, render(meta, f"# What happened\n\n{text}\n"))
        if d.record is not None and not d.legacy:
            index = yamlio.load(read_text(folder / DISCUSSION_FILE), written=True)
            with_outcome(index["record"], path)
            write_atomic(folder / DISCUSSION_FILE, yamlwrite.dump(index))


def _outcome_text(outcome: str) -> str:
    text = outcome.strip()
    if not text:
        raise InputError("--outcome: say what happened, in words")
    if len(text) > MOST_OUTCOME:
        raise InputError(f"--outcome: {len(text)} characters; at most {MOST_OUTCOME}")
    if any(not (c.isprintable() or c in "\n\t") for c in text):
        raise InputError("--outcome: holds control characters; give plain text")
    return text


def _answer(q: Any, answer: str | None) -> str:
    """The answer as the question's own option, whatever its case; the options are the decision's, else yes
    and no for a forecast."""
    if answer is None:
        return ""
    options = list(q.decision) or (["yes", "no"] if q.forecast else [])
    if not options:
        raise InputError(f"--answer: {q.slug} asks for no decision and no forecast (front matter `decision:` or "
                         "`forecast: yes-no`), so there is no answer to check it against; say what happened in "
                         "--outcome")
    found = next((o for o in options if o.casefold() == answer.strip().casefold()), None)
    if found is None:
        raise InputError(f"--answer {answer!r}: give one of {', '.join(options)}")
    return str(found)


def _evidence(layout: Layout, given: str) -> dict[str, str]:
    """A web address as it is (http or https, no credentials in it; never fetched), or a file of the project
    with its sha256, named by its path in the project."""
    from urllib.parse import urlsplit


    given = given.strip()
    if not given or not given.isprintable() or len(given) > 2000:
        raise InputError("--source: give a web address or a file of the project")
    parts = urlsplit(given)
    if parts.scheme in ("http", "https"):
        if not parts.hostname or parts.username or parts.password:
            raise InputError(f"--source {given!r}: a web address with a host and no credentials in it")
        return {"url": given}
    if parts.scheme and len(parts.scheme) > 1:
        raise InputError(f"--source {given!r}: only http and https addresses, or a file of the project")
    path = Path(given) if Path(given).is_absolute() else layout.root / given
    real = confined(path, layout.root, what=given)
    if not real.is_file():
        raise InputError(f"--source {given!r}: no such file")
    return {"file": real.relative_to(layout.root.resolve()).as_posix(), "sha256": file_hash(real)}


def who_resolves(root: Path) -> str:
    """The person recording the outcome: git's user.name here, else the login name; a name, never a path."""
    import getpass
    import subprocess

    try:
        done = subprocess.run(["git", "-C", str(root), "config", "user.name"], capture_output=True, text=True,
                              timeout=10)
        name = done.stdout.strip() if done.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        name = ""
    if not name:
        try:
            name = getpass.getuser()
        except (OSError, KeyError):
            name = ""
    name = "".join(c for c in name if c.isprintable()).strip().replace("/", " ").replace("\\", " ")[:100].strip()
    return name or "unknown"


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def outcome_lines(folder: Path, d: Discussion | None = None) -> list[str]:
    """What `show` prints first: once a discussion is resolved, what happened and whether the decision held;
    where the panel forecast, each member's probability by round and the panel's."""
    o = read_outcome(folder)
    said = forecast_lines(d) if d is not None else []
    if o is None:
        return said
    head = f"Outcome ({o.resolved[:10]}, recorded by {o.resolved_by})" + (f": {o.answer}" if o.answer else "")
    if o.born_out is not None:
        head += f"; the panel's decision ({o.decision}) was " + ("borne out" if o.born_out else "not borne out")
    lines = [head, *(f"  {line}" for line in o.text.splitlines())]
    lines += [f"  evidence: {e.get('url') or e.get('file')}" for e in o.evidence]
    return [*lines, "", *said]


def forecast_lines(d: Discussion) -> list[str]:
    """Each round's probabilities of yes by member (- for one who gave none), then the panel's."""
    rounds = forecasts_by_round(d)
    if not rounds:
        return []
    names = {m.id: m.name for m in d.panel.members}
    lines = ["Forecasts (probability of yes):"]
    for number, given in rounds:
        lines.append(f"  round {number}: " + ", ".join(
            f"{names.get(pid, pid)} {'-' if p is None else f'{p:.2f}'}" for pid, p in given.items()))
    panel = panel_forecast(d) or {}
    if panel.get("probability") is not None:
        lines.append(f"  panel: {panel['probability']:.2f} ({panel['rule']})")
    return [*lines, ""]


@dataclass
class Interval(Result):
    """A mean with its normal 95% interval (None for fewer than two values; all None for none)."""

    mean: float | None
    low: float | None
    high: float | None


@dataclass
class MemberScore(Result):
    """A panelist's forecasts graded: how many, how many abstained, the mean Brier and log scores."""

    member: str
    model: str
    n: int
    abstained: int
    brier: Interval
    log: Interval


@dataclass
class Decisions(Result):
    """How many of a panel's decisions the outcome held against, how many it bore out, and Wilson's interval of
    the share."""

    n: int
    born_out: int
    share: float | None
    low: float | None
    high: float | None


@dataclass
class PanelScore(Result):
    """A panel and protocol's forecasts graded, and its decisions borne out."""

    panel: str
    protocol: str
    n: int
    abstained: int
    brier: Interval
    log: Interval
    decisions: Decisions


@dataclass
class Bin(Result):
    """A calibration bin [low, high): how many probabilities were stated in it, their mean, how often it came
    true."""

    low: float
    high: float
    n: int
    stated: float | None
    came_true: float | None


@dataclass
class Calibration(Result):
    members: list[Bin]
    panels: list[Bin]


@dataclass
class ScoreRow(Result):
    """One probability graded (None: abstained): a member's or the panel's (`kind`), on a question answered yes
    or no (`outcome` 1 or 0), with its Brier and log terms; a row of forecasts.csv."""

    question: str
    path: str
    panel: str
    protocol: str
    kind: str
    member: str
    model: str
    round: int
    probability: float | None
    answer: str
    outcome: int
    brier: float | None
    log: float | None


@dataclass
class TrackRecord(Result):
    """`discuss scores`: the resolved questions, how many had forecasts graded, the panel's rule, the scores per
    member and per panel, the calibration, each row graded, and files left out; every figure unrounded."""

    resolved: int
    graded: int
    rule: str
    members: list[MemberScore]
    panels: list[PanelScore]
    calibration: Calibration
    rows: list[ScoreRow]
    warnings: list[str]


def track_record(content: Path) -> TrackRecord:
    """`discuss scores`: the resolved questions graded, every figure unrounded."""
    items, warnings = resolved(content)
    return _record(scores(items), warnings)


def _record(f: dict[str, Any], warnings: list[str]) -> TrackRecord:
    """The archive's scores (dicts, whose rows `export` writes as forecasts.csv), typed."""
    def interval(x: dict[str, Any]) -> Interval:
        return Interval(x["mean"], x["low"], x["high"])

    def bins(found: list[dict[str, Any]]) -> list[Bin]:
        return [Bin(b["low"], b["high"], b["n"], b["stated"], b["cameTrue"]) for b in found]

    members = [MemberScore(m["member"], m["model"], m["n"], m["abstained"], interval(m["brier"]), interval(m["log"]))
               for m in f["members"]]
    panels = [PanelScore(p["panel"], p["protocol"], p["n"], p["abstained"], interval(p["brier"]), interval(p["log"]),
                         Decisions(p["decisions"]["n"], p["decisions"]["bornOut"], p["decisions"]["share"],
                                   p["decisions"]["low"], p["decisions"]["high"])) for p in f["panels"]]
    rows = [ScoreRow(r["question"], r["path"], r["panel"], r["protocol"], r["kind"], r["member"], r["model"],
                     r["round"], r["probability"], r["answer"], r["outcome"], r["brier"], r["log"]) for r in f["rows"]]
    return TrackRecord(f["resolved"], f["graded"], f["rule"], members, panels,
                       Calibration(bins(f["calibration"]["members"]), bins(f["calibration"]["panels"])), rows,
                       warnings)
