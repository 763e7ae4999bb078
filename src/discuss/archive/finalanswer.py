"""The final answer of a protocol's discussion of an eval's item: what it gave, as the grader reads it.

A protocol arm's final answer is its last round's winning answer where its
rounds have winners, else its result's author's last answer, else its
conclusion. The eval records it in the discussion's index, so a reviewer of
the record sees what was graded without re-running the grader:

    finalAnswer: '42'            # the value read; null where nothing gradable was stated
    answerRead:
      rule: answer-line          # the extraction rule, the answer's kind, its closed list if any
      kind: number
      from: round-2/alpha.md     # the file whose text was read (conclusion.md where it was the conclusion)
      rounds:                    # each round's answers, member by member, as the same rule reads them
      - round: 1
        answers: {alpha: '42', beta: null}

`verify` reads the same files again under the recorded rule and names any
difference (`answer_findings`); the label is never recorded here (the eval's
set holds it), so the index says what was answered, not whether it was right.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..domain import Discussion
from ..protocols import get_protocol
from ..text.grading import RULES, read_answer


def final_source(d: Discussion) -> tuple[str, str | None]:
    """What a protocol arm answered in the end, and the file of the discussion it was read from."""
    protocol = get_protocol(d.protocol)
    for r in reversed(d.rounds):
        winner = protocol.figures.of_round(r).winner if r.complete else None
        if winner and winner in r.replies:
            return r.replies[winner].text, f"round-{r.number}/{winner}.md"
    if (pid := protocol.result_of(d)) is not None:
        said = [(r.number, r.replies[pid].text) for r in d.rounds if pid in r.replies]
        if said:
            return said[-1][1], f"round-{said[-1][0]}/{pid}.md"
    if d.conclusion is not None:
        return "\n".join([d.conclusion.summary, *d.conclusion.key_points]), "conclusion.md"
    return "", None


def final_text(d: Discussion) -> str:
    """What a protocol arm answered in the end, as a grader reads it."""
    return final_source(d)[0]


def answer_record(d: Discussion, kind: str, rule: str, choices: tuple[str, ...] = ()) -> dict[str, Any]:
    """The index's record of what `d` answered (see the module's docstring): {value, rule, kind, choices?, from,
    rounds}."""
    text, source = final_source(d)
    rounds = [{"round": r.number, "answers": {pid: read_answer(reply.text, kind, rule, choices)
                                              for pid, reply in sorted(r.replies.items())}}
              for r in d.rounds if r.complete and r.replies]
    return {"value": read_answer(text, kind, rule, choices), "rule": rule, "kind": kind,
            **({"choices": list(choices)} if choices else {}), "from": source, "rounds": rounds}


def answer_findings(d: Discussion, finding: Callable[..., dict[str, Any]]) -> list[dict[str, Any]]:
    """Where the final answer (and each round's answers) the index records differ from what the recorded rule
    reads in the files now: verify's check, each made by verify's `finding` (round, file, kind, before, after,
    message)."""
    recorded = d.answer
    if recorded is None:
        return []
    rule, kind = str(recorded.get("rule") or ""), str(recorded.get("kind") or "")
    if rule not in RULES or kind not in ("number", "choice", "text"):
        return [finding(None, "discussion.yaml", "final-answer", recorded.get("rule"), None,
                        f"the recorded final answer names a rule or kind the grader has not ({rule!r}, {kind!r}): "
                        "it cannot be read again")]
    choices = tuple(str(c) for c in recorded.get("choices") or [])
    again = answer_record(d, kind, rule, choices)
    found = []
    if recorded.get("value") != again["value"] or recorded.get("from") != again["from"]:
        found.append(finding(None, "discussion.yaml", "final-answer", recorded.get("value"), again["value"],
                             f"the recorded finalAnswer is {recorded.get('value')!r} (from {recorded.get('from')}), "
                             f"but the record's files state {again['value']!r} (from {again['from']}) under the "
                             f"{rule} rule"))
    was = {int(e["round"]): e.get("answers") for e in recorded.get("rounds") or []
           if isinstance(e, dict) and isinstance(e.get("round"), int)}
    for entry in again["rounds"]:
        if was.get(entry["round"]) != entry["answers"]:
            found.append(finding(entry["round"], "discussion.yaml", "final-answer", was.get(entry["round"]),
                                 entry["answers"], f"the answers recorded for round {entry['round']} are not what "
                                 f"its replies state under the {rule} rule"))
    return found


def answer_line(d: Discussion) -> str | None:
    """What `show` prints of the recorded final answer, or None where none is recorded."""
    if d.answer is None:
        return None
    value = d.answer.get("value")
    shown = "nothing gradable" if value is None else str(value)
    return f"Final answer: {shown} (read from {d.answer.get('from') or 'no answer'} by the {d.answer.get('rule')} rule)"
