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

from dataclasses import dataclass, field
from typing import Any

from ..domain import Discussion, Question
from ..protocols import get_protocol
from .integrity import held

SPLIT = 0.5
MOST_FAILED = 0.25
MOST_MISSING = 1 / 3
UNCLEAR = "unclear"
UNVERIFIED = "unverified"


@dataclass
class Degraded:
    """How degraded a record is: failed calls, replies cut at the length cap, abstentions, members with no
    answer in the last round."""

    failed_calls: int
    cut_replies: int
    abstained: int = field(metadata={"key": "abstentions"})  # the serialiser's key: the JSON's name for it
    missing_members: list[str]

    def anything(self) -> bool:
        """Whether anything degraded the record."""
        return bool(self.failed_calls or self.cut_replies or self.abstained or self.missing_members)


@dataclass
class Dissent:
    """A dissent as recorded: `panelist` the member's id (None where the conclusion names no member of the
    panel), `name` as the panel calls them (else as written), `simulated` whether a stand-in wrote it, `text`
    verbatim."""

    panelist: str | None
    name: str
    simulated: bool | None
    text: str


@dataclass
class Member:
    """A member of the panel, as the verdict names them."""

    id: str
    name: str
    model: str


@dataclass
class VerdictFinding:
    """What `verify`'s checks found in the record, as the verdict names it."""

    round: int | None
    file: str
    kind: str
    message: str


@dataclass
class Verdict:
    """What `discuss verdict --json` and the MCP tool give of a discussion (see the module's docstring)."""

    question: str
    slug: str
    uri: str
    record_digest: str | None
    status: str
    verified: bool | None
    findings: list[VerdictFinding]
    notes: list[str]
    decision: str | None
    options: list[str] | None
    confidence: float | None
    conclusion: str | None
    conclusion_by: str | None
    dissent: list[Dissent]
    members: list[Member]
    degraded: Degraded | None
    protocol: str | None
    rounds: int
    termination_reason: str | None


@dataclass
class NoVerdict:
    """The verdict of a question with no discussion yet: nothing decided, nothing recorded."""

    question: str
    slug: str
    uri: str
    record_digest: None = None
    status: str = "not started"
    decision: None = None
    confidence: None = None
    conclusion: None = None
    dissent: list[Dissent] = field(default_factory=list)
    members: list[Member] = field(default_factory=list)
    degraded: None = None
    protocol: None = None
    rounds: int = 0
    verified: None = None
    findings: list[VerdictFinding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def degraded(d: Discussion) -> Degraded:
    figures = get_protocol(d.protocol).figures
    last = next((r for r in reversed(d.rounds) if r.complete and r.replies), None)
    answered = set(last.replies) if last else set()
    return Degraded(
        failed_calls=sum(len(r.failures) for r in d.rounds),
        cut_replies=sum(1 for r in d.rounds for x in r.replies.values()
                        if x.cut_from is not None or x.finish_reason == "length"),
        abstained=sum(figures.abstained(r) for r in d.rounds),
        missing_members=sorted(m for m in d.panel.ids if last is not None and m not in answered),
    )


def confidence(d: Discussion) -> float | None:
    found = get_protocol(d.protocol).figures.confidence(d)
    if found is not None:
        return round(found, 4)
    last = next((r for r in reversed(d.rounds) if r.complete and r.agreement is not None), None)
    return None if last is None else round(float(last.agreement or 0.0), 4)


def dissent(d: Discussion) -> list[Dissent]:
    """Each dissent as recorded, with who holds it named one way (see `Dissent`)."""
    found = [(x["panelist"], x["text"]) for x in get_protocol(d.protocol).figures.dissent(d)]
    if d.conclusion is not None:
        found += [(m.held_by, m.position) for m in d.conclusion.minority_positions if m.position.strip()]
    members = {key: m for m in d.panel.everyone for key in (_plain(m.id), _plain(m.name))}
    out = []
    for ref, text in found:
        m = members.get(_plain(ref))
        out.append(Dissent(m.id if m else None, m.name if m else ref, m.simulated if m else None, text))
    return out


def _plain(name: str) -> str:
    """A member's id or name as a conclusion may write it: case, spacing and a stand-in's mark aside."""
    return " ".join(str(name).casefold().replace("(simulated)", "").split())


def verdict(q: Question, d: Discussion | None, digest: str | None, findings: list[dict[str, Any]] | None = None,
            notes: list[str] | None = None) -> Verdict | NoVerdict:
    """What `discuss verdict --json` and the MCP tool give for question `q` and its discussion `d`; `findings`
    and `notes`, what `verify`'s checks said of its record."""
    uri = f"discussion://{q.slug}"
    if d is None:
        return NoVerdict(q.title, q.slug, uri)
    shown = degraded(d)
    sure = confidence(d)
    calls = max(d.usage.calls + shown.failed_calls, 1)
    unsure = (sure is not None and sure < SPLIT) or shown.failed_calls / calls > MOST_FAILED \
        or len(shown.missing_members) > MOST_MISSING * max(len(d.panel.ids), 1)
    decision = None
    if q.decision:
        given = d.conclusion.decision if d.conclusion is not None else ""
        decision = given if given in q.decision and not unsure else UNCLEAR
    verified = held(findings or [], notes or [])
    if verified is False:
        decision, sure = UNVERIFIED, None
    return Verdict(
        q.title, q.slug, uri, digest, d.status, verified,
        [VerdictFinding(f["round"], f["file"], f["kind"], f["message"]) for f in findings or []],
        list(notes or []), decision, list(q.decision) or None, sure,
        d.conclusion.summary if d.conclusion is not None else None,
        d.conclusion.generated_by if d.conclusion is not None else None,
        dissent(d), [Member(m.id, m.name, m.model) for m in d.panel.members], shown, d.protocol,
        sum(r.complete for r in d.rounds), d.termination_reason)
