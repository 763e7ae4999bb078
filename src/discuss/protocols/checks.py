"""Checks several protocols' recomputations share (`Figures.recompute`, for `discuss verify`): pure, over a
discussion as loaded.

Each returns findings, {round, file, kind, before, after, message}: what is
recorded (`before`) and what the record's own inputs give (`after`). What a
model wrote freely cannot be recomputed; its frame can: who may write it (the
member a stage names, with the role it names) and from which round.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..domain import Discussion, Round
from ..rules.agreement import agreement as mean_of
from ..rules.agreement import measure, pairwise

TOLERANCE = 1e-4  # figures are recorded rounded to 4 places


def finding(number: int | None, file: str, kind: str, before: Any, after: Any, message: str) -> dict[str, Any]:
    return {"round": number, "file": file, "kind": kind, "before": before, "after": after, "message": message}


def differs(a: Any, b: Any) -> bool:
    """Two recorded figures differ beyond their rounding (numbers), or at all (anything else)."""
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
    return abs(float(a) - float(b)) > TOLERANCE if numbers else a != b


def agreement(d: Discussion, r: Round, texts: Iterable[str], pairs: list[dict[str, Any]] | None = None,
              ids: list[str] | None = None) -> list[dict[str, Any]]:
    """Round `r`'s recorded agreement (and each recorded pair, `pairs` over `ids` in order) against its answers'
    texts under the recorded measure; where that measure cannot run here (an embedding model not installed),
    the agreement is held to the mean of the recorded pairs."""
    found: list[dict[str, Any]] = []
    texts = list(texts)
    try:
        similarity = measure(d.settings.agreement_measure)
    except ValueError:
        similarity = None
    if similarity is not None:
        again = mean_of(texts, similarity)
        if r.agreement is not None and again is not None and differs(r.agreement, again) \
                or (r.agreement is None) != (again is None):
            found.append(finding(r.number, "discussion.yaml", "agreement", r.agreement, again,
                                 f"round {r.number} records agreement {r.agreement}; its answers give {again}"))
        if pairs is not None and ids is not None:
            by_id = {i: t for i, t in zip(ids, texts)}
            for pair in pairs:
                a, b = str(pair.get("a")), str(pair.get("b"))
                if a in by_id and b in by_id and differs(pair.get("score"), round(pairwise([by_id[a], by_id[b]],
                                                                                           similarity)[0], 4)):
                    found.append(finding(r.number, f"round-{r.number}/round.yaml", "similarity", pair.get("score"),
                                         None, f"round {r.number}: the similarity of {a} and {b} is not what "
                                         "their answers give"))
    elif pairs and r.agreement is not None:
        mean = round(sum(float(p.get("score") or 0) for p in pairs) / len(pairs), 4)
        if differs(r.agreement, mean):
            found.append(finding(r.number, "discussion.yaml", "agreement", r.agreement, mean,
                                 f"round {r.number} records agreement {r.agreement}; its recorded pairs give {mean}"))
    return found


def frame(r: Round, expected: dict[str, tuple[str, str]], what: str) -> list[dict[str, Any]]:
    """Each reply of round `r` written by whom and in what role the rules say: `expected` maps a reply's key to
    (the member who writes it, its role); a reply the stage has no place for, or by another, is a finding."""
    found = []
    for key, reply in sorted(r.replies.items()):
        where = f"round-{r.number}/{key}.md"
        if key not in expected:
            found.append(finding(r.number, where, "reply-unexpected", key, None,
                                 f"round {r.number} ({what}) holds a reply by {key}, who has no part in it"))
            continue
        author, role = expected[key]
        if reply.model_id != author or reply.role != role:
            found.append(finding(r.number, where, "reply-author", f"{reply.model_id} ({reply.role})",
                                 f"{author} ({role})", f"round {r.number}: {key}'s reply is recorded as by "
                                 f"{reply.model_id} ({reply.role}); the rules give it to {author} ({role})"))
    return found


def by_members(members: Iterable[str], role: str) -> dict[str, tuple[str, str]]:
    """The usual frame: each member answers under its own id, in the stage's role."""
    return {m: (m, role) for m in members}


def author(d: Discussion, expected: str | None, rule: str) -> list[dict[str, Any]]:
    """The conclusion written by the one the rule names (None: the rules write no conclusion)."""
    c = d.conclusion
    if c is None:
        return []
    if expected is None:
        return [finding(None, "conclusion.md", "conclusion-author", c.generated_by, None,
                        f"a conclusion by {c.generated_by} is recorded where the rules write none ({rule})")]
    if c.generated_by != expected:
        return [finding(None, "conclusion.md", "conclusion-author", c.generated_by, expected,
                        f"the conclusion is by {c.generated_by}; the rule ({rule}) names {expected}")]
    return []


def stages(d: Discussion, names: list[str | None]) -> list[dict[str, Any]]:
    """The rounds' stages, in order, as the rules lay them out (`names`, from what the record decided)."""
    found = []
    for r, name in zip(d.rounds, names):
        if r.stage != name:
            found.append(finding(r.number, "discussion.yaml", "stage", r.stage, name,
                                 f"round {r.number} is recorded as {r.stage!r}; the rules make it {name!r}"))
    if len(d.rounds) > len(names):
        extra = [r.number for r in d.rounds[len(names):]]
        found.append(finding(extra[0], "discussion.yaml", "stage", len(d.rounds), len(names),
                             f"round(s) {', '.join(map(str, extra))} are recorded where the rules hold no more"))
    elif d.status == "concluded" and len(d.rounds) < len(names) and d.termination_reason == "completed":
        found.append(finding(None, "discussion.yaml", "termination", len(d.rounds), len(names),
                             f"the discussion concluded after {len(d.rounds)} round(s); its rules hold {len(names)}"))
    return found


def complete(d: Discussion) -> list[Round]:
    return [r for r in d.rounds if r.complete]

