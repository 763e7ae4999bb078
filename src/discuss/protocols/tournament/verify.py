"""The tournament's outcome recomputed from its record, for `discuss verify`: pure rules over the bracket.

The bracket drawn again from round 1's answers and the seed, each later
round's pairs and byes from the winners before it, each match judged by the
judge the rules name (in neither side), shown in the order the seed gives,
its winner one of its two sides, the arguments by the two sides only, and
the champion the last answer standing. Which side a judge preferred is the
judge's own choice, not recomputed; a winner that is no side, or a champion
who lost, is caught.
"""

from __future__ import annotations

import random
from typing import Any

from discuss.plugin import Discussion, Question, Round, checks

from .notes import notes
from .roles import DEBATER, JUDGE, argument_key, judge_of


def recompute(d: Discussion, q: Question | None = None) -> list[dict[str, Any]]:
    found = checks.stages(d, ["answers", *["matches"] * (len(d.rounds) - 1)])
    if d.rounds and d.rounds[0].complete:
        found += checks.frame(d.rounds[0], checks.by_members([m.id for m in d.panel.members],
                                                             "respondent"), "answers")
    alive: list[str] = []
    for r in d.rounds:
        if not r.complete:
            break
        if r.number == 1:
            alive = sorted(r.replies)
            random.Random(f"{d.seed_key}:bracket").shuffle(alive)
        else:
            found += _matches(d, r, alive)
            alive = [str(m["winner"]) for m in notes(r).get("matches", [])] + list(notes(r).get("byes", []))
    champions = [(r.number, notes(r)["champion"]) for r in d.rounds if notes(r).get("champion")]
    should = alive[0] if len(alive) == 1 and d.termination_reason != "no-valid-verdict" else None
    recorded = champions[-1][1] if champions else None
    if len(champions) > 1 or recorded != should and (recorded is not None or d.status == "concluded"):
        found.append(checks.finding(champions[-1][0] if champions else None, "round.yaml", "champion", recorded,
                                    should, f"the champion is recorded as {recorded}; the bracket's matches "
                                    f"leave {should}"))
    return found


def _matches(d: Discussion, r: Round, alive: list[str]) -> list[dict[str, Any]]:
    where = f"round-{r.number}/round.yaml"
    matches = notes(r).get("matches", [])
    found = []
    pairs = [(m["a"], m["b"]) for m in matches]
    if pairs != list(zip(alive[::2], alive[1::2])) or list(notes(r).get("byes", [])) != alive[len(alive) - len(alive) % 2:]:
        found.append(checks.finding(r.number, where, "bracket", pairs, list(zip(alive[::2], alive[1::2])),
                                    f"round {r.number}'s pairs and byes are not those the rounds before it leave"))
    expected: dict[str, tuple[str, str]] = {}
    for i, m in enumerate(matches):
        judge = judge_of(d, r, i)
        expected[f"match-{i + 1}"] = (judge.id, JUDGE)
        for side in (m["a"], m["b"]):
            expected[argument_key(i, side)] = (side, DEBATER)
        if m["winner"] is not None and m["winner"] not in (m["a"], m["b"]):
            found.append(checks.finding(r.number, where, "match-winner", m["winner"], None,
                                        f"round {r.number}, match {i + 1}: the winner {m['winner']} is neither side "
                                        f"({m['a']}, {m['b']})"))
        if m["winner"] is not None and f"match-{i + 1}" not in r.replies:
            found.append(checks.finding(r.number, where, "match-winner", m["winner"], None,
                                        f"round {r.number}, match {i + 1} records a winner with no judgement"))
        first = m["b"] if random.Random(f"{d.seed_key}:{r.number}:{i}").random() < 0.5 else m["a"]
        if "shownFirst" in m and m["shownFirst"] != first:
            found.append(checks.finding(r.number, where, "match-order", m["shownFirst"], first,
                                        f"round {r.number}, match {i + 1}: {m['shownFirst']} is recorded as shown "
                                        f"first; the seed shows {first} first"))
    return found + checks.frame(r, expected, "matches")
