"""A discussion's outcome as a decision an agent or a CI gate can act on: pure, from the record alone.

- `decision`: where the question asks for one (front matter `decision:
  yes-no`, or a list of options), the option the conclusion's author gave in
  its structured reply; `unclear` where it gave none, or where the panel
  split or the record is degraded (below).
- `confidence`: never asked of a model. The protocol's figure where it has
  ballots (the vote: the share of the other panelists' votes on the final
  winner that approve it), else the agreement of the last round's answers,
  else none.
- `dissent`: recorded text only, verbatim, with who wrote it: the protocol's
  (the vote: each reason given for rejecting the final winner) and the
  conclusion's minority positions as recorded.
- `degraded`: failed calls, replies cut at the length cap, abstentions, and
  members with no answer in the last round.

The decision is `unclear` when confidence is below `SPLIT` (the panel split),
when more than `MOST_FAILED` of the calls failed, or when more than
`MOST_MISSING` of the members gave no answer in the last round.

- `verified`: whether the record holds under `discuss verify`'s checks (the
  protocol's recomputation, the chain, the sources, the question): false with
  the `findings` where it does not, and then the decision is `unverified` and
  no confidence is given (a forged record's figures are no one's); null where
  the protocol offers no recomputation (not known to hold, said in `notes`).
"""

from __future__ import annotations

from typing import Any

from ..domain import Discussion, Question
from ..protocols import get_protocol
from .integrity import held

SPLIT = 0.5
MOST_FAILED = 0.25
MOST_MISSING = 1 / 3
UNCLEAR = "unclear"
UNVERIFIED = "unverified"


def degraded(d: Discussion) -> dict[str, Any]:
    figures = get_protocol(d.protocol).figures
    last = next((r for r in reversed(d.rounds) if r.complete and r.replies), None)
    answered = set(last.replies) if last else set()
    return {
        "failedCalls": sum(len(r.failures) for r in d.rounds),
        "cutReplies": sum(1 for r in d.rounds for x in r.replies.values()
                          if x.cut_from is not None or x.finish_reason == "length"),
        "abstentions": sum(figures.abstained(r) for r in d.rounds),
        "missingMembers": sorted(m for m in d.panel.ids if last is not None and m not in answered),
    }


def confidence(d: Discussion) -> float | None:
    found = get_protocol(d.protocol).figures.confidence(d)
    if found is not None:
        return round(found, 4)
    last = next((r for r in reversed(d.rounds) if r.complete and r.agreement is not None), None)
    return None if last is None else round(float(last.agreement or 0.0), 4)


def dissent(d: Discussion) -> list[dict[str, Any]]:
    """Each dissent as recorded, with who holds it named one way: `panelist` the member's id (None where the
    conclusion names no member of the panel), `name` as the panel calls them (else as written), `simulated`
    whether a stand-in wrote it, and `text` verbatim."""
    found = [(x["panelist"], x["text"]) for x in get_protocol(d.protocol).figures.dissent(d)]
    if d.conclusion is not None:
        found += [(m.held_by, m.position) for m in d.conclusion.minority_positions if m.position.strip()]
    members = {key: m for m in d.panel.everyone for key in (_plain(m.id), _plain(m.name))}
    out = []
    for ref, text in found:
        m = members.get(_plain(ref))
        out.append({"panelist": m.id if m else None, "name": m.name if m else ref,
                    "simulated": m.simulated if m else None, "text": text})
    return out


def _plain(name: str) -> str:
    """A member's id or name as a conclusion may write it: case, spacing and a stand-in's mark aside."""
    return " ".join(str(name).casefold().replace("(simulated)", "").split())


def verdict(q: Question, d: Discussion | None, digest: str | None, findings: list[dict[str, Any]] | None = None,
            notes: list[str] | None = None) -> dict[str, Any]:
    """What `discuss verdict --json` and the MCP tool give for question `q` and its discussion `d`; `findings`
    and `notes`, what `verify`'s checks said of its record."""
    base = {"question": q.title, "slug": q.slug, "uri": f"discussion://{q.slug}", "recordDigest": digest}
    if d is None:
        return base | {"status": "not started", "decision": None, "confidence": None, "conclusion": None,
                       "dissent": [], "members": [], "degraded": None, "protocol": None, "rounds": 0,
                       "verified": None, "findings": [], "notes": []}
    shown = degraded(d)
    sure = confidence(d)
    calls = max(d.usage.calls + shown["failedCalls"], 1)
    unsure = (sure is not None and sure < SPLIT) or shown["failedCalls"] / calls > MOST_FAILED \
        or len(shown["missingMembers"]) > MOST_MISSING * max(len(d.panel.ids), 1)
    decision = None
    if q.decision:
        given = d.conclusion.decision if d.conclusion is not None else ""
        decision = given if given in q.decision and not unsure else UNCLEAR
    verified = held(findings or [], notes or [])
    if verified is False:
        decision, sure = UNVERIFIED, None
    return base | {
        "status": d.status,
        "verified": verified,
        "findings": [{k: f.get(k) for k in ("round", "file", "kind", "message")} for f in findings or []],
        "notes": list(notes or []),
        "decision": decision,
        "options": list(q.decision) or None,
        "confidence": sure,
        "conclusion": d.conclusion.summary if d.conclusion is not None else None,
        "conclusionBy": d.conclusion.generated_by if d.conclusion is not None else None,
        "dissent": dissent(d),
        "members": [{"id": m.id, "name": m.name, "model": m.model} for m in d.panel.members],
        "degraded": shown,
        "protocol": d.protocol,
        "rounds": sum(r.complete for r in d.rounds),
        "terminationReason": d.termination_reason,
    }
