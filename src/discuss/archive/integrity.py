"""What `discuss verify` checks of one discussion on disk: its outcome against its record, and its chain.

- The protocol's own recomputation (`Figures.recompute`): scores from
  ballots, winners and tie-breaks, stops by the recorded rules, the
  conclusion's author; a protocol without one is said to have none.
- What every discussion must hold: a concluded discussion has a round, the
  usage recorded in the index is the sum of its calls, each source still has
  the hash it was read with.
- The chain of digests (`store/chain.py`): the first file that differs from
  what was recorded as its round closed.
- An eval's item: the final answer its index records, read again from its
  files under the recorded rule (`archive/finalanswer.py`).

Each finding is a dict: {round, file, kind, before, after, message}.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..domain import Discussion, Question, usage_dict
from ..protocols import get_protocol
from ..store import yamlio
from ..store.chain import broken, file_hash, question_hash
from ..store.documents import read_text
from ..store.layout import DISCUSSION_FILE
from ..text.citations import check as check_quotes
from .finalanswer import answer_findings


def finding(number: int | None, file: str, kind: str, before: Any, after: Any, message: str) -> dict[str, Any]:
    return {"round": number, "file": file, "kind": kind, "before": before, "after": after, "message": message}


def check(d: Discussion, folder: Path, index: dict[str, Any],
          q: Question | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The findings of one discussion, and notes on what could not be checked (no chain, no recomputation);
    `q`, its question as read where the record lives, where it is at hand."""
    found, notes = basics(d, folder, index), []
    again = recomputed(d, q)
    if again is None:
        notes.append(f"{NO_RECOMPUTATION}: the {d.protocol} protocol offers none, so its outcome is not known to "
                     "hold; its files and chain are checked")
    else:
        found += again
    found += chained(d, folder, notes)
    found += answer_findings(d, finding)  # an eval's item: the final answer its index records, read again
    if q is not None:
        found += asked(d, q)
    return found, notes


def checked(d: Discussion, folder: Path, q: Question | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """`check` with the index read from the discussion's folder: what `verify` says of it without a base."""
    index = yamlio.load(read_text(folder / DISCUSSION_FILE), written=True)
    return check(d, folder, index if isinstance(index, dict) else {}, q)


def held(found: list[dict[str, Any]], notes: list[str]) -> bool | None:
    """Whether a record holds, as the verdict and every view say it: False where a check found anything, None
    where its protocol offers no recomputation (not known to hold), else True."""
    return False if found else None if any(NO_RECOMPUTATION in n for n in notes) else True


def asked(d: Discussion, q: Question) -> list[dict[str, Any]]:
    """The question as written now against what the recorded rounds were asked (the record's digest of its
    title and background): an edit after a round answered it is a finding naming that round."""
    recorded = (d.record or {}).get("question")
    answered = [int(e["round"]) for e in (d.record or {}).get("rounds") or []]
    if not isinstance(recorded, str) or not answered or question_hash(q.title, q.background) == recorded:
        return []
    last = answered[-1]
    return [finding(last, q.path.name, "question-changed", recorded, question_hash(q.title, q.background),
                    f"the question's title or background was edited after round {last} answered it: the recorded "
                    "rounds answered other text (to ask again, `discuss follow-up` adds a part; the record is "
                    "kept as it was asked)")]


NO_RECOMPUTATION = "no recomputation"


def recomputed(d: Discussion, q: Question | None = None) -> list[dict[str, Any]] | None:
    """The protocol's recomputation (None where it offers none); a plugin's written before the question was
    handed to it takes the discussion alone."""
    import inspect

    figures = get_protocol(d.protocol).figures
    try:
        takes = len(inspect.signature(figures.recompute).parameters) >= 2
    except (TypeError, ValueError):
        takes = False
    return figures.recompute(d, q) if takes else figures.recompute(d)


def basics(d: Discussion, folder: Path, index: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    if d.status == "concluded" and not d.rounds and d.conclusion is None:
        found.append(finding(None, "discussion.yaml", "damaged", "concluded", None,
                             "the discussion says it concluded, with no round and no conclusion"))
    recorded, summed = index.get("usage"), usage_dict(d.usage)
    if not d.legacy and isinstance(recorded, dict) and _usage_differs(recorded, summed):
        found.append(finding(None, "discussion.yaml", "usage", recorded, summed,
                             "the usage recorded in the index is not the sum of the calls its rounds record"))
    found += _sources(d, folder)
    return found


def _usage_differs(recorded: dict[str, Any], summed: dict[str, Any]) -> bool:
    for key, value in summed.items():
        was = recorded.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not isinstance(was, (int, float)) or abs(float(was) - float(value)) > 1e-6:
                return True
        elif was != value:
            return True
    return False


def _sources(d: Discussion, folder: Path) -> list[dict[str, Any]]:
    found = []
    for source in d.sources:
        if "path" not in source or not source.get("sha256"):
            continue
        path = folder.parent / str(source["path"])
        now = file_hash(path) if path.is_file() else None
        if now != source["sha256"]:
            found.append(finding(None, str(source["path"]), "source-changed", source["sha256"], now,
                                 f"source [{source.get('label')}] {source['path']} "
                                 + ("is gone" if now is None else "changed after the panel read it")))
    return found


def chained(d: Discussion, folder: Path, notes: list[str]) -> list[dict[str, Any]]:
    if d.record is None:
        notes.append("no chain of digests (recorded before this version, or another tool's thread): its outcome "
                     "and, with --base, its history are checked")
        return []
    found = []
    for f in broken(d.record, lambda n: folder / f"round-{n}", folder / "conclusion.md"):
        what = {"chain-edited": "the chain's entry does not follow from the files it lists (edited by hand?)",
                "file-changed": "changed after its round closed", "file-deleted": "deleted after its round closed",
                "file-added": "added after its round closed"}[f["kind"]]
        if f["round"] is None:
            what = what.replace("after its round closed", "after it was recorded")
        found.append(finding(f["round"], f["file"], f["kind"], f["before"], f["after"], f"{f['file']}: {what}"))
    complete = [r.number for r in d.rounds if r.complete]
    listed = [int(e["round"]) for e in d.record.get("rounds") or []]
    if missing := sorted(set(listed) - set(complete)):
        found.append(finding(missing[0], "discussion.yaml", "round-deleted", missing, None,
                             f"round(s) {', '.join(map(str, missing))} are in the chain but not in the discussion"))
    return found


def citations(d: Discussion, texts: dict[str, str], labels: set[str]) -> list[dict[str, Any]]:
    """Each reply (and the conclusion) whose citations name a source there is not, or quote one wrongly:
    {round, panelist, unknown, quotes: [{text, source, found}]}; every quote is listed, found or not."""
    known = {label: texts.get(label, "") for label in labels}
    out = []
    pieces: list[tuple[int | None, str, str]] = [(r.number, pid, reply.text) for r in d.rounds
                                                 for pid, reply in r.replies.items()]
    if d.conclusion is not None:
        c = d.conclusion
        pieces.append((None, c.generated_by, "\n".join([c.summary, *c.key_points, *(m.position for m in
                                                                                     c.minority_positions)])))
    for number, pid, text in pieces:
        found = check_quotes(text, known)
        if found["unknown"] or found["quotes"]:
            out.append({"round": number, "panelist": pid, **found})
    return out

