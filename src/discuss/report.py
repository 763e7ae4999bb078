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
    names = {m.id: m.name for m in d.panel.members}
    stats = discussion_stats(d)
    out = [f"# {d.question_title or d.question_slug}", ""]
    out.append(f"status: {d.status}   protocol: {d.protocol}   panel: {d.panel.name or '-'}")
    out.append(f"panelists: {', '.join(f'{n} ({i})' for i, n in names.items())}")
    figure = (f"approval from others: {stats['approvalRate']}%" if d.protocol == "vote"
              else f"agreement: {agreement_label(d) or '-'}")
    out.append(f"{figure}   average words: {stats['averageResponseWords']}   "
               f"tokens: {d.usage.total_tokens}   cost: {money(d.usage.cost)}")
    if d.panel.simulated:
        out.append("simulated: written by the offline panel, not by language models")
    for r in d.rounds:
        stage = f": {r.stage}" if r.stage else ""
        out += ["", f"## Round {r.number}{stage}" + ("" if r.complete else " (in progress)")]
        if r.stage:
            out += [f"- {names.get(pid, pid)} ({reply.role}): {reply.word_count} words" for pid, reply in r.replies.items()]
            out += [f"  {c['critic']} critiqued {c['target']}" for c in r.notes.get("critiques", [])]
            if judge := r.notes.get("judge"):
                out.append(f"  judge {judge.get('judgeId')}: convergence {judge.get('score')}"
                           + ("" if judge.get("score") is None else
                              f" (recommendation {judge['recommendation']}, key facts {judge['keyFacts']}, "
                              f"caveats {judge['caveats']})"))
            if c := r.notes.get("consensus"):
                out.append(f"  consensus {c['score']} on {c['best']} against {c['threshold']} ({c['taskType']})")
                for gate in ("gate1", "gate2"):
                    g = r.notes[gate]
                    failed = [x["check"] for x in g["checks"] if not x["passed"]]
                    out.append(f"  {gate}: {'passed' if g['passed'] else 'failed: ' + ', '.join(failed)}")
                out += [f"  conformity warning: {w}" for w in r.notes.get("conformity", [])]
            if check := r.notes.get("convergence"):
                out.append(f"  {check['test']} test: {'passed' if check['converged'] else 'not passed'}")
            if escalation := r.notes.get("escalation"):
                out.append(f"  escalation: {escalation.get('reason')}")
            out += [f"  failed: {names.get(f.model_id, f.model_id)} in {f.phase}: {f.error}" for f in r.failures]
            if r.agreement is not None:
                out.append(f"  agreement: {r.agreement:.2f}")
            continue
        scores = {x.target_id: x for x in r.results}
        for pid, reply in r.replies.items():
            x = scores.get(pid)
            mark = " <- winner" if pid == r.winner_id else ""
            score = f"{x.weighted_score:g} ({x.approve_count} approve, {x.reject_count} reject)" if x else "-"
            out.append(f"- {names.get(pid, pid)}: {reply.word_count} words, score {score}{mark}")
        if r.tie_break:
            out.append(f"  tie broken by: {r.tie_break}")
        conclude, cast = conclude_counts(r)
        if cast:
            out.append(f"  termination votes: {conclude} of {cast} CONCLUDE")
        for t in r.termination_votes:
            out.append(f"    {names.get(t.model_id, t.model_id)}: {t.vote} - {t.reasoning}")
        for a in r.abstentions:
            out.append(f"  abstained: {names.get(a.voter_id, a.voter_id)} ({a.reason})")
        for f in r.failures:
            out.append(f"  failed: {names.get(f.model_id, f.model_id)} in {f.phase}"
                       f"{' (timed out)' if f.timed_out else ''}: {f.error}")
        if r.agreement is not None:
            out.append(f"  vote agreement: {r.agreement:.2f}")
    if d.termination_reason:
        out += ["", f"Stopped: {describe(d.termination_reason)} ({d.termination_reason})."]
    if stop := d.budget_stop:
        out.append(budget_line(stop))
    if verdict := agreement_label(d):
        out.append(f"Agreement after the last round: {verdict}.")
    if d.conclusion:
        c = d.conclusion
        out += ["", f"## Conclusion (by {names.get(c.generated_by, c.generated_by)})", "", c.summary]
        for title, items in (("Key points", c.key_points), ("Unresolved questions", c.unresolved_questions),
                             ("Recommended actions", c.recommended_actions)):
            if items:
                out += ["", f"{title}:"] + [f"- {i}" for i in items]
        if c.minority_positions:
            out += ["", "Minority positions:"] + [
                f"- {m.position}" + (f" ({m.held_by})" if m.held_by else "") for m in c.minority_positions
            ]
    return "\n".join(out) + "\n"
