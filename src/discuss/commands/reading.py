"""The status of the archive: its rows, a page of them as an agent reads it, and what `discuss status` prints.

A status that finds every row kept from the last one reads nothing else, so the modules that read a
discussion whole, check its record, find one question or ask whether its run is going (the engine, through
the ask) are imported inside the functions that need them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..archive.listing import StatusRow, status_of, status_table
from ..domain import FINISHED, STATUSES
from ..errors import InputError
from ..store.layout import question_names
from ..store.statuses import summaries
from .results import Result, as_json


def status_rows(content: Path, question: str | None = None,
                status: str | None = None) -> tuple[list[StatusRow], list[str]]:
    """`status --json`'s rows (every discussion with its follow-ups after it, or one), and warnings about
    files left out; a question that was asked for and cannot be read is an InputError. `status`: only the
    rows of that status (`not started`, `active`, `concluded`, `closed`)."""
    if status is not None and status not in LISTED:
        raise InputError(f"status {status!r}: give one of {', '.join(LISTED)}")
    if question is None:
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
