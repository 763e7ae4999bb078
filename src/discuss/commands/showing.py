"""One discussion as `show` gives it: the text that puts what it came to first, or the record as JSON with its
experiments, citations, outcome and forecasts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..archive.experiments import by_round_json as audit_figures
from ..archive.experiments import shown_lines as audit_lines
from ..archive.export import discussion_json
from ..archive.integrity import citations
from ..archive.report import show
from ..domain import Discussion, Question
from ..errors import InputError
from ..store import discussions as store
from ..store.layout import DISCUSSION_FILE, question_files
from ..store.outcomes import forecasts_by_round, panel_forecast, read_outcome
from ..store.questions import find_question, read_question
from ..store.sources import recorded_texts
from .remembering import outcome_lines
from .results import JSON, Result


def discussion_data(content: Path, question: str, round_number: int | None = None) -> dict[str, JSON] | None:
    """`show --json`'s discussion, or None where the question has none yet: the record as one JSON document
    (its shape is the file format's, documented on the commands page)."""
    q = find_question(content, question)
    d = store.load(q.folder)
    if d is None:
        return None
    if round_number is not None and round_number > len(d.rounds):
        raise InputError(f"{q.slug} has {len(d.rounds)} round(s); there is no round {round_number}")
    data = discussion_json(d)
    if round_number is not None:
        data["rounds"] = [data["rounds"][round_number - 1]]
    if experiments := audit_figures(q.folder, d):
        data["biasExperiment"] = experiments
    if d.sources:
        data["citations"] = [row.to_json() for row in citations_of(q, d)]
    if (outcome := read_outcome(q.folder)) is not None:
        data["outcome"] = outcome.json()
    if rounds := forecasts_by_round(d):
        data["forecasts"] = {"rounds": [{"round": n, "probabilities": given} for n, given in rounds],
                             "panel": panel_forecast(d)}
    return data


@dataclass
class Quote(Result):
    """A quote a reply attributes to a source, and whether that source holds it."""

    text: str
    source: str
    found: bool


@dataclass
class Citation(Result):
    """A reply (`round` None: the conclusion) that cites a source there is not (`unknown`) or quotes one."""

    round: int | None
    panelist: str
    unknown: list[str]
    quotes: list[Quote]


def citations_of(q: Question, d: Discussion) -> list[Citation]:
    """What each reply cites, checked against the sources the discussion was given."""
    found = citations(d, recorded_texts(q.path, d.sources), {str(s.get("label")) for s in d.sources})
    return [Citation(row["round"], row["panelist"], list(row["unknown"]),
                     [Quote(x["text"], x["source"], x["found"]) for x in row["quotes"]]) for row in found]


def citation_lines(q: Question, d: Discussion) -> list[str]:
    """What `show` prints of the citations: unknown labels and quotes not found, then how many were found."""
    if not d.sources:
        return []
    found = citations_of(q, d)
    lines = []
    for row in found:
        where = f"round {row.round}" if row.round is not None else "conclusion"
        lines += [f"- {row.panelist} ({where}) cites [{label}], which is not a source" for label in row.unknown]
        lines += [f"- {row.panelist} ({where}): \"{x.text[:120]}\" is not in [{x.source}]"
                  for x in row.quotes if not x.found]
    quotes = [x for row in found for x in row.quotes]
    held = sum(x.found for x in quotes)
    return ["", f"Citations: {held} of {len(quotes)} quote(s) found in the source they cite", *lines] \
        if quotes or lines else []


def discussion_text(content: Path, question: str, full: bool = False) -> str:
    """What `show` prints: what the discussion came to first, then its rounds."""
    q, d = found_discussion(content, question)
    return not_started(q) if d is None else shown_text(q, d, full)


def found_discussion(content: Path, question: str | None) -> tuple[Question, Discussion | None]:
    """The question (default: the one whose discussion changed last) and its discussion, None where there is
    none yet."""
    q = find_question(content, question) if question is not None else latest(content)
    return q, store.load(q.folder)


def not_started(q: Question) -> str:
    return f"{q.slug}: no discussion yet; start one with `discuss run {q.slug} --auto`\n"


def shown_text(q: Question, d: Discussion, full: bool = False, only: int | None = None) -> str:
    """`show`'s text of a discussion (`only`: of that round alone): the outcome, the rounds, the experiments
    and the citations checked; a round it does not have is an InputError."""
    if only is not None and only > len(d.rounds):
        raise InputError(f"{q.slug} has {len(d.rounds)} round(s); there is no round {only}")
    if only is not None:
        return show(d, full=full, only=only)
    return "".join(f"{line}\n" for line in outcome_lines(q.folder, d)) + show(d, full=full) + "".join(
        f"{line}\n" for line in [*audit_lines(q.folder, d), *citation_lines(q, d)])


def latest(content: Path) -> Question:
    """The question whose discussion changed last (its discussion.yaml written last)."""
    indexes = [(p.with_suffix("") / DISCUSSION_FILE, p) for p in question_files(content)]
    started = [(index.stat().st_mtime_ns, str(p), p) for index, p in indexes if index.is_file()]
    if not started:
        files = question_files(content)
        if files:
            slug = find_question(content, str(files[0])).slug
            raise InputError(f"no discussion yet; start one with `discuss run {slug} --auto`"
                             + (f" ({len(files)} questions wait: `discuss status` lists them)" if len(files) > 1 else ""))
        raise InputError("no question yet; ask one: discuss ask \"Your question?\" --panel offline")
    return read_question(max(started)[2])
