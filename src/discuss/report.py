"""Text the CLI prints: live progress on stderr, `status` rows and `show` pages.

Pure formatting over the domain; the CLI decides where it goes.
"""

from __future__ import annotations

import sys
from typing import TextIO

from .domain import Discussion
from .stats import agreement_label, discussion_stats
from .termination import conclude_counts, describe


def money(cost: float | None) -> str:
    return "-" if cost is None else f"${cost:.4f}"


class Progress:
    """Prints one line per event of the gateway: thinking, retrying, done, failed."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stderr

    def line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def event(self, kind: str, spec, result) -> None:
        who = f"{spec.panelist.id} [{spec.task}]"
        if kind == "start":
            self.line(f"  .. {who} thinking")
        elif kind == "retry":
            self.line(f"  .. {who} retrying after a transient error (attempt {result.attempts})")
        elif kind == "invalid":
            self.line(f"  !  {who} gave an unusable reply ({result.error}); asking again")
        elif kind == "done":
            u = result.usage
            self.line(f"  ok {who} {u.total_tokens} tokens, {money(u.cost)}, {result.latency_ms / 1000:.1f}s")
        elif kind == "failed":
            self.line(f"  !! {who} failed: {result.error}")


def budget_line(stop: dict) -> str:
    return (f"The next phase would have passed the {stop['limit']} limit: {stop['spent']} spent, "
            f"{stop['nextPhase']} planned, {stop['max']} allowed.")


def status_row(slug: str, s) -> list[str]:
    """A row of `discuss status` from a store Summary (None: not started)."""
    if s is None:
        return [slug, "not started", "0", "-", "-", "0", "-"]
    return [slug, s.status + (" (Dyson)" if s.legacy else ""), str(s.rounds), s.leader or "-",
            s.termination_reason or "-", str(s.usage.total_tokens), money(s.usage.cost)]


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    fmt = lambda row: "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


STATUS_HEADER = ["question", "status", "rounds", "leader", "termination", "tokens", "cost"]


def show(d: Discussion) -> str:
    names = {m.id: m.name for m in d.panel.everyone}
    out = _header(d, names)
    for r in d.rounds:
        stage = f": {r.stage}" if r.stage else ""
        out += ["", f"## Round {r.number}{stage}" + ("" if r.complete else " (in progress)")]
        out += _stage_lines(r, names) if r.stage else _vote_lines(r, names)
        out += [f"  failed: {names.get(f.model_id, f.model_id)} in {f.phase}"
                f"{' (timed out)' if f.timed_out else ''}: {f.error}" for f in r.failures]
        if r.agreement is not None:
            out.append(f"  {'agreement' if r.stage else 'vote agreement'}: {r.agreement:.2f}")
    if d.termination_reason:
        out += ["", f"Stopped: {describe(d.termination_reason)} ({d.termination_reason})."]
    if stop := d.budget_stop:
        out.append(budget_line(stop))
    if verdict := agreement_label(d):
        out.append(f"Agreement after the last round: {verdict}.")
    if d.conclusion:
        out += _conclusion_lines(d.conclusion, names)
    return "\n".join(out) + "\n"


def _header(d: Discussion, names: dict[str, str]) -> list[str]:
    stats = discussion_stats(d)
    figure = (f"approval from others: {stats['approvalRate']}%" if d.protocol == "vote"
              else f"agreement: {agreement_label(d) or '-'}")
    out = [f"# {d.question_title or d.question_slug}", "",
           f"status: {d.status}   protocol: {d.protocol}   panel: {d.panel.name or '-'}",
           f"panelists: {', '.join(f'{m.name} ({m.id})' for m in d.panel.members)}",
           f"{figure}   average words: {stats['averageResponseWords']}   "
           f"tokens: {d.usage.total_tokens}   cost: {money(d.usage.cost)}"]
    if d.panel.simulated:
        out.append("simulated: written by the offline panel, not by language models")
    return out


def _vote_lines(r, names: dict[str, str]) -> list[str]:
    scores = {x.target_id: x for x in r.results}
    out = []
    for pid, reply in r.replies.items():
        x = scores.get(pid)
        score = f"{x.weighted_score:g} ({x.approve_count} approve, {x.reject_count} reject)" if x else "-"
        out.append(f"- {names.get(pid, pid)}: {reply.word_count} words, score {score}"
                   + (" <- winner" if pid == r.winner_id else ""))
    if r.tie_break:
        out.append(f"  tie broken by: {r.tie_break}")
    conclude, cast = conclude_counts(r)
    if cast:
        out.append(f"  termination votes: {conclude} of {cast} CONCLUDE")
    out += [f"    {names.get(t.model_id, t.model_id)}: {t.vote} - {t.reasoning}" for t in r.termination_votes]
    out += [f"  abstained: {names.get(a.voter_id, a.voter_id)} ({a.reason})" for a in r.abstentions]
    if check := r.notes.get("convergence"):
        out.append(f"  {check['test']} test: {'passed' if check['converged'] else 'not passed'}")
    return out


def _stage_lines(r, names: dict[str, str]) -> list[str]:
    notes = r.notes
    out = [f"- {names.get(reply.model_id, pid)} ({reply.role}): {reply.word_count} words"
           for pid, reply in r.replies.items()]
    out += [f"  {c['critic']} critiqued {c['target']}" for c in notes.get("critiques", [])]
    if judge := notes.get("judge"):
        out.append(f"  judge {judge.get('judgeId')}: convergence {judge.get('score')}"
                   + ("" if judge.get("score") is None else f" (recommendation {judge['recommendation']}, "
                      f"key facts {judge['keyFacts']}, caveats {judge['caveats']})"))
    if c := notes.get("consensus"):
        out.append(f"  consensus {c['score']} on {c['best']} against {c['threshold']} ({c['taskType']})")
        for gate in ("gate1", "gate2"):
            failed = [x["check"] for x in notes[gate]["checks"] if not x["passed"]]
            out.append(f"  {gate}: {'failed: ' + ', '.join(failed) if failed else 'passed'}")
        out += [f"  conformity warning: {w}" for w in notes.get("conformity", [])]
    out += [f"  {m['a']} vs {m['b']}: {m['winner'] or 'undecided'}" for m in notes.get("matches", [])]
    if champion := notes.get("champion"):
        out.append(f"  champion: {names.get(champion, champion)}")
    if check := notes.get("convergence"):
        out.append(f"  {check['test']} test: {'passed' if check['converged'] else 'not passed'}")
    if escalation := notes.get("escalation"):
        out.append(f"  escalation: {escalation.get('reason')}")
    return out


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
