"""Reading the structured conclusion a panelist writes at the end.

The conclusion is asked for as JSON; a reply in Markdown with the expected
headings is accepted too, since that is what Project Dyson's tool stored.
A conclusion without a summary is refused.
"""

from __future__ import annotations

import re

from ..domain import Conclusion, MinorityPosition
from .jsonreply import EchoError, ReplyError, extract_object, has_words, text_field, text_list
from .placeholders import echoed
from .replyschemas import TEXT, listed, obj

SECTIONS = {
    "summary": "Summary",
    "key_points": "Key Points",
    "unresolved_questions": "Unresolved Questions",
    "recommended_actions": "Recommended Actions",
    "minority_positions": "Minority Positions",
    "triggers": "Triggers to Revisit",
}
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")


def _minorities(raw) -> list[MinorityPosition]:
    if not isinstance(raw, list):
        raise ReplyError("'minorityPositions' must be a list")
    out = []
    for item in raw:
        if isinstance(item, str):
            out.append(MinorityPosition(position=item.strip()))
        elif isinstance(item, dict):
            out.append(
                MinorityPosition(
                    position=text_field(item, "position"),
                    held_by=text_field(item, "heldBy", required=False),
                    reasoning=text_field(item, "reasoning", required=False),
                    round=_round_of(item.get("round")),
                )
            )
        else:
            raise ReplyError("each minority position must be a string or an object")
    return out


def _round_of(value) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)) or not str(value).strip().isdigit():
        raise ReplyError("a minority position's 'round' must be a round number")
    return int(value)


# A conclusion as a JSON schema, for providers that constrain output to one.
CONCLUSION_SCHEMA = obj({"summary": TEXT}, {
    "keyPoints": listed(TEXT), "unresolvedQuestions": listed(TEXT), "recommendedActions": listed(TEXT),
    "minorityPositions": listed(obj({"position": TEXT, "heldBy": TEXT, "reasoning": TEXT}, {"round": {"type": "integer"}})),
    "triggers": listed(TEXT), "confidence": TEXT, "decision": TEXT})


def parse_conclusion(text: str) -> Conclusion:
    try:
        obj = extract_object(text)
    except EchoError:
        raise
    except ReplyError:
        return parse_markdown_conclusion(text)
    return Conclusion(
        summary=text_field(obj, "summary"),
        key_points=text_list(obj, "keyPoints"),
        unresolved_questions=text_list(obj, "unresolvedQuestions"),
        recommended_actions=text_list(obj, "recommendedActions"),
        minority_positions=_minorities(obj.get("minorityPositions") or []),
        triggers=text_list(obj, "triggers"),
        confidence=_confidence(obj.get("confidence")),
        decision=text_field(obj, "decision", required=False),
    )


def _confidence(value) -> str:
    """Free text, or {"level": ..., "converged": ...} folded into one line."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return "; ".join(f"{k}: {v}" for k, v in value.items() if isinstance(v, (str, int, float)))
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value).strip()
    raise ReplyError("'confidence' must be text")


def split_sections(text: str) -> dict[str, str]:
    """Markdown split at `#`/`##` headings, keyed by the heading's text, lowercased."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        heading = re.match(r"^#{1,3}\s+(.*?)\s*#*\s*$", line)
        if heading:
            current = heading.group(1).strip().lower()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {k: "\n".join(v).strip() for k, v in sections.items()}


def bullets(block: str) -> list[str]:
    return [m.group(1).strip() for line in block.splitlines() if (m := BULLET.match(line))]


def parse_markdown_conclusion(text: str) -> Conclusion:
    sections = split_sections(text)
    summary = sections.get("summary", "")
    if not has_words(summary):
        raise ReplyError("the conclusion needs a summary in words (JSON field 'summary')")
    if (echo := echoed({name: text if name == "summary" else bullets(text)
                        for name, text in sections.items()})) is not None:
        raise EchoError(f"'{echo[0]}' copies the prompt's example ({echo[1][:80]!r}); write your own words there")
    return Conclusion(
        summary=summary,
        key_points=bullets(sections.get("key points", "")),
        unresolved_questions=bullets(sections.get("unresolved questions", "")),
        recommended_actions=bullets(sections.get("recommended actions", "")),
        minority_positions=[
            MinorityPosition(position=b) for b in bullets(sections.get("minority positions", ""))
        ],
    )


def render_markdown(c: Conclusion) -> str:
    """The conclusion's body as Markdown, one section per field."""
    parts = [f"## Summary\n\n{c.summary}\n"]
    if c.confidence:
        parts.append(f"## Confidence\n\n{c.confidence}\n")
    for attr in ("key_points", "unresolved_questions", "recommended_actions", "triggers"):
        items = getattr(c, attr)
        if items:
            parts.append(f"## {SECTIONS[attr]}\n\n" + "\n".join(f"- {i}" for i in items) + "\n")
    if c.minority_positions:
        lines = []
        for m in c.minority_positions:
            who = f" ({m.held_by}{f', round {m.round}' if m.round else ''})" if m.held_by else ""
            why = f": {m.reasoning}" if m.reasoning else ""
            lines.append(f"- {m.position}{who}{why}")
        parts.append("## Minority Positions\n\n" + "\n".join(lines) + "\n")
    return "\n".join(parts)
