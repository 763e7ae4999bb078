"""A controlled bias experiment on a recorded vote round: the same answers, re-asked under new orders.

One ordering cannot tell a voter that favours the first answer from one
that favours the best answer which happened to come first. So the voters
of a finished round are asked again, with the same answers under K new
label orders (seeded: the same every time), and, with padding, each order
once more with one answer lengthened by a neutral restatement of itself.
Per voter and for the panel:

- `positionBias`: over the re-asked ballots, approval of the answer shown
  first minus approval of the answer shown last (1: whatever comes first
  wins; 0: position does not matter);
- `lengthBias`: approval of an answer in its padded copy minus its approval
  in the same order unpadded (the same voter, the same positions).

Each is `{estimate, low, high, ballots}`: the mean of the per-ballot
differences with a seeded 95% bootstrap interval. Pure functions; the
calls are made and kept by the application layer.
"""

from __future__ import annotations

import random
import re
from functools import partial
from typing import Any

from discuss.plugin import CallSpec, Discussion, Prompts, Question, Round, make_labels, messages, spread

from . import moves
from .ballots import ballot_schema, parse_ballot
from .record import ballot_box
from .thread import ballot_texts

PADDED = "padded"


def new_orders(rnd: Round, voter: str, k: int) -> list[dict[str, str]]:
    """K label orders (A, B, ... to answer authors) for a voter, seeded by the round, the voter and k."""
    out = []
    for n in range(1, k + 1):
        targets = sorted(rnd.replies)
        random.Random(f"{rnd.seed}:audit:{voter}:{n}").shuffle(targets)
        out.append(dict(zip(make_labels(len(targets)), targets)))
    return out


def padded(text: str) -> str:
    """The answer lengthened by a restatement that adds nothing: its first sentence said again."""
    first = re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0]
    return f"{text.rstrip()}\n\nTo restate the point above in other words: {first}\n"


def ballot_calls(d: Discussion, q: Question, rnd: Round, prompts: Prompts, orders: int,
                 padding: bool) -> list[CallSpec]:
    """Every re-asked ballot: each voter of the round, each new order, and each order padded if asked."""
    shown = ballot_texts(d, rnd)
    voters = [p for p in d.panel.members if p.id in {b.voter_id for b in ballot_box(rnd).ballots}]
    specs = []
    for p in voters:
        for n, order in enumerate(new_orders(rnd, p.id, orders), start=1):
            # The padded answer rotates through the positions, so padding and position are not confounded.
            lengthened = list(order.values())[(n - 1) % len(order)] if padding else None
            for target in [None, lengthened] if lengthened else [None]:
                replies = [(label, padded(shown[t]) if t == target else shown[t]) for label, t in order.items()]
                user = prompts.render("vote", question=q, labels=list(order), replies=replies, named=False,
                                      authors=list(order.values()), me=p.id)
                labels = list(order)
                specs.append(CallSpec(
                    key=f"{p.id}--order-{n}" + (f"--{PADDED}" if target else ""), panelist=p,
                    messages=messages(p, prompts, user), task="vote", max_tokens=1500,
                    validate=partial(parse_ballot, labels=labels), schema=ballot_schema(labels),
                    context={"round": rnd.number, "labels": dict(replies), "order": order, "padded": target},
                    offline=moves.vote, worst_case=moves.worst_case))
    return specs


def record(spec: CallSpec, value: Any) -> dict[str, Any]:
    """What a re-asked ballot keeps: the order shown, the padded answer, and the vote on each answer."""
    order = spec.context["order"]
    return {"voter": spec.panelist.id, "order": dict(order), "padded": spec.context["padded"],
            "votes": {order[label]: vote for label, vote, _ in value.votes}}


def _approves(ballot: dict[str, Any], target: str) -> float:
    return 1.0 if ballot["votes"].get(target) == "APPROVE" else 0.0


def _figure(differences: list[float]) -> dict[str, Any]:
    found = spread(differences)
    low, high = found["ci95"] or (None, None)
    return {"estimate": found["mean"], "low": low, "high": high, "ballots": len(differences)}


def _position(ballots: list[dict[str, Any]]) -> list[float]:
    out = []
    for b in ballots:
        if not b["padded"] and len(b["order"]) > 1:
            shown = list(b["order"].values())
            out.append(_approves(b, shown[0]) - _approves(b, shown[-1]))
    return out


def _length(ballots: list[dict[str, Any]]) -> list[float]:
    plain = {(b["voter"], tuple(b["order"].values())): b for b in ballots if not b["padded"]}
    out = []
    for b in ballots:
        twin = plain.get((b["voter"], tuple(b["order"].values())))
        if b["padded"] and twin is not None:
            out.append(_approves(b, b["padded"]) - _approves(twin, b["padded"]))
    return out


def figures(ballots: list[dict[str, Any]]) -> dict[str, Any]:
    """The experiment's figures, per voter and for the panel."""
    voters = sorted({b["voter"] for b in ballots})

    def both(some: list[dict[str, Any]]) -> dict[str, Any]:
        return {"positionBias": _figure(_position(some)), "lengthBias": _figure(_length(some))}

    return {"panel": both(ballots), "voters": {v: both([b for b in ballots if b["voter"] == v]) for v in voters}}


def lines(found: dict[str, Any], names: dict[str, str]) -> list[str]:
    """The figures as `show` and `audit` print them."""
    def said(f: dict[str, Any]) -> str:
        if f["estimate"] is None:
            return "-"
        return f"{f['estimate']:+.2f} (95% CI {f['low']:+.2f} to {f['high']:+.2f}, {f['ballots']} ballots)"

    out = [f"- the panel: position bias {said(found['panel']['positionBias'])}, "
           f"length bias {said(found['panel']['lengthBias'])}"]
    out += [f"- {names.get(v, v)}: position bias {said(f['positionBias'])}, length bias {said(f['lengthBias'])}"
            for v, f in found["voters"].items()]
    return out


class BiasExperiment:
    """The experiment as the application layer runs it, behind `Protocol.bias_experiment()`."""

    calls = staticmethod(ballot_calls)
    record = staticmethod(record)
    figures = staticmethod(figures)
    lines = staticmethod(lines)

    @staticmethod
    def rounds(d: Discussion) -> list[int]:
        """The rounds it can re-ask: finished, with ballots cast."""
        return [r.number for r in d.rounds if r.complete and ballot_box(r).ballots]


EXPERIMENT = BiasExperiment()
