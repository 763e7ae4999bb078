"""`discuss verify`: every recorded outcome recomputed from its files, the chain of digests walked, and with a
base ref, every round that existed there held to be unchanged. Values in, a report out.

History is read from git (`git diff --name-status BASE`, `git show BASE:path`):
rounds, replies, ballots and conclusions recorded at BASE must be as they
were; new rounds, discussions, follow-ups, trials, audits and people's forms
are fine. A round that was still open at BASE may be finished, but not have
its recorded replies rewritten.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..archive.evaluation import recompute
from ..archive.integrity import check, checked, finding
from ..archive.verdict import NoVerdict, Verdict
from ..archive.verdict import verdict as decided
from ..domain import Question
from ..errors import InputError
from ..store import discussions as store
from ..store import yamlio
from ..store.chain import OUTCOME, head
from ..store.documents import MAX_BYTES, read_text
from ..store.evalfolder import BOUND as EVAL_FILE
from ..store.evalfolder import REPORT
from ..store.layout import DISCUSSION_FILE, EVALS, Layout, confined, content_line
from ..store.questions import find_question, read_question
from ..text.naming import inside_project, leads_out, read_in_project
from .results import JSON, Result

ROUND_DIR = re.compile(r"^round-(\d+)$")


@dataclass
class RecordFinding(Result):
    """Something in a discussion's record that does not hold: where, what kind, what was and is there, in words."""

    question: str
    round: int | None
    file: str
    kind: str
    before: JSON
    after: JSON
    message: str


def _typed(found: dict[str, Any]) -> RecordFinding:
    """A finding as the checks word it (a dict, shared with the archive and the protocols), typed."""
    return RecordFinding(found["question"], found["round"], found["file"], found["kind"], found["before"],
                         found["after"], found["message"])


@dataclass
class RecordNote(Result):
    """What could not be checked in a discussion (no chain of digests, no recomputation)."""

    question: str
    note: str


@dataclass
class Verified(Result):
    """`discuss verify`: how many discussions were checked (against `base`, where given), and what was found."""

    discussions: int
    base: str | None
    findings: list[RecordFinding]
    notes: list[RecordNote]


def verify(layout: Layout, questions: list[str], base: str | None = None) -> Verified:
    """{discussions, findings: [{question, round, file, kind, before, after, message}], notes: [{question,
    note}]}; InputError for a question that is not one, a ref git does not know, or no git repository."""
    commit = _commit(layout.root, base) if base is not None else None
    folders = _folders(layout, questions)
    findings: list[dict[str, Any]] = []
    notes: list[dict[str, str]] = []
    evals = layout.root / EVALS
    contents = [layout.content, *([evals] if evals.is_dir() else [])]  # an eval's item discussions are records too
    for folder in _eval_folders(layout, questions):
        findings += _report_check(layout, folder)
    if commit is not None and (was := _content_at(layout, commit)) != layout.content:
        # Where the record lives is the base's to say: a pull request that points `content:` elsewhere moves
        # (or hides) the record, and the base's folder is checked all the same.
        findings.append(_moved(layout, was))
        contents.append(was)
        if not questions:
            folders = sorted(set(folders) | {p.parent for p in was.rglob(DISCUSSION_FILE) if p.is_file()})
    for folder in folders:
        name = _shown(folder, contents, layout.root)
        try:
            d = store.load(folder)
            index = yamlio.load(read_text(folder / DISCUSSION_FILE), written=True)
        except (InputError, ValueError, OSError) as exc:
            findings.append({"question": name, **finding(None, DISCUSSION_FILE, "unreadable", None, None, str(exc))})
            continue
        if d is None:
            continue
        q = question_beside(folder)
        found, said = check(d, folder, index if isinstance(index, dict) else {}, q)
        findings += [{"question": name, **f} for f in found]
        notes += [{"question": name, "note": n} for n in said]
    typed = [_typed(f) for f in findings]
    if commit is not None:
        seen = {(f.question, f.kind) for f in typed}
        typed += [f for f in history(layout, commit, {f.relative_to(layout.root).as_posix() for f in folders}
                                     if questions else None, contents)
                  if (f.question, f.kind) not in seen]
    return Verified(len(folders), base, typed, [RecordNote(n["question"], n["note"]) for n in notes])


def _eval_folders(layout: Layout, questions: list[str]) -> list[Path]:
    """The evals to check: those named by a path under evals/, or every one where no question is named."""
    evals = layout.root / EVALS
    if not evals.is_dir():
        return []
    if not questions:
        return sorted(p.parent for p in evals.glob(f"*/{EVAL_FILE}") if p.is_file())
    named = [confined(Path(q), evals) for q in questions if _under(layout, q)]
    # A path under an eval names that eval (its folder holds eval.yaml).
    return sorted({next(f for f in [p, *p.parents] if (f / EVAL_FILE).is_file() or f == evals) for p in named} - {evals})


def _under(layout: Layout, given: str) -> bool:
    """Whether a question given to verify is a path under the project's evals/ folder."""
    path = Path(given) if Path(given).is_absolute() else Path.cwd() / given
    return path.resolve().is_relative_to((layout.root / EVALS).resolve())


def _report_check(layout: Layout, folder: Path) -> list[dict[str, Any]]:
    """An eval's report.yaml against its figures recomputed from its items' files under the settings eval.yaml
    records: each figure that differs is a finding."""
    name = folder.relative_to(layout.root).as_posix()
    try:
        again = recompute(layout.root, folder)
        text = _file(folder / REPORT)
        report = yamlio.load(text) if text is not None else None
    except (InputError, ValueError, OSError, KeyError, TypeError) as exc:
        return [{"question": name, **finding(None, REPORT, "eval-unreadable", None, None, str(exc))}]
    if again is None or not isinstance(report, dict):
        return []
    differ = sorted(k for k in again if again[k] != report.get(k))
    return [{"question": name, **finding(None, REPORT, "eval-report", None, None,
                                         f"{key}: report.yaml does not say what the items' files give; "
                                         "`discuss eval` writes it again from them")} for key in differ]


def _shown(folder: Path, contents: list[Path], root: Path) -> str:
    """A discussion's name in findings: its path under the content folder it lies in."""
    top = next((c for c in contents if folder.is_relative_to(c)), root)
    return folder.relative_to(top).as_posix()


def _content_at(layout: Layout, commit: str) -> Path:
    """The content folder the base's panel file names (its `content:` line; content/ without one)."""
    top = Path(_git(layout.root, "rev-parse", "--show-toplevel").stdout.decode().strip())
    panels = layout.panels.resolve().relative_to(top.resolve()).as_posix()
    text = _text_at(top, commit, panels)
    folder = content_line(text) if text is not None else None
    return layout.root / folder if folder is not None and inside_project(folder) else layout.root / "content"


def _moved(layout: Layout, was: Path) -> dict[str, Any]:
    panels = layout.panels.relative_to(layout.root).as_posix()
    before, after = was.relative_to(layout.root).as_posix(), layout.content.relative_to(layout.root).as_posix()
    return {"question": panels, **finding(None, panels, "content-moved", before, after,
                                          f"the record lives in {before}/ at the base; this change points the "
                                          f"panel file's content: at {after}/ (the base's folder is checked)")}


def question_beside(folder: Path) -> Question | None:
    """The question file beside a discussion folder, as read now; None where there is none (a trial's) or it
    cannot be read (a finding of `check`, not of the record)."""
    path = folder.with_suffix(".md")
    if not path.is_file() or leads_out(path) is not None:
        return None
    try:
        return read_question(path)
    except (InputError, ValueError, OSError):
        return None


def verdict(layout: Layout, question: str) -> Verdict | NoVerdict:
    """`discuss verdict --json`: the question's outcome as a decision (see `archive/verdict.py`), with whether
    its record holds under the checks `verify` runs without a base (its findings where it does not)."""
    q = find_question(layout.content, question)
    d = store.load(q.folder)
    if d is None:
        return decided(q, None, None)
    return decided(q, d, head(d.record), *checked(d, q.folder, q))


def _folders(layout: Layout, questions: list[str]) -> list[Path]:
    """The discussion folders to check: those of the questions named (with their follow-ups and trials), or
    every one under the content folder."""
    evals = layout.root / EVALS
    tops = [confined(Path(q), evals) if _under(layout, q) else find_question(layout.content, q).folder
            for q in questions] or [layout.content, *([evals] if evals.is_dir() else [])]
    found = []
    for top in tops:
        found += sorted(p.parent for p in top.rglob(DISCUSSION_FILE) if p.is_file())
    return sorted(set(found))


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=120)
    except FileNotFoundError:
        raise InputError("--base needs git, which is not installed here") from None


def _commit(root: Path, ref: str) -> str:
    if _git(root, "rev-parse", "--is-inside-work-tree").returncode != 0:
        raise InputError(f"--base {ref}: {root.name or root} is not in a git repository")
    if ref.startswith("-") or not ref.strip():
        raise InputError(f"--base {ref!r}: give a git ref, such as origin/main")
    done = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if done.returncode != 0:
        raise InputError(f"--base {ref}: git knows no such commit or branch (fetch it first?)")
    return done.stdout.decode().strip()


def history(layout: Layout, commit: str, within: set[str] | None,
            contents: list[Path] | None = None) -> list[RecordFinding]:
    """Every file recorded at `commit` under the content folders (the working tree's and the base's) that the
    working tree changed or deleted, where that breaks the record (see the module's docstring)."""
    return [_typed(f) for f in _history(layout, commit, within, contents)]


def _history(layout: Layout, commit: str, within: set[str] | None,
             contents: list[Path] | None = None) -> list[dict[str, Any]]:
    top = _git(layout.root, "rev-parse", "--show-toplevel").stdout.decode().strip()
    prefixes = [Path(c).resolve().relative_to(Path(top).resolve()).as_posix() for c in contents or [layout.content]]
    done = _git(Path(top), "diff", "--no-renames", "--name-status", "-z", commit, "--", *prefixes)
    fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    changes = [(fields[i], fields[i + 1]) for i in range(0, len(fields) - 1, 2) if fields[i] in ("M", "D", "T")]
    base_index: dict[str, dict[str, Any] | None] = {}
    found: list[dict[str, Any]] = []
    for status, path in changes:
        folder, kind, number = _place(path)
        if folder is None or (within is not None and not any(folder == w or folder.startswith(w + "/")
                                                             for w in _relative(layout, top, within))):
            continue
        before = base_index.setdefault(folder, _index_at(Path(top), commit, f"{folder}/{DISCUSSION_FILE}"))
        if before is None:
            continue  # no discussion there at the base: nothing recorded to keep
        prefix = next((p for p in prefixes if folder.startswith(p + "/")), "")
        shown = folder[len(prefix) + 1:] if prefix else folder
        found += [f | {"question": shown} for f in _judged(Path(top), commit, folder, kind, number, status, path,
                                                            before)]
    return found


def _relative(layout: Layout, top: str, folders: set[str]) -> set[str]:
    root = layout.root.resolve().relative_to(Path(top).resolve()).as_posix()
    return {f if root == "." else f"{root}/{f}" for f in folders}


def _place(path: str) -> tuple[str | None, str, int | None]:
    """The discussion folder a changed file belongs to, what it is there, and its round."""
    parts = path.split("/")
    if parts[-1] == DISCUSSION_FILE:
        return "/".join(parts[:-1]), "index", None
    if parts[-1] in ("conclusion.md", OUTCOME):
        return "/".join(parts[:-1]), parts[-1].removesuffix(".md"), None
    if len(parts) >= 3 and (m := ROUND_DIR.match(parts[-2])) and parts[-3] not in ("audit",):
        return "/".join(parts[:-2]), "round", int(m.group(1))
    return None, "", None


def _index_at(top: Path, commit: str, path: str) -> dict[str, Any] | None:
    done = _git(top, "show", f"{commit}:{path}")
    if done.returncode != 0:
        return None
    try:
        data = yamlio.load(done.stdout.decode("utf-8", "replace"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _closed(before: dict[str, Any], number: int | None) -> bool:
    """Whether round `number` had closed at the base (a Project Dyson thread's rounds all have, once listed)."""
    entry = next((r for r in before.get("rounds") or [] if isinstance(r, dict)
                  and r.get("roundNumber") == number), None)
    return entry is not None and (bool(entry.get("completedAt")) or "dyson" in before
                                  or before.get("status") in ("concluded", "closed"))


def _judged(top: Path, commit: str, folder: str, kind: str, number: int | None, status: str, path: str,
            before: dict[str, Any]) -> list[dict[str, Any]]:
    question = folder
    name = path[len(folder) + 1:]
    gone = status == "D"
    if kind == "conclusion":
        was, now = _author(_text_at(top, commit, path)), _author(_file(top / path))
        detail = f" (its author: {was} -> {now})" if was != now and not gone else ""
        return [{"question": question, **finding(None, name, "conclusion-deleted" if gone else "conclusion-changed",
                                                 was, None if gone else now,
                                                 f"the conclusion recorded at the base was {'deleted' if gone else 'rewritten'}"
                                                 + detail)}]
    if kind == "outcome":
        return [{"question": question, **finding(None, name, f"outcome-{'deleted' if gone else 'changed'}", None, None,
                                                 f"the outcome recorded at the base was {'deleted' if gone else 'rewritten'}")}]
    if kind == "round":
        if not _closed(before, number) and not (name.endswith(".md") and "/" in name):
            return []  # a round open at the base may be finished; its recorded replies may not change
        if name.endswith("votes.yaml") and not gone:
            return [{"question": question, **f} for f in _ballots(top, commit, path, number)] or [
                {"question": question, **finding(number, name, "ballot-changed", None, None,
                                                 f"round {number}'s ballots were rewritten")}]
        what = "reply" if name.endswith(".md") else "file"
        return [{"question": question, **finding(number, name, f"{what}-deleted" if gone else f"{what}-changed",
                                                 None, None, f"round {number}'s {name.rsplit('/', 1)[-1]} was "
                                                 + ("deleted" if gone else "changed") + " after it was recorded")}]
    if gone:
        return [{"question": question, **finding(None, name, "discussion-deleted", None, None,
                                                 "the discussion's index was deleted")}]
    return [{"question": question, **f} for f in _index_changes(_index_now(top / path), before)]


def _index_now(path: Path) -> dict[str, Any]:
    try:
        data = yamlio.load(_file(path) or "")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _index_changes(now: dict[str, Any], before: dict[str, Any]) -> list[dict[str, Any]]:
    """Rounds closed at the base, their chain entries and the conclusion, as the index records them now."""
    found = []
    current = {r.get("roundNumber"): r for r in now.get("rounds") or [] if isinstance(r, dict)}
    for entry in before.get("rounds") or []:
        if not isinstance(entry, dict) or not _closed(before, entry.get("roundNumber")):
            continue
        number = entry.get("roundNumber")
        later = current.get(number)
        if later is None:
            found.append(finding(number, DISCUSSION_FILE, "round-deleted", number, None,
                                 f"round {number}, recorded at the base, is gone from the index"))
            continue
        for key in sorted(set(entry) | set(later)):
            if entry.get(key) != later.get(key):
                found.append(finding(number, DISCUSSION_FILE, f"index-{key}", entry.get(key), later.get(key),
                                     f"round {number}'s {key} was {entry.get(key)!r} at the base, "
                                     f"now {later.get(key)!r}"))
    was_chain, chain = (before.get("record") or {}).get("rounds") or [], (now.get("record") or {}).get("rounds") or []
    if was_chain and chain[:len(was_chain)] != was_chain:
        found.append(finding(None, DISCUSSION_FILE, "chain-rewritten", None, None,
                             "the chain of digests recorded at the base was rewritten"))
    found += _bindings(now, before)
    if isinstance(before.get("conclusion"), dict) and before.get("conclusion") != now.get("conclusion"):
        found.append(finding(None, DISCUSSION_FILE, "index-conclusion", before["conclusion"], now.get("conclusion"),
                             "the conclusion's entry in the index changed"))
    return found


# What a recorded discussion is bound to, as its index keeps it: never rewritten once a round was recorded.
BOUND = {"panel": "the panel recorded", "sources": "the sources and their sha256", "protocol": "the protocol",
         "questionTitle": "the question's title"}


def _bindings(now: dict[str, Any], before: dict[str, Any]) -> list[dict[str, Any]]:
    """The panel, sources, protocol and question a discussion recorded at the base, as its index says now."""
    if not (before.get("record") or {}).get("rounds") and not before.get("rounds"):
        return []  # nothing was answered yet at the base
    found = []
    for key, what in BOUND.items():
        if key in before and before.get(key) != now.get(key):
            found.append(finding(None, DISCUSSION_FILE, f"{key}-rebound", before.get(key), now.get(key),
                                 f"{what} at the base {_changed_in(before.get(key), now.get(key))}"))
    was, is_now = (before.get("record") or {}).get("question"), (now.get("record") or {}).get("question")
    if was and was != is_now:
        found.append(finding(None, DISCUSSION_FILE, "question-rebound", was, is_now,
                             "the digest of the question the recorded rounds answered was rewritten"))
    return found


def _changed_in(before: Any, after: Any) -> str:
    """How a bound value changed, in words: the entries (members, sources) that differ, by their id or label."""
    def entries(value: Any) -> dict[str, Any]:
        items = value.get("members") if isinstance(value, dict) else value
        return {str(e.get("id") or e.get("label") or e.get("path") or i): e
                for i, e in enumerate(items or []) if isinstance(e, dict)} if isinstance(items, list) else {}

    old, new = entries(before), entries(after)
    named = [f"{k}: {old.get(k)} -> {new.get(k)}" for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    return ("was rewritten (" + "; ".join(named)[:400] + ")") if named else f"was rewritten ({before!r} -> {after!r})"


def _ballots(top: Path, commit: str, path: str, number: int | None) -> list[dict[str, Any]]:
    """Each vote of a votes.yaml whose value or reason changed since the base."""
    try:
        was = yamlio.load(_text_at(top, commit, path) or "") or {}
        now = yamlio.load(_file(top / path) or "") or {}
    except ValueError:
        return []
    found = []
    for key, label in (("votes", "vote"), ("terminationVotes", "termination vote")):
        old, new = _by_voter(was, key), _by_voter(now, key)
        for who in sorted(set(old) | set(new)):
            a, b = old.get(who), new.get(who)
            if a == b:
                continue
            field = next((f for f in ("vote", "reasoning") if (a or {}).get(f) != (b or {}).get(f)), "vote")
            voter, target = who
            found.append(finding(number, path.rsplit("/", 2)[-2] + "/votes.yaml", f"{label.replace(' ', '-')}-{field}",
                                 (a or {}).get(field), (b or {}).get(field),
                                 f"round {number}: {voter}'s {label}" + (f" on {target}" if target else "")
                                 + f" changed its {field}"))
    return found


def _by_voter(data: Any, key: str) -> dict[tuple[str, str], dict[str, Any]]:
    """A votes.yaml's votes (or termination votes) by (voter, target)."""
    votes = data.get(key) if isinstance(data, dict) else None
    return {(str(v.get("voterId") or v.get("modelId")), str(v.get("targetId") or "")): v
            for v in votes or [] if isinstance(v, dict)}


def _text_at(top: Path, commit: str, path: str) -> str | None:
    done = _git(top, "show", f"{commit}:{path}")
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def _file(path: Path) -> str | None:
    """The file's text now; None where it is gone, or a link out of the project (never read)."""
    try:
        return read_in_project(path, MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


def _author(text: str | None) -> str | None:
    found = re.search(r"^generatedBy:\s*['\"]?([^'\"\n]+)", text or "", re.M)
    return found.group(1).strip() if found else None
