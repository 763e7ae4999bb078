"""The decomposition's outcome recomputed from its record, for `discuss verify`: pure rules over its two rounds.

The split by the splitter the settings name, the parts recorded as the
splitter's reply lists them, each part assigned in turn to the members who
did not split and answered by its assignee, and the reassembled answer by
the splitter. The parts' and the answer's texts are models' and are not
recomputed.
"""

from __future__ import annotations

from typing import Any

from discuss.plugin import Discussion, Question, checks

from .notes import notes
from .roles import splitter


def recompute(d: Discussion, q: Question | None = None) -> list[dict[str, Any]]:
    found = checks.stages(d, ["split", "parts"])
    lead = splitter(d)
    helpers = [m.id for m in d.panel.members if m.id != lead.id] or [lead.id]
    split = d.rounds[0] if d.rounds and d.rounds[0].complete else None
    if split is not None:
        found += checks.frame(split, {lead.id: (lead.id, "splitter")}, "split")
        parts = notes(split).get("parts", [])
        listed = "\n".join(f"## {p['title']}\n\n{p['question']}\n" for p in parts)
        reply = split.replies.get(lead.id)
        if reply is not None and reply.text.strip() != listed.strip():
            found.append(checks.finding(1, "round-1/round.yaml", "parts", None, None,
                                        "the parts recorded are not those the splitter's reply lists"))
    answered = d.rounds[1] if len(d.rounds) > 1 and d.rounds[1].complete else None
    if split is not None and answered is not None:
        given = notes(answered).get("parts", [])
        should = [{**p, "assignee": helpers[i % len(helpers)]} for i, p in enumerate(notes(split).get("parts", []))]
        if [dict(p) for p in given] != should:
            found.append(checks.finding(2, "round-2/round.yaml", "assignment", [p.get("assignee") for p in given],
                                        [p["assignee"] for p in should],
                                        "round 2's parts or their assignees are not the split's, assigned in turn"))
        found += checks.frame(answered, {f"part-{i + 1}": (str(p["assignee"]), "part") for i, p in enumerate(should)},
                              "parts")
    found += checks.author(d, lead.id, "the splitter reassembles")
    return found
