"""The council family's outcome recomputed from its record, for `discuss verify`: pure rules over the rounds.

- Every family member: the stages as the rules lay them out, each reply by
  a member the stage names in its role, each round's agreement (and every
  recorded pair) from its answers under the recorded measure, and the
  synthesis by the one the rule names (the chairman; adversarial: the
  converger; a debate without a chairman writes none).
- debate: every critique by a member who gave a position, on a peer's
  position, and the critic's reply is exactly its critiques.
- adversarial: one draft by the drafter, reviews by the reviewers only.
- auto: the route from the question's task type, the escalation from round
  1's agreement against `escalateBelow` (or the question's stakes), and then
  the check of the protocol it became.

The synthesis's text is the chairman's own and is not recomputed.
"""

from __future__ import annotations

from typing import Any

from discuss.plugin import Discussion, Question, checks

from .notes import notes
from .roles import HIGH_STAKES, REVIEW_TASKS, converger
from .settings import AutoSettings, DebateSettings

# The protocol (a `Staged` of the package) is handed in: its stages, mode and peer labels are its own rules.
Staged = Any


def recompute(protocol: Staged, d: Discussion, q: Question | None) -> list[dict[str, Any]]:
    found = _route(protocol, d, q)
    plan = protocol.stages(d)
    found += checks.stages(d, [s.name for s in plan])
    for r, stage in zip(d.rounds, plan):
        if not r.complete:
            continue
        found += checks.frame(r, checks.by_members([m.id for m in stage.members], stage.role), stage.name)
        ids = sorted(r.replies)
        found += checks.agreement(d, r, [r.replies[i].text for i in ids], [dict(p) for p in notes(r).get("similarity", [])], ids)
        if stage.name == "cross-examination":
            found += _critiques(protocol, d, r)
    mode = protocol.mode(d)
    if mode == "adversarial":
        found += checks.author(d, converger(d).id, "the converger judges the reviews")
    elif protocol.name == "debate" and not DebateSettings.of(d.settings).debate_chairman:
        found += checks.author(d, None, "debateChairman: false")
    else:
        found += checks.author(d, d.panel.chair.id, "the chairman synthesises")
    return found


def _critiques(protocol: Staged, d: Discussion, r: Any) -> list[dict[str, Any]]:
    """Who critiqued whom: members who gave a position, on peers' positions; each critic's reply is its critiques."""
    first = d.rounds[0].replies
    names = {m.id: m.name for m in d.panel.members}
    found = []
    mine: dict[str, dict[str, str]] = {}
    for c in notes(r).get("critiques", []):
        critic, target = c["critic"], c["target"]
        if critic not in first or target not in first or critic == target:
            found.append(checks.finding(r.number, f"round-{r.number}/round.yaml", "critique", f"{critic} -> {target}",
                                        None, f"round {r.number} records a critique by {critic} of {target}; "
                                        "only a member with a position critiques a peer's"))
        mine.setdefault(critic, {})[target] = c["critique"]
    for critic, reply in r.replies.items():
        order = protocol.peer_labels(d, r, critic)
        said = [(pid, mine.get(critic, {})[pid]) for pid in order.values() if pid in mine.get(critic, {})]
        text = "\n\n".join(f"## On the answer of {names.get(pid, pid)}\n\n{c}" for pid, c in said)
        if text.strip() != reply.text.strip():
            found.append(checks.finding(r.number, f"round-{r.number}/{critic}.md", "critique", None, None,
                                        f"round {r.number}: {critic}'s reply is not the critiques recorded as its"))
    return found


def _route(protocol: Staged, d: Discussion, q: Question | None) -> list[dict[str, Any]]:
    """auto: where the question was sent, and whether the council went on into a debate."""
    if protocol.name != "auto" or not d.rounds:
        return []
    first, where = d.rounds[0], "round-1/round.yaml"
    found = []
    route = notes(first).get("route")
    if route is not None and q is not None:
        review = (q.task_type or "").lower() in REVIEW_TASKS
        should = "adversarial" if review else "council"
        if route["protocol"] != should:
            found.append(checks.finding(1, where, "route", route["protocol"], should,
                                        f"auto records the route {route['protocol']}; the question's taskType "
                                        f"({q.task_type!r}) sends it to {should}"))
    escalation = notes(first).get("escalation")
    if escalation is None or protocol.mode(d) != "auto" or not first.complete:
        return found
    below = AutoSettings.of(d.settings).escalate_below
    disagree = first.agreement is not None and first.agreement < below
    high = q is not None and q.stakes == HIGH_STAKES
    if checks.differs(escalation.get("below"), below) or checks.differs(escalation.get("agreement"), first.agreement):
        found.append(checks.finding(1, where, "escalation", escalation.get("below"), below,
                                    "auto's escalation is recorded against figures other than round 1's "
                                    f"agreement ({first.agreement}) and escalateBelow ({below})"))
    should_debate = disagree or high or (q is None and bool(escalation.get("debate")) and "stakes" in
                                         str(escalation.get("reason")))
    if bool(escalation.get("debate")) != should_debate:
        found.append(checks.finding(1, where, "escalation", escalation.get("debate"), should_debate,
                                    f"auto records that the panel {'debates' if escalation.get('debate') else 'stops'}"
                                    f"; round 1's agreement {first.agreement} against {below}"
                                    + (" and the question's stakes" if q is not None else "")
                                    + f" say it {'debates' if should_debate else 'stops'}"))
    return found
