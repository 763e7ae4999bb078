"""Text the CLI prints: `show` pages and the result of a run (the live progress is cli/progress.py).

Pure formatting over the domain; the CLI decides where it goes.
"""

from __future__ import annotations

from ..domain import Discussion
from ..protocols import get_protocol
from ..protocols.base import Protocol
from ..protocols.stats import agreement_label, discussion_stats
from ..rules import signatures
from ..text.clean import clean
from ..text.outcomes import describe
from .evaluation import diversity
from .finalanswer import answer_line
from .listing import money

FINISHES = {"length": "it reached its token limit (max_tokens)", "content_filter": "the provider's filter stopped it"}


SHORT_ANSWER = 5  # words: an answer this short is marked, as a model that did not really answer


def reply_marks(reply, max_words: int | None = None) -> list[tuple[str, str]]:
    """What a reader should know of a reply kept though not whole or not of the length asked: (kind, words)."""
    marks = []
    if reply.role == "respondent" and reply.word_count < SHORT_ANSWER:
        marks.append(("short", f"answer has {reply.word_count} word(s)"))
    if reply.role == "respondent" and max_words and reply.word_count > max_words:
        marks.append(("long", f"answer has {reply.word_count} words, over the {max_words} asked for"))
    if reply.finish_reason:
        why = FINISHES.get(reply.finish_reason, "the provider stopped it")
        marks.append(("cut", f"{reply.role} is not whole: {why} (finish_reason: {reply.finish_reason})"))
    if reply.cut_from is not None:
        marks.append(("cut", f"{reply.role} was {reply.cut_from} characters, cut to the reply cap"))
    return marks


def cut_lines(r, names: dict[str, str], max_words: int | None = None) -> list[str]:
    """Replies kept though not whole or not of the length asked: stopped, cut, far too short or too long."""
    return [f"  {kind}: {names.get(reply.model_id, reply.model_id)}'s {text}"
            for reply in r.replies.values() for kind, text in reply_marks(reply, max_words)]


def budget_line(stop: dict) -> str:
    return (f"The next phase would have passed the {stop['limit']} limit: {stop['spent']} spent, "
            f"{stop['nextPhase']} planned, {stop['max']} allowed.")





def show(d: Discussion, full: bool = False, only: int | None = None) -> str:
    """`discuss show`: every round (or round `only`), with answers and vote reasons when `full`."""
    names = {m.id: m.name for m in d.panel.everyone}
    protocol = get_protocol(d.protocol)
    out = _header(d, names)
    if (graded := answer_line(d)) is not None:  # an eval's item: what was graded, before how it got there
        out += ["", graded]
    if d.conclusion:  # what it came to first; how it got there after
        out += _conclusion_lines(d.conclusion, names)
    elif (pid := protocol.result_of(d)) is not None and (answer := _first_answer(d, pid)) is not None:
        out += ["", f"## Result: the answer of {names.get(pid, pid)}", "", answer]
    for r in d.rounds:
        if only is not None and r.number != only:
            continue
        stage = f": {r.stage}" if r.stage else ""
        out += ["", f"## Round {r.number}{stage}" + ("" if r.complete else " (in progress)")]
        out += protocol.presentation.show_round(r, names)
        out += [f"  failed: {names.get(f.model_id, f.model_id)} in {f.phase}"
                f"{' (timed out)' if f.timed_out else ''}: {f.error}" for f in r.failures]
        out += cut_lines(r, names, d.settings.max_response_words)
        if r.agreement is not None:
            out.append(f"  {'agreement' if r.stage else 'vote agreement'}: {r.agreement:.2f}")
        if full:
            out += _full_round(r, names, protocol)
    if d.termination_reason:
        out += ["", f"Stopped: {describe(d.termination_reason)} ({d.termination_reason})."]
    if stop := d.budget_stop:
        out.append(budget_line(stop))
    if lines := protocol.presentation.audit(d):
        out += ["", "Audit:"] + [f"- {line}" for line in lines]
    if d.foreign is not None and d.foreign.orphan_rounds:
        out += ["", f"Left out: {', '.join(f'round-{n}/' for n in d.foreign.orphan_rounds)}, which discussion.yaml does "
                "not list (a round another tool began and left; never counted)."]
    if named := signatures.lines(signatures.named_in(d), names):
        out += ["", "Answers that name a panelist (voters could tell who wrote them):"] + [f"- {n}" for n in named]
    if (leaning := protocol.figures.bias([d])) is not None and not leaning.empty:
        out += ["", "Bias:"] + leaning.lines()
    if verdict := agreement_label(d):
        out.append(f"Agreement after the last round: {verdict}.")
    return clean("\n".join(out)) + "\n"  # files written before text was cleaned may still hold escapes


def _full_round(r, names: dict[str, str], protocol: Protocol) -> list[str]:
    out = []
    for pid, reply in r.replies.items():
        out += ["", f"### {names.get(reply.model_id, pid)} ({reply.role})", "", reply.text.strip()]
        out += protocol.presentation.show_reply(r, pid, names)
    return out


def _header(d: Discussion, names: dict[str, str]) -> list[str]:
    stats = discussion_stats(d)
    figure = get_protocol(d.protocol).presentation.headline(d, stats, agreement_label(d))
    out = [f"# {d.question_title or d.question_slug}", "",
           f"status: {d.status}   protocol: {d.protocol}   panel: {d.panel.name or '-'}",
           f"panelists: {', '.join(f'{m.name} ({m.id})' for m in d.panel.members)}",
           f"{figure}   average words: {stats['averageResponseWords']}   "
           f"tokens: {d.usage.total_tokens}"
           + (f" ({d.usage.cached_tokens} prompt tokens from the provider's cache)" if d.usage.cached_tokens else "")
           + f"   cost: {money(d.usage.cost)}"]
    if d.side_usage.calls:
        out.append(f"audits: {d.side_usage.calls} calls, {d.side_usage.total_tokens} tokens, "
                   f"{money(d.side_usage.cost)}; in all: {d.spent.calls} calls, {d.spent.total_tokens} tokens, "
                   f"{money(d.spent.cost)}")
    if d.panel.simulated:
        out.append("simulated: written by the offline or scripted panel, not by language models")
    elif len(d.panel.members) > 1 and (found := _diversity(d))["oneFamily"]:
        out.append(f"one model family: every panelist is a {found['families'][0]} model, so their errors may be "
                   "alike and their agreement says less")
    for s in d.sources:
        where = f"{s.get('url')} (not fetched)" if s.get("url") else f"{s.get('path')} sha256 {str(s.get('sha256'))[:12]}"
        out.append(f"source {s.get('label')}: {where}")
    if differs := inconsistent(d):
        out += ["", "WARNING: the recorded outcome does not follow from the recorded ballots and rules "
                "(`discuss verify` names every difference); it is not the panel's:", *(f"- {m}" for m in differs)]
    return out


def inconsistent(d: Discussion) -> list[str]:
    """What of a discussion's recorded outcome its own record does not bear out, in words; empty when all
    holds (or the protocol has nothing to recompute from)."""
    found = list(get_protocol(d.protocol).figures.recompute(d) or [])
    if d.status == "concluded" and not d.rounds and d.conclusion is None:
        found.append({"message": "it says it concluded, with no round and no conclusion"})
    return [str(f["message"]) for f in found]


def result_text(d: Discussion) -> str:
    """What a discussion came to, for stdout: the conclusion, else the result's answer, else the status."""
    names = {m.id: m.name for m in d.panel.everyone}
    if d.conclusion:
        return clean("\n".join(_conclusion_lines(d.conclusion, names)).strip()) + "\n"
    if (pid := get_protocol(d.protocol).result_of(d)) is not None and (answer := _first_answer(d, pid)) is not None:
        return clean(f"## Result: the answer of {names.get(pid, pid)}\n\n{answer}") + "\n"
    return f"{d.question_slug}: {d.status} ({describe(d.termination_reason)}), no conclusion\n"


def _first_answer(d: Discussion, pid: str) -> str | None:
    """The result's text: the answer its author gave (a tournament's champion answers once, in round 1)."""
    reply = next((r.replies[pid] for r in d.rounds if pid in r.replies), None)
    return reply.text.strip() if reply is not None else None


def _conclusion_lines(c, names: dict[str, str]) -> list[str]:
    out = ["", f"## Conclusion (by {names.get(c.generated_by, c.generated_by)})", "", c.summary]
    if c.confidence:
        out += ["", f"Confidence: {c.confidence}"]
    for title, items in (("Key points", c.key_points), ("Unresolved questions", c.unresolved_questions),
                         ("Recommended actions", c.recommended_actions), ("Triggers to revisit", c.triggers)):
        if items:
            out += ["", f"{title}:"] + [f"- {i}" for i in items]
    if c.minority_positions:
        out += ["", "Minority positions:"] + [
            f"- {m.position}" + (f" ({m.held_by})" if m.held_by else "") for m in c.minority_positions]
    return out


def _diversity(d: Discussion) -> dict:
    return diversity(d.panel)
