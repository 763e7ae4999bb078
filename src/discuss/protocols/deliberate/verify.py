"""The deliberate protocol's outcome recomputed from its record, for `discuss verify`: pure rules over the rounds.

From the rankings each persona recorded: every alternative's weighted mean,
the best one, each persona's preference and the dissenters; the threshold
from the recorded task type (and the question's, where it is at hand); both
gates and the conformity warnings; the stop (a failed gate closes the
discussion without a decision) and the decision by the chair. Triage: the
chair's confidence from its four ratings against `deliberateBelow`, and the
direct answer only where it reaches it. Who answers each stage is checked
(research by members, alternatives by the chair, rankings by those who
researched). The ratings and the texts are models' and are not recomputed.
"""

from __future__ import annotations

from typing import Any

from discuss.plugin import Discussion, Question, Round, checks

from .notes import notes
from .rules import confidence, conformity, consensus, dissenters, gate_one, gate_two, threshold
from .settings import DeliberateSettings
from .stages import ROLES, mean, participants, stage, stages


def recompute(d: Discussion, q: Question | None = None) -> list[dict[str, Any]]:
    names = list(stages(d))
    found = checks.stages(d, list(names))
    for r in d.rounds:
        if r.complete and r.stage in ROLES:
            found += checks.frame(r, checks.by_members([p.id for p in participants(d, r)], ROLES[r.stage]),
                                  r.stage)
    triage = next((r for r in d.rounds if r.stage == "triage" and r.complete), None)
    direct = triage is not None and _triage(d, triage, found)
    ranking = next((r for r in d.rounds if r.stage == "ranking" and r.complete), None)
    passed = ranking is not None and _ranking(d, ranking, q, found)
    if direct or passed:
        found += checks.author(d, d.panel.chair.id, "the chair writes the decision")
    elif d.conclusion is not None:
        found += checks.author(d, None, "a failed gate, or a deliberation not finished, writes no decision")
    return found


def _triage(d: Discussion, r: Round, found: list[dict[str, Any]]) -> bool:
    """Whether triage lets the chair answer alone; its findings added to `found`."""
    t = notes(r).get("triage")
    if t is None or not isinstance(t.get("scores"), dict):
        return False
    level, below = confidence(t["scores"]), DeliberateSettings.of(d.settings).deliberate_below
    go = level < below
    if checks.differs(t.get("confidence"), level) or checks.differs(t.get("below"), below) \
            or bool(t.get("deliberate")) != go:
        found.append(checks.finding(r.number, f"round-{r.number}/round.yaml", "triage",
                                    {k: dict(t).get(k) for k in ("confidence", "below", "deliberate")},
                                    {"confidence": level, "below": below, "deliberate": go},
                                    f"triage records confidence {t.get('confidence')} (deliberate: "
                                    f"{t.get('deliberate')}); the chair's ratings give {level} against {below} "
                                    f"(deliberate: {go})"))
    if (d.termination_reason == "confident") != (not go):
        found.append(checks.finding(r.number, "discussion.yaml", "termination", d.termination_reason,
                                    "confident" if not go else "deliberate",
                                    f"the discussion records '{d.termination_reason}'; triage's confidence {level} "
                                    f"against {below} says the panel {'deliberates' if go else 'need not'}"))
    return not go


def _ranking(d: Discussion, r: Round, q: Question | None, found: list[dict[str, Any]]) -> bool:
    """Whether both gates pass, from the recorded rankings; the findings added to `found`."""
    kept, where = notes(r), f"round-{r.number}/round.yaml"
    rankings = kept.get("rankings", {})
    recorded = kept.get("consensus")
    if recorded is None:
        return False
    result = consensus(rankings)
    task = recorded.get("taskType")
    if q is not None and (q.task_type or "default") != (task or "default"):
        found.append(checks.finding(r.number, where, "task-type", task, q.task_type,
                                    f"the ranking records task type {task!r}; the question's is {q.task_type!r}"))
    bar = threshold(task)
    persona_of = {pid: d.personas.get(pid, {}).get("id", pid) for pid in rankings}
    conflicts = {frozenset((a, b)) for a in rankings for b in rankings
                 if persona_of[b] in d.personas.get(a, {}).get("conflictsWith", [])}
    initial = mean(notes(stage(d, "research")).get("confidence", {}).values())
    final = mean(x["confidence"] for x in rankings.values())
    again = {"means": result["means"], "best": result["best"], "score": result["score"],
             "preferred": result["preferred"], "threshold": bar, "dissenters": dissenters(result),
             "initialConfidence": initial, "finalConfidence": final}
    for key, value in again.items():
        was = recorded.get(key)
        same = all(not checks.differs(was.get(k), value.get(k)) for k in set(was) | set(value)) \
            if isinstance(was, dict) and isinstance(value, dict) else not checks.differs(was, value)
        if not same:
            found.append(checks.finding(r.number, where, f"consensus-{key}", was, value,
                                        f"the ranking records {key} {was!r}; the personas' rankings give {value!r}"))
    reached = all(x.complete for x in d.rounds if x is not r) and bool(rankings)
    gates = {"gate1": gate_one(reached, rankings, result, bar, DeliberateSettings.of(d.settings).min_personas),
             "gate2": gate_two(rankings, persona_of, result, initial, final)}
    for name, gate in gates.items():
        if (kept.get(name) or {}).get("passed") != gate["passed"]:  # type: ignore[attr-defined]
            found.append(checks.finding(r.number, where, name, (kept.get(name) or {}).get("passed"),  # type: ignore[attr-defined]
                                        gate["passed"], f"{name} is recorded as "
                                        f"{'passed' if (kept.get(name) or {}).get('passed') else 'failed'}; "  # type: ignore[attr-defined]
                                        f"the rankings give {'passed' if gate['passed'] else 'failed'}"))
    if sorted(kept.get("conformity", [])) != sorted(conformity(rankings, result, conflicts)):
        found.append(checks.finding(r.number, where, "conformity", kept.get("conformity", []),
                                    conformity(rankings, result, conflicts),
                                    "the conformity warnings recorded are not those the rankings give"))
    passed = gates["gate1"]["passed"] and gates["gate2"]["passed"]
    if (d.termination_reason == "gate-failed") == passed:
        found.append(checks.finding(r.number, "discussion.yaml", "termination", d.termination_reason,
                                    "completed" if passed else "gate-failed",
                                    f"the discussion records '{d.termination_reason}'; the gates "
                                    f"{'pass' if passed else 'fail'} on the recorded rankings"))
    return passed
