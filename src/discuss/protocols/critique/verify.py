"""The critique protocol's outcome recomputed from its record, for `discuss verify`: pure rules over the rounds.

Each round's replies by the members who had a position in the round
before (the first: everyone), its judge the one the rotation names, the
judge's score the mean of its three recorded axes, the convergence test
run again on the recorded figures (the judge's score, the answers' titles,
their agreement) against the recorded threshold, the stop (converged, or
the round count reached) at the round the rules give, and the attributed
answer by the synthesizer the rule names. The judge's axes and the
positions are models' texts and are not recomputed.
"""

from __future__ import annotations

from typing import Any

from discuss.plugin import Convergence, Discussion, Question, Round, agreement_test, checks, judge_test, title_overlap, titles

from .notes import notes
from .replies import AXES
from .roles import JUDGE, judge_of, positions, synthesizer_of
from .settings import CritiqueSettings


def recompute(d: Discussion, q: Question | None = None) -> list[dict[str, Any]]:
    own = CritiqueSettings.of(d.settings)
    found = checks.stages(d, ["answers", *["critique"] * (len(d.rounds) - 1)])
    stop: tuple[int, str] | None = None
    for r in d.rounds:
        if not r.complete:
            continue
        found += _frame(d, r)
        kept = positions(r)
        ids = sorted(kept)
        found += checks.agreement(d, r, [kept[pid].text for pid in ids])
        if r.number == 1:
            continue
        found += _judge(d, r)
        check = _convergence(d, r, own)
        if check is not None:
            found += _held(r, check)
            if stop is None and check["converged"]:
                stop = (r.number, "converged")
        if stop is None and (r.number - 1 >= own.critique_rounds or r.number >= d.settings.max_rounds):
            stop = (r.number, "max-rounds")
    found += _stop(d, stop)
    found += checks.author(d, synthesizer_of(d).id, "the synthesizer (else the chairman), who did not debate")
    return found


def _frame(d: Discussion, r: Round) -> list[dict[str, Any]]:
    role = "respondent" if r.number == 1 else "critic"
    allowed = [m.id for m in d.panel.members] if r.number == 1 else list(positions(d.rounds[r.number - 2]))
    expected = checks.by_members(allowed, role)
    if r.number > 1:
        judge = judge_of(d, r.number)
        expected[f"{JUDGE}-{judge.id}"] = (judge.id, JUDGE)
    return checks.frame(r, expected, r.stage or "critique")


def _judge(d: Discussion, r: Round) -> list[dict[str, Any]]:
    verdict = notes(r).get("judge")
    where = f"round-{r.number}/round.yaml"
    if verdict is None:
        return [checks.finding(r.number, where, "judge", None, judge_of(d, r.number).id,
                               f"round {r.number} records no judge's verdict")]
    found = []
    named = judge_of(d, r.number).id
    if verdict.get("judgeId") != named:
        found.append(checks.finding(r.number, where, "judge", verdict.get("judgeId"), named,
                                    f"round {r.number}'s judge is recorded as {verdict.get('judgeId')}; "
                                    f"the rotation names {named}"))
    axes = [v for v in (dict(verdict).get(a) for a in AXES) if isinstance(v, (int, float))]
    if verdict.get("score") is not None and len(axes) == len(AXES):
        mean = round(sum(float(a) for a in axes) / len(AXES), 4)
        if checks.differs(verdict.get("score"), mean):
            found.append(checks.finding(r.number, where, "judge-score", verdict.get("score"), mean,
                                        f"round {r.number}'s judge score is recorded as {verdict.get('score')}; "
                                        f"the judge's three axes give {mean}"))
    return found


def _convergence(d: Discussion, r: Round, own: CritiqueSettings) -> Convergence | None:
    test = own.convergence_test
    if test == "titles":
        before = positions(d.rounds[r.number - 2])
        return title_overlap(titles([x.text for x in before.values()]), titles([x.text for x in positions(r).values()]))
    if test == "agreement":
        return agreement_test(r.agreement, d.settings.consensus_at)
    return judge_test((notes(r).get("judge") or {}).get("score"), own.convergence_threshold)


def _held(r: Round, check: Convergence) -> list[dict[str, Any]]:
    recorded: dict[str, Any] | None = dict(notes(r).get("convergence") or {}) or None
    if recorded is None:
        return []
    keys = [k for k in ("test", "converged", "value", "threshold") if k in check]
    if any(checks.differs(recorded.get(k), check.get(k)) for k in keys):
        return [checks.finding(r.number, f"round-{r.number}/round.yaml", "convergence",
                               {k: recorded.get(k) for k in keys}, {k: check.get(k) for k in keys},
                               f"round {r.number} records its convergence test as "
                               f"{'passed' if recorded.get('converged') else 'not passed'}; its recorded figures "
                               f"under the recorded settings give {'passed' if check['converged'] else 'not passed'}")]
    return []


def _stop(d: Discussion, stop: tuple[int, str] | None) -> list[dict[str, Any]]:
    """The discussion stopped where the rules stop it, for the reason they give."""
    reason, last = d.termination_reason, (d.rounds[-1].number if d.rounds else 0)
    if stop is None:
        if reason not in ("converged", "max-rounds"):
            return []
        return [checks.finding(last, "discussion.yaml", "termination", reason, None,
                               f"the discussion records '{reason}' after round {last}; under the rules no round "
                               "so far stops it")]
    number, should = stop
    if last > number or (reason in ("converged", "max-rounds") and reason != should):
        return [checks.finding(number, "discussion.yaml", "termination", reason, should,
                               f"the discussion records '{reason}' after round {last}; the rules "
                               f"stop it after round {number} ('{should}')")]
    return []
