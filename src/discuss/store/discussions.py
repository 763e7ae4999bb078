"""A discussion folder on disk: `discussion.yaml`, `round-N/*.md`, `votes.yaml`, `conclusion.md`.

`save` writes every file of a discussion atomically and skips files whose
bytes would not change, so saving unchanged state changes nothing and a new
round only adds files (and updates the index). `load` reads our own format
and, through `dyson`, the one of Project Dyson's original tool.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..domain import (
    STATUSES,
    Conclusion,
    Discussion,
    MinorityPosition,
    Panel,
    Panelist,
    Reply,
    usage_dict,
    usage_from,
)
from ..errors import InputError
from ..protocols import DEFAULT, get_protocol
from ..protocols.stats import discussion_stats, leader
from ..text.conclusions import parse_markdown_conclusion, render_markdown
from ..text.naming import camel, is_safe_id, unprintable
from . import audits, documents, history, yamlio, yamlwrite
from .chain import sealed
from .configs import config_of, read_config
from .files import write_atomic
from .formats import legacy
from .layout import DISCUSSION_FILE
from .outcomes import panel_forecast
from .rounds import ROUND_FILE, failures, read_round, round_dir
from .summary import Summary, from_data, from_head, is_legacy, with_audits

CONCLUSION_FILE = "conclusion.md"
SIMULATED_NOTE = "Simulated by the offline or scripted panel: no language model wrote this."


def reply_path(folder: Path, number: int, model_id: str) -> Path:
    if not is_safe_id(model_id):
        raise ValueError(f"unsafe participant id {model_id!r}")
    return round_dir(folder, number) / f"{model_id}.md"


# ---- writing ---------------------------------------------------------------

def _member_dict(m: Panelist) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": m.id, "model": m.model, "name": m.name}
    if m.persona:
        entry["persona"] = m.persona
    if m.options:
        entry["options"] = dict(m.options)
    if m.response_format != "auto":
        entry["responseFormat"] = m.response_format
    if m.price is not None:
        entry["price"] = {"input": m.price[0], "output": m.price[1]}
    if m.agent:  # a coding agent's tool: what answered (its name, version and flags), so a reader knows
        entry["agent"] = dict(m.agent)
    return entry


def _panel_dict(panel: Panel) -> dict[str, Any]:
    data: dict[str, Any] = {"name": panel.name, "members": [_member_dict(m) for m in panel.members]}
    for role in ("chairman", "judge", "synthesizer"):
        if (p := getattr(panel, role)) is not None:
            data[role] = _member_dict(p)
    return data


def index_dict(d: Discussion) -> dict[str, Any]:
    data: dict[str, Any] = {
        "questionId": d.question_id,
        "questionSlug": d.question_slug,
        "questionTitle": d.question_title,
        "protocol": d.protocol or DEFAULT,
        **({"trial": d.trial} if d.trial is not None else {}),
    }
    if d.panel.simulated:
        data["simulated"] = SIMULATED_NOTE
    # What `discuss status` shows comes first, before `panel:`, so it can be read alone.
    data.update({
        "status": d.status,
        "startedAt": d.started_at,
        "concludedAt": d.concluded_at,
        "currentRound": d.current_round,
        "completedRounds": sum(r.complete for r in d.rounds),
        "leader": leader(d),
        "terminationReason": d.termination_reason,
        "usage": usage_dict(d.usage),
    })
    if d.budget_stop:
        data["budgetStop"] = d.budget_stop
    if d.waiting_for:
        data["waitingFor"] = list(d.waiting_for)
    data.update({
        "panel": _panel_dict(d.panel),
        "config": config_of(d.settings, d.protocol),
    })
    if d.personas:
        data["personas"] = d.personas
    if d.sources:
        data["sources"] = d.sources
    protocol = get_protocol(d.protocol)
    data.update({"rounds": [protocol.storage.round_index(r, failures(r)) for r in d.rounds], "stats": discussion_stats(d)})
    if d.conclusion:
        data["conclusion"] = {"generatedBy": d.conclusion.generated_by,
                              "generated": d.conclusion.generated, "file": CONCLUSION_FILE}
    if d.record is not None:
        data["record"] = d.record
    if d.answer is not None:  # an eval's item: what it answered, as the grader reads it
        data["finalAnswer"] = d.answer.get("value")
        data["answerRead"] = {k: v for k, v in d.answer.items() if k != "value"}
    return data


def _reply_doc(d: Discussion, r: Reply) -> str:
    meta = {
        "questionId": d.question_id,
        "questionSlug": d.question_slug,
        "modelId": r.model_id,
        "modelName": r.model_name,
        "roundNumber": r.round_number,
        "role": r.role,
        # A Dyson thread's answers carry a date, as Dyson writes it; ours the full time.
        "generated": r.generated[:10] if d.legacy else r.generated,
        "type": "discussion-response",
        "usage": {**usage_dict(r.usage), "latencyMs": r.latency_ms},
    }
    if r.cut_from is not None:
        meta["cutFrom"] = r.cut_from
    if r.finish_reason is not None:
        meta["finishReason"] = r.finish_reason
    if r.simulated:
        meta["simulated"] = SIMULATED_NOTE
    return documents.render(meta, r.text)


def _order(ids: list[str], panel: Panel) -> list[str]:
    rank = {pid: i for i, pid in enumerate(panel.ids)}
    return sorted(ids, key=lambda i: (rank.get(i, len(rank)), i))


def _conclusion_doc(d: Discussion, c: Conclusion) -> str:
    meta = {
        "questionId": d.question_id,
        "questionSlug": d.question_slug,
        "type": "discussion-conclusion",
        "generatedBy": c.generated_by,
        "generated": c.generated,
        "roundCount": d.current_round,
        "terminationReason": d.termination_reason,
        "keyPoints": c.key_points,
        "unresolvedQuestions": c.unresolved_questions,
        "recommendedActions": c.recommended_actions,
        "minorityPositions": [
            {"position": m.position, "heldBy": m.held_by, "reasoning": m.reasoning,
             **({"round": m.round} if m.round else {})}
            for m in c.minority_positions
        ],
        **({"triggers": c.triggers} if c.triggers else {}),
        **({"confidence": c.confidence} if c.confidence else {}),
        **({"decision": c.decision} if c.decision else {}),
        "usage": usage_dict(c.usage),
    }
    if (forecast := panel_forecast(d)) is not None:
        meta["forecast"] = forecast
    if c.simulated:
        meta["simulated"] = SIMULATED_NOTE
    return documents.render(meta, render_markdown(c))


def save(d: Discussion, folder: Path, from_round: int = 1, index: bool = True) -> None:
    """Write the discussion; files that would not change are left alone.

    Rounds before `from_round` are taken as saved already (a run saves the
    round it works on after every call), and a reply, once written or read,
    is never rendered again: a reply does not change. `index=False` leaves
    discussion.yaml for later: what a finished call adds lives in its
    round's files, and the totals in the index are derived from them.
    """
    protocol = get_protocol(d.protocol)
    for r in d.rounds[max(from_round, 1) - 1:]:
        if r.imported:
            continue  # another tool's round stays exactly as it was written
        for pid in _order(list(r.replies), d.panel):
            reply = r.replies[pid]
            if not reply.saved:
                write_atomic(reply_path(folder, r.number, pid), _reply_doc(d, reply))
                reply.saved = True
        for name in protocol.storage.round_files:
            if (content := protocol.storage.write_round_file(r, name, d.panel.ids)) is not None:
                write_atomic(round_dir(folder, r.number) / name, yamlwrite.dump(content))
        # A round's notes go in its round.yaml unless the index keeps them all; a staged round always has one.
        kept_elsewhere = set(r.notes) <= set(protocol.storage.index_notes)
        if (r.stage is not None and (r.notes or r.complete)) or not kept_elsewhere:
            data = {"roundNumber": r.number, "stage": r.stage, "agreement": r.agreement, **r.notes}
            write_atomic(round_dir(folder, r.number) / ROUND_FILE, yamlwrite.dump(data))
    if d.conclusion:
        write_atomic(folder / CONCLUSION_FILE, _conclusion_doc(d, d.conclusion))
    if index and d.record is not None and not d.legacy:  # the chain lives in the index: sealed as it is written
        sealed(d.record, [r.number for r in d.rounds if r.complete], lambda n: round_dir(folder, n),
               folder / CONCLUSION_FILE if d.conclusion else None)
    if index:
        write_atomic(folder / DISCUSSION_FILE, dyson_text(d, folder) if d.legacy else yamlwrite.dump(index_dict(d)))


def record_answer(d: Discussion, folder: Path, answer: dict[str, Any]) -> None:
    """An eval's item: the final answer it gave (`archive/finalanswer.py`) written into its index alone; its
    rounds and conclusion, which the chain vouches for, are left as they are."""
    d.answer = answer
    if not d.legacy:
        write_atomic(folder / DISCUSSION_FILE, yamlwrite.dump(index_dict(d)))


def dyson_text(d: Discussion, folder: Path) -> str:
    """A Dyson thread's index over the file as it is: what Dyson wrote keeps its bytes."""
    index = folder / DISCUSSION_FILE
    data = dyson_index(d)
    return yamlwrite.splice(documents.read_text(index), data) if index.is_file() else yamlwrite.dump(data)


def dyson_index(d: Discussion) -> dict[str, Any]:
    return legacy().index(d)


# ---- reading ---------------------------------------------------------------

def _panelist_from(m: dict) -> Panelist:
    if not is_safe_id(str(m["id"])):
        raise ValueError(f"panel member id {m['id']!r} is not a safe name (lowercase letters, digits, '.', '_', '-')")
    if (hidden := unprintable(str(m.get("name") or ""))) is not None:
        raise ValueError(f"panel member {m['id']}'s name holds {hidden}, which shows a reader something else")
    return Panelist(id=str(m["id"]), model=str(m.get("model", "")), name=str(m.get("name") or m["id"]),
                    persona=str(m.get("persona") or ""),
                    options=dict(m["options"]) if isinstance(m.get("options"), dict) else {},
                    response_format=str(m.get("responseFormat") or "auto"), price=_price(m.get("price")),
                    agent=_agent(m.get("agent")))


def _agent(raw) -> dict:
    """A coding agent's record as the index keeps it (tool, version, flags), read back as plain text."""
    if not isinstance(raw, dict):
        return {}
    flags = raw.get("flags")
    return {"tool": str(raw.get("tool") or ""), "version": str(raw.get("version") or ""),
            "flags": [str(f) for f in flags] if isinstance(flags, list) else []}


def _price(raw) -> tuple[float, float] | None:
    try:
        return (float(raw["input"]), float(raw["output"])) if isinstance(raw, dict) else None
    except (KeyError, TypeError, ValueError):
        return None


def _panel_from(raw) -> Panel:
    raw = raw if isinstance(raw, dict) else {}
    members = tuple(_panelist_from(m) for m in raw.get("members") or [] if isinstance(m, dict) and "id" in m)
    chairman, judge, synthesizer = (
        _panelist_from(raw[role]) if isinstance(raw.get(role), dict) and "id" in raw[role] else None
        for role in ("chairman", "judge", "synthesizer"))
    return Panel(str(raw.get("name") or ""), members, chairman=chairman, judge=judge, synthesizer=synthesizer)


def read_conclusion(path: Path) -> Conclusion:
    meta, body = documents.read(path, written=True)
    try:
        parsed = parse_markdown_conclusion(body)
    except ValueError:
        parsed = Conclusion(summary=body.strip())
    lists = {k: meta.get(camel(k)) for k in ("key_points", "unresolved_questions", "recommended_actions", "triggers")}
    for key, value in lists.items():
        if isinstance(value, list):
            setattr(parsed, key, [str(v) for v in value])
    minority = meta.get("minorityPositions")
    if isinstance(minority, list):
        parsed.minority_positions = [
            MinorityPosition(str(m.get("position", "")), str(m.get("heldBy") or ""), str(m.get("reasoning") or ""),
                             m.get("round") if isinstance(m.get("round"), int) else None)
            if isinstance(m, dict) else MinorityPosition(str(m))
            for m in minority
        ]
    parsed.confidence = str(meta.get("confidence") or "")
    parsed.decision = str(meta.get("decision") or "")
    parsed.generated_by = str(meta.get("generatedBy") or "")
    parsed.generated = str(meta.get("generated") or "")
    parsed.usage = usage_from(meta.get("usage"))
    parsed.simulated = bool(meta.get("simulated"))
    parsed.body = body
    return parsed


def summary(folder: Path) -> Summary | None:
    """The index of a discussion without its rounds' files: fast over hundreds of discussions."""
    index = folder / DISCUSSION_FILE
    if not index.is_file():
        history.check_unindexed(folder, index)
        return None
    try:
        text = documents.read_text(index)
        if (quick := from_head(text)) is not None:
            return with_audits(quick, folder)
        data = yamlio.load(text)  # an older or foreign layout: read it all
    except (ValueError, OSError, UnicodeDecodeError, TypeError) as exc:
        raise InputError(f"{index}: cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"{index}: cannot be read: expected a mapping of fields")
    return with_audits(from_data(data), folder)


def _with_side_calls(d: Discussion, folder: Path) -> Discussion:
    """`d` with what its audits' re-asks spent, which its budget counts."""
    if (folder / audits.AUDIT).is_dir():
        d.side_usage = audits.spent(audits.recorded(folder))
    return d


def load(folder: Path) -> Discussion | None:
    """The discussion in `folder`, or None where none was started.

    Raises InputError naming the file when something on disk is malformed.
    """
    index = folder / DISCUSSION_FILE
    if not index.is_file():
        history.check_unindexed(folder, index)
        return None
    try:
        text = documents.read_text(index)
        data = yamlio.load(text, written=True)
        if not isinstance(data, dict):
            raise ValueError("expected a mapping of fields")
        if is_legacy(data):  # another tool wrote it: read it as people's files are read
            data = yamlio.load(text)
            return _with_side_calls(legacy().load(data, folder), folder)
        history.check_index(data, index)
        if data["status"] not in STATUSES:
            raise ValueError(f"status {data['status']!r} is not one of {', '.join(STATUSES)}")
        d = Discussion(
            question_id=str(data.get("questionId") or ""),
            question_slug=str(data.get("questionSlug") or ""),
            question_title=str(data.get("questionTitle") or ""),
            panel=_panel_from(data.get("panel")),
            settings=read_config(data.get("config"), str(index), str(data.get("protocol") or DEFAULT)),
            protocol=str(data.get("protocol") or DEFAULT),
            status=str(data.get("status") or "active"),
            started_at=str(data.get("startedAt") or ""),
            rounds=[read_round(r, folder, str(data.get("protocol") or DEFAULT)) for r in data.get("rounds") or []],
            termination_reason=data.get("terminationReason"),
            concluded_at=data.get("concludedAt"),
            budget_stop=data.get("budgetStop") if isinstance(data.get("budgetStop"), dict) else None,
            waiting_for=[str(x) for x in data.get("waitingFor") or [] if isinstance(x, str) and is_safe_id(x)],
            personas=data["personas"] if isinstance(data.get("personas"), dict) else {},
            sources=[s for s in data.get("sources") or [] if isinstance(s, dict)],
            trial=data["trial"] if isinstance(data.get("trial"), int) else None,
            record=data["record"] if isinstance(data.get("record"), dict) else None,
            answer={"value": data.get("finalAnswer"), **data["answerRead"]}
            if isinstance(data.get("answerRead"), dict) else None,
        )
        history.check_files(d, folder, get_protocol(d.protocol).storage.check_round)
        if (folder / CONCLUSION_FILE).is_file():
            d.conclusion = read_conclusion(folder / CONCLUSION_FILE)
        return _with_side_calls(d, folder)
    except (ValueError, KeyError, TypeError, OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{index}: cannot be read: {exc}") from None
