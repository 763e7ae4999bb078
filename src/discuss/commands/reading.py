"""Reading the archive: the status rows, one discussion whole, the panels and the protocols."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..archive.listing import StatusRow, status_of, status_table
from ..domain import FINISHED, STATUSES
from ..errors import InputError
from ..protocols import get_protocol
from ..protocols import names as protocol_names
from ..store.layout import DISCUSSION_FILE, Layout, question_files, question_names
from .results import JSON, Result, as_json

if TYPE_CHECKING:
    from ..domain import Discussion, Question


def status_rows(content: Path, question: str | None = None,
                status: str | None = None) -> tuple[list[StatusRow], list[str]]:
    """`status --json`'s rows (every discussion with its follow-ups after it, or one), and warnings about
    files left out; a question that was asked for and cannot be read is an InputError. `status`: only the
    rows of that status (`not started`, `active`, `concluded`, `closed`)."""
    if status is not None and status not in LISTED:
        raise InputError(f"status {status!r}: give one of {', '.join(LISTED)}")
    if question is None:
        from ..store.statuses import summaries

        found, warnings = summaries(content, holds)
        rows = [status_of(slug, s) for slug, s in found]
        return [r for r in rows if status is None or r.status == status], warnings
    from dataclasses import replace

    from ..store import discussions as store
    from ..store.questions import find_question

    q = find_question(content, question)
    s = store.summary(q.folder)
    s = None if s is None else replace(s, verified=holds(str(q.folder)))
    return [r for r in [status_of(q.slug, s)] if status is None or r.status == status], []


def holds(folder: str) -> bool | None:
    """Whether the discussion in `folder` holds under the checks `verify` runs without a base, as `status` and
    the views mark it: None where none was started or its protocol offers no recomputation; a record that
    cannot be read does not hold (`verify` names it)."""
    from ..archive.integrity import checked, held
    from ..store import discussions as store
    from .verifying import question_beside

    path = Path(folder)
    try:
        d = store.load(path)
        return None if d is None else held(*checked(d, path, question_beside(path)))
    except (InputError, ValueError, OSError):
        return False


LISTED = ("not started", *STATUSES)  # what a status row says of a discussion


@dataclass
class StatusPage(Result):
    """A page of `status --json`'s rows (each with `running`), of `total` rows, and the files left out."""

    discussions: list[StatusRow]
    total: int
    offset: int
    limit: int
    warnings: list[str]


def status_page(content: Path, status: str | None = None, limit: int = 100,
                offset: int = 0) -> StatusPage:
    """A page of the status rows (those of `status`, where given) as an agent reads them: `{discussions,
    total, offset, limit, warnings}`, each row with `running` (a run of it is going now). Whether a run is
    going is asked only of the page's unfinished rows, whose files are found in one walk of the archive."""
    if limit < 1 or offset < 0:
        raise InputError("limit must be 1 or more, and offset 0 or more")
    rows, warnings = status_rows(content, None, status)
    page = rows[offset:offset + limit]
    unfinished = [r for r in page if r.status not in FINISHED]
    folders = folders_of(content, [r.slug for r in unfinished]) if unfinished else {}
    for row in page:
        row.running = row.slug in folders and running(folders[row.slug])
    return StatusPage(page, len(rows), offset, limit, warnings)


def status_output(rows: list[StatusRow], json_wanted: bool, where: str, left_out: int = 0) -> str:
    """What `discuss status` prints on stdout for these rows: their JSON, or the table (`where`: the content
    folder, for an empty one; `left_out`: how many files could not be read, each a warning on stderr)."""
    import json

    return json.dumps(as_json(rows), indent=2) + "\n" if json_wanted else status_table(rows, where, left_out)


def folders_of(content: Path, slugs: list[str]) -> dict[str, Path]:
    """The discussion folder of each of `slugs`: file names settle most in one walk; the rest are found one by
    one (a slug its front matter gives, a follow-up part's)."""
    from ..store.questions import find_question

    by_name = {Path(name).stem: Path(name) for name in question_names(content)}
    found = {}
    for slug in slugs:
        try:
            path = by_name.get(slug) or find_question(content, slug).path
        except InputError:
            continue
        found[slug] = path.with_suffix("")
    return found


def running(folder: Path) -> bool:
    """Whether a run of the discussion in `folder` is going (it holds the lock, or was started a moment ago)."""
    from .asking import running as going

    return going(folder)


def discussion_data(content: Path, question: str, round_number: int | None = None) -> dict[str, JSON] | None:
    """`show --json`'s discussion, or None where the question has none yet: the record as one JSON document
    (its shape is the file format's, documented on the commands page)."""
    from ..archive.experiments import by_round_json as audit_figures
    from ..archive.export import discussion_json
    from ..store import discussions as store
    from ..store.questions import find_question

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
        data["citations"] = citations_of(q, d)
    from ..store.outcomes import read_outcome

    if (outcome := read_outcome(q.folder)) is not None:
        data["outcome"] = outcome.json()
    from ..store.outcomes import forecasts_by_round, panel_forecast

    if rounds := forecasts_by_round(d):
        data["forecasts"] = {"rounds": [{"round": n, "probabilities": given} for n, given in rounds],
                             "panel": panel_forecast(d)}
    return data


def citations_of(q: Question, d: Discussion) -> list[dict[str, JSON]]:
    """What each reply cites, checked against the sources the discussion was given."""
    return list(_citations(q, d))


def _citations(q: Question, d: Discussion) -> list[dict[str, Any]]:
    from ..archive.integrity import citations
    from ..store.sources import recorded_texts

    return citations(d, recorded_texts(q.path, d.sources), {str(s.get("label")) for s in d.sources})


def citation_lines(q: Question, d: Discussion) -> list[str]:
    """What `show` prints of the citations: unknown labels and quotes not found, then how many were found."""
    if not d.sources:
        return []
    found = _citations(q, d)
    lines = []
    for row in found:
        where = f"round {row['round']}" if row["round"] is not None else "conclusion"
        lines += [f"- {row['panelist']} ({where}) cites [{label}], which is not a source" for label in row["unknown"]]
        lines += [f"- {row['panelist']} ({where}): \"{x['text'][:120]}\" is not in [{x['source']}]"
                  for x in row["quotes"] if not x["found"]]
    quotes = [x for row in found for x in row["quotes"]]
    held = sum(x["found"] for x in quotes)
    return ["", f"Citations: {held} of {len(quotes)} quote(s) found in the source they cite", *lines] \
        if quotes or lines else []


def discussion_text(content: Path, question: str, full: bool = False) -> str:
    """What `show` prints: what the discussion came to first, then its rounds."""
    q, d = found_discussion(content, question)
    return not_started(q) if d is None else shown_text(q, d, full)


def found_discussion(content: Path, question: str | None) -> tuple[Question, Discussion | None]:
    """The question (default: the one whose discussion changed last) and its discussion, None where there is
    none yet."""
    from ..store import discussions as store
    from ..store.questions import find_question

    q = find_question(content, question) if question is not None else latest(content)
    return q, store.load(q.folder)


def not_started(q: Question) -> str:
    return f"{q.slug}: no discussion yet; start one with `discuss run {q.slug} --auto`\n"


def shown_text(q: Question, d: Discussion, full: bool = False, only: int | None = None) -> str:
    """`show`'s text of a discussion (`only`: of that round alone): the outcome, the rounds, the experiments
    and the citations checked; a round it does not have is an InputError."""
    from ..archive.experiments import shown_lines as audit_lines
    from ..archive.report import show
    from .remembering import outcome_lines

    if only is not None and only > len(d.rounds):
        raise InputError(f"{q.slug} has {len(d.rounds)} round(s); there is no round {only}")
    if only is not None:
        return show(d, full=full, only=only)
    return "".join(f"{line}\n" for line in outcome_lines(q.folder, d)) + show(d, full=full) + "".join(
        f"{line}\n" for line in [*audit_lines(q.folder, d), *citation_lines(q, d)])


def latest(content: Path) -> Question:
    """The question whose discussion changed last (its discussion.yaml written last)."""
    from ..store.questions import find_question, read_question

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


def panel_rows(layout: Layout) -> list[dict[str, str]]:
    """Each panel's members and referees, with whether each key is set; no call is made."""
    from ..providers import key_names, missing_keys
    from ..store.panels import load_panels

    rows = []
    for name, (panel, _) in load_panels(layout.panels).items():
        roles = {p.id: role for role, p in (("judge", panel.judge), ("synthesizer", panel.synthesizer),
                                             ("chairman", panel.chairman)) if p is not None}
        for p in panel.everyone:
            missing = missing_keys([p])
            key = ("missing " + ", ".join(m.split(" ")[0] for m in missing) if missing
                   else "set" if key_names([p]) else "not needed")  # a simulated, scripted or local member
            role = roles.get(p.id, "member") if p.id not in panel.ids else "member" + (
                f", {roles[p.id]}" if p.id in roles else "")
            rows.append({"panel": name, "id": p.id, "name": p.name, "model": p.model, "role": role,
                         "options": p.settings_line or "-", "key": key})
    return rows


@dataclass
class ProtocolRow(Result):
    """A protocol: its name, what it does, and the settings of its own (`run --set`, panels.yaml) with their
    defaults, by their camelCase names."""

    name: str
    summary: str
    settings: list[str]
    defaults: dict[str, JSON]


def protocol_rows() -> list[ProtocolRow]:
    """Each protocol a discussion can follow."""
    def defaults(name: str) -> dict[str, JSON]:
        model = get_protocol(name).settings_model
        return model().model_dump(by_alias=True) if model else {}

    return [ProtocolRow(name, get_protocol(name).summary, list(defaults(name)), defaults(name))
            for name in protocol_names()]
