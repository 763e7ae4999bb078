"""The vote protocol's ballot as a person fills it in: YAML with a vote and a reason per answer."""

from __future__ import annotations

from typing import Any

from discuss.plugin import PersonForm

from .ballots import parse_ballot

CHOICES = "APPROVE | NEUTRAL | REJECT"
CLOSING = "CONCLUDE | CONTINUE"


def blank(labels: list[str]) -> dict[str, Any]:
    return {"votes": {label: {"vote": CHOICES, "reasoning": ""} for label in labels},
            "termination": {"vote": CLOSING, "reasoning": ""}}


def _choices_left(data: dict[str, Any]) -> bool:
    """The template's choices still stand in a vote: not filled in yet (a reason may say anything)."""
    votes: dict[str, Any] = data["votes"] if isinstance(data.get("votes"), dict) else {}
    values = [v.get("vote") if isinstance(v, dict) else v for v in votes.values()]
    closing = data.get("termination")
    values.append(closing.get("vote") if isinstance(closing, dict) else closing)
    return any(isinstance(v, str) and v in (CHOICES, CLOSING) for v in values)


def reply(data: dict[str, Any]) -> dict[str, Any] | None:
    """The filled ballot as a model would send it; None while a choice is left as the template's. A person may
    write a vote, and the termination, as one word (`A: APPROVE`, `termination: CONCLUDE`)."""
    if _choices_left(data):
        return None
    closing = data.get("termination")
    closing = {"vote": closing} if isinstance(closing, str) else closing
    given = data.get("votes")
    if isinstance(given, list):  # the shape models send: [{label: A, vote: APPROVE, reasoning: ...}, ...]
        return {"votes": [dict(v, label=str(v["label"])) if isinstance(v, dict) and "label" in v else v
                          for v in given], "termination": closing}
    votes: dict[str, Any] = given if isinstance(given, dict) else {}
    return {"votes": [{"label": str(label), **(v if isinstance(v, dict) else {"vote": v})}
                      for label, v in votes.items()],
            "termination": closing}


BALLOT = PersonForm(
    how=("Fill in the YAML below: one vote per answer label, with a sentence of reasoning, and whether "
         "the panel should conclude. The answers' authors are hidden, as they are from the models."),
    blank=blank, reply=reply, check=lambda text, labels: parse_ballot(text, labels), ballot=True)
