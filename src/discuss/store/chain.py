"""The record's chain: a digest of every file of each finished round, each round's covering the one before.

Written into discussion.yaml (`record:`) as each round closes and when the
conclusion is written, so a reviewer (and `discuss verify`) can tell that a
round recorded earlier was changed afterwards, and which file:

    record:
      algorithm: sha256
      question: <sha256 of the title and background the first round read>
      rounds:
      - round: 1
        files: {alpha.md: <sha256>, votes.yaml: <sha256>}
        digest: <sha256 of the previous digest and these lines>
      conclusion: {file: conclusion.md, sha256: <...>, digest: <...>}
      outcome: {file: outcome.md, sha256: <...>, digest: <...>}   # once `discuss resolve` recorded it

A discussion recorded before the chain existed (or another tool's thread)
has no `record:`; it is never given one afterwards, since its early rounds
could no longer be vouched for.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

ALGORITHM = "sha256"


def file_hash(path: Path) -> str:
    with open(path, "rb") as f:  # read in pieces: a file (or a link to one) may be larger than memory
        return hashlib.file_digest(f, "sha256").hexdigest()


def round_hashes(folder: Path) -> dict[str, str]:
    """Every file of a round folder by name, with its hash; a hidden file (the temporary of an atomic write
    a killed run left behind) is no part of the record."""
    if not folder.is_dir():
        return {}
    return {p.name: file_hash(p) for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")}


def link(previous: str, files: dict[str, str]) -> str:
    """A round's digest: the one before it and each of its files' name and hash, in name order."""
    text = previous + "\n" + "".join(f"{name} {files[name]}\n" for name in sorted(files))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def new_record(question: str | None = None) -> dict[str, Any]:
    """An empty record; `question`, the digest of what its rounds will be asked."""
    return {"algorithm": ALGORITHM, **({"question": question} if question else {}), "rounds": []}


def question_hash(title: str, background: str) -> str:
    """What the rounds were asked, as a digest: a later edit of the question is told apart from none."""
    return hashlib.sha256(f"{title.strip()}\n{background.strip()}".encode()).hexdigest()


def question_changed(record: dict[str, Any], title: str, background: str, rounds: int) -> str | None:
    """Before a run adds rounds: record what they will be asked, or say that earlier rounds were asked
    something else (a background written after round 1 answered the template's text, say)."""
    now = question_hash(title, background)
    before = record.get("question")
    if not rounds or not isinstance(before, str):  # none answered yet, or recorded before the digest was kept
        if not rounds:
            record["question"] = now
        return None
    if before == now:
        return None
    record["question"] = now
    return (f"the question's title or background changed after round {rounds} answered it: the rounds from now on "
            "read the new text, the recorded ones answered the old (`discuss trials` or a new question starts "
            "afresh on it)")

def sealed(record: dict[str, Any], numbers: list[int], folder_of: Any, conclusion: Path | None) -> bool:
    """Add the entries of finished rounds `numbers` (in order) that the record lacks, and the conclusion's once
    written; True where anything was added. `folder_of(n)` is round n's folder."""
    rounds: list[dict[str, Any]] = record.setdefault("rounds", [])
    have = {int(e["round"]) for e in rounds}
    added = False
    for number in numbers:
        if number in have:
            continue
        files = round_hashes(folder_of(number))
        previous = rounds[-1]["digest"] if rounds else ""
        rounds.append({"round": number, "files": files, "digest": link(previous, files)})
        added = True
    if conclusion is not None and conclusion.is_file() and "conclusion" not in record:
        sha = file_hash(conclusion)
        previous = rounds[-1]["digest"] if rounds else ""
        record["conclusion"] = {"file": conclusion.name, "sha256": sha, "digest": link(previous, {conclusion.name: sha})}
        added = True
    return added


OUTCOME = "outcome.md"  # what happened afterwards (`discuss resolve`), beside the conclusion


def with_outcome(record: dict[str, Any], outcome: Path) -> None:
    """Seal the outcome written afterwards onto the chain: its digest covers the record's head before it."""
    sha = file_hash(outcome)
    record["outcome"] = {"file": outcome.name, "sha256": sha, "digest": link(head(record) or "", {outcome.name: sha})}


def head(record: dict[str, Any] | None) -> str | None:
    """The last digest of the chain: what the whole record so far comes to."""
    if not record:
        return None
    if isinstance(record.get("outcome"), dict):
        return str(record["outcome"].get("digest"))
    if isinstance(record.get("conclusion"), dict):
        return str(record["conclusion"].get("digest"))
    rounds = record.get("rounds") or []
    return str(rounds[-1]["digest"]) if rounds else None


def broken(record: dict[str, Any], folder_of: Any, conclusion: Path) -> list[dict[str, Any]]:
    """Where the files on disk differ from the chain, first break first: each a finding (round, file, kind,
    before, after)."""
    found: list[dict[str, Any]] = []
    previous = ""
    for entry in record.get("rounds") or []:
        number, files = int(entry["round"]), dict(entry.get("files") or {})
        if link(previous, files) != entry.get("digest"):
            found.append({"round": number, "file": "discussion.yaml", "kind": "chain-edited",
                          "before": entry.get("digest"), "after": link(previous, files)})
        now = round_hashes(folder_of(number))
        for name in sorted(set(files) | set(now)):
            if files.get(name) != now.get(name):
                kind = "file-deleted" if name not in now else "file-added" if name not in files else "file-changed"
                found.append({"round": number, "file": f"round-{number}/{name}", "kind": kind,
                              "before": files.get(name), "after": now.get(name)})
        previous = str(entry.get("digest"))
    end = record.get("conclusion")
    if isinstance(end, dict):
        now_sha = file_hash(conclusion) if conclusion.is_file() else None
        if now_sha != end.get("sha256"):
            found.append({"round": None, "file": conclusion.name, "kind": "file-changed" if now_sha else "file-deleted",
                          "before": end.get("sha256"), "after": now_sha})
        if link(previous, {conclusion.name: str(end.get("sha256"))}) != end.get("digest"):
            found.append({"round": None, "file": "discussion.yaml", "kind": "chain-edited",
                          "before": end.get("digest"), "after": None})
        previous = str(end.get("digest"))
    return found + _outcome_broken(record.get("outcome"), previous, conclusion.parent / OUTCOME)


def _outcome_broken(entry: Any, previous: str, path: Path) -> list[dict[str, Any]]:
    """Where the outcome on disk differs from its entry, or the entry from the chain it hangs on."""
    if not isinstance(entry, dict):
        return []
    found: list[dict[str, Any]] = []
    now = file_hash(path) if path.is_file() else None
    if now != entry.get("sha256"):
        found.append({"round": None, "file": path.name, "kind": "file-changed" if now else "file-deleted",
                      "before": entry.get("sha256"), "after": now})
    if link(previous, {path.name: str(entry.get("sha256"))}) != entry.get("digest"):
        found.append({"round": None, "file": "discussion.yaml", "kind": "chain-edited", "before": entry.get("digest"),
                      "after": None})
    return found
