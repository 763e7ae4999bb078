"""The deliberate protocol: isolated research by personas, alternatives, weighted ranking, gates.

With `triage` on, the chair first rates the question's ambiguity,
complexity, stakes and context dependency; a confident question (at or
above `deliberateBelow`) is answered by the chair alone (reason
`confident`). Research: each member researches as its persona, alone (no
prompt holds another persona's research). Alternatives: the chair reads all
research and proposes alternatives. Ranking: each persona scores every
alternative on five weighted dimensions; closing it computes the consensus
against the question's task-type threshold, both gates and the conformity
warnings. A failed gate stops the discussion without a decision (reason
`gate-failed`, status `closed`); otherwise the chair writes the decision
with the dissent and the conformity warnings before it.
"""

from __future__ import annotations

from typing import Any, cast

from discuss.plugin import (
    CONCLUSION_SCHEMA,
    CallResult,
    CallSpec,
    Context,
    Discussion,
    Figures,
    Panelist,
    Phase,
    Presentation,
    Protocol,
    Question,
    Round,
    RoundStorage,
    Setup,
    Step,
    dissent_context,
    make_labels,
    messages,
    parse_conclusion,
    record_reply,
    titled,
)

from . import moves
from .notes import Alternative, Consensus, DeliberateNotes, Ranking, notes
from .personas import SHIPPED, assign
from .replies import (
    parse_alternatives,
    parse_ranking,
    parse_research,
    parse_triage,
    ranking_schema,
    research_schema,
    triage_schema,
)
from .rules import DIMENSIONS, WEIGHTS, confidence, conformity, consensus, dissenters, gate_one, gate_two, threshold
from .settings import DeliberateSettings
from .stages import ROLES, mean, participants, stage, stages
from .verify import recompute

MIN_ALTERNATIVES, MAX_ALTERNATIVES = 2, 5


def finished_rounds(d: Discussion) -> bool:
    return len(d.rounds) >= len(stages(d))


def new_round(d: Discussion) -> Round:
    rnd = Round(number=len(d.rounds) + 1, seed=0, stage=stages(d)[len(d.rounds)])
    d.rounds.append(rnd)
    return rnd


def alternatives(d: Discussion) -> dict[str, Alternative]:
    alts = notes(stage(d, "alternatives"))["alternatives"]
    return dict(zip(make_labels(len(alts)), alts))


def spec(d: Discussion, rnd: Round, p: Panelist, ctx: Context) -> CallSpec:
    words, persona = d.settings.max_response_words, d.personas.get(p.id, {})
    if rnd.stage == "triage":
        user = ctx.prompts.render("triage", question=ctx.q, dimensions=DIMENSIONS)
        return CallSpec(p.id, p, messages(p, ctx.prompts, user), "triage", 800, validate=parse_triage,
                        schema=triage_schema(list(DIMENSIONS)),
                        context={"title": ctx.q.title}, offline=moves.triage, worst_case=moves.uncertain)
    if rnd.stage == "research":
        user = ctx.prompts.render("research", question=ctx.q, persona=persona, max_words=words)
        return CallSpec(p.id, p, messages(p, ctx.prompts, user), "research", words * 3, validate=parse_research,
                        schema=research_schema(),
                        context={"title": ctx.q.title, "round": 1, "persona": persona}, offline=moves.research,
                        worst_case=moves.unsure)
    if rnd.stage == "alternatives":
        research = [(d.personas.get(pid, {}).get("name", pid), r.text)
                    for pid, r in stage(d, "research").replies.items()]
        user = ctx.prompts.render("alternatives", question=ctx.q, research=research,
                                  min_alternatives=MIN_ALTERNATIVES, max_alternatives=MAX_ALTERNATIVES)
        return CallSpec(p.id, p, messages(p, ctx.prompts, user), "alternatives", 2000,
                        validate=lambda t: parse_alternatives(t, MIN_ALTERNATIVES, MAX_ALTERNATIVES),
                        schema=titled("alternatives", "description", MIN_ALTERNATIVES, MAX_ALTERNATIVES),
                        context={"title": ctx.q.title}, offline=moves.alternatives)
    alts = alternatives(d)
    user = ctx.prompts.render("rank", question=ctx.q, persona=persona, own=stage(d, "research").replies[p.id].text,
                              alternatives=list(alts.items()), labels=list(alts))
    labels = list(alts)
    return CallSpec(p.id, p, messages(p, ctx.prompts, user), "rank", 1500,
                    validate=lambda t: parse_ranking(t, labels, list(WEIGHTS)),
                    schema=ranking_schema(labels, list(WEIGHTS)),
                    context={"labels": labels, "persona": persona}, offline=moves.rank,
                    worst_case=moves.agreeing)


def apply(d: Discussion, rnd: Round, result: CallResult, now: str) -> None:
    p = result.spec.panelist
    value = result.value
    if rnd.stage == "triage":
        notes(rnd)["triage"] = value
        text = value["reasoning"]
    elif rnd.stage == "research":
        text = value["findings"]
        notes(rnd).setdefault("confidence", {})[p.id] = value["confidence"]
    elif rnd.stage == "alternatives":
        notes(rnd)["alternatives"] = value
        text = "\n".join(f"## {a['title']}\n\n{a['description']}\n" for a in value)
    else:
        notes(rnd).setdefault("rankings", {})[p.id] = cast(Ranking, value)
        text = (value["concern"] or "(no concern)") + "\n"
    kept = notes(rnd)  # by persona id, whatever order the replies came in
    if "confidence" in kept:
        kept["confidence"] = dict(sorted(kept["confidence"].items()))
    if "rankings" in kept:
        kept["rankings"] = dict(sorted(kept["rankings"].items()))
    record_reply(rnd, p, result, p.id, ROLES[rnd.stage or ""], text, now)


def round_step(d: Discussion, rnd: Round, ctx: Context) -> Step:
    calls = Phase(rnd, rnd.stage or "", participants(d, rnd))
    if step := calls.step(f"round {rnd.number}: {rnd.stage}", lambda p: spec(d, rnd, p, ctx),
                          lambda r: apply(d, rnd, r, ctx.clock())):
        return step
    return Step("", after=lambda: close(d, rnd, ctx))


def close(d: Discussion, rnd: Round, ctx: Context) -> str:
    rnd.completed_at = ctx.clock()
    if rnd.stage == "triage":
        return close_triage(d, rnd)
    if rnd.stage != "ranking":
        return f"round {rnd.number}: {rnd.stage} done"
    rankings = notes(rnd).get("rankings", {})
    result = consensus(rankings)
    bar = threshold(ctx.q.task_type)
    persona_of = {pid: d.personas.get(pid, {}).get("id", pid) for pid in rankings}
    conflicts = {frozenset((a, b)) for a in rankings for b in rankings
                 if persona_of[b] in d.personas.get(a, {}).get("conflictsWith", [])}
    initial = mean(notes(stage(d, "research")).get("confidence", {}).values())
    final = mean(r["confidence"] for r in rankings.values())
    best = alternatives(d).get(str(result["best"]))
    titled = str(best.get("title") or "") if best is not None else ""
    found: Consensus = {**result, "bestTitle": titled, "taskType": ctx.q.task_type, "threshold": bar,
                        "dissenters": dissenters(result), "initialConfidence": initial, "finalConfidence": final}
    notes(rnd)["consensus"] = found
    reached = all(r.complete for r in d.rounds if r is not rnd) and bool(rankings)
    notes(rnd)["gate1"] = gate_one(reached, rankings, result, bar, DeliberateSettings.of(d.settings).min_personas)
    notes(rnd)["gate2"] = gate_two(rankings, persona_of, result, initial, final)
    notes(rnd)["conformity"] = conformity(rankings, result, conflicts)
    if not (notes(rnd)["gate1"]["passed"] and notes(rnd)["gate2"]["passed"]):
        d.termination_reason = "gate-failed"
    return (f"round 3: consensus {result['score']} on {result['best']}{named(found)} (threshold {bar}); gate 1 "
            f"{'passed' if notes(rnd)['gate1']['passed'] else 'failed'}, gate 2 "
            f"{'passed' if notes(rnd)['gate2']['passed'] else 'failed'}")


def named(c: Consensus) -> str:
    return f" ({c['bestTitle']!r})" if c.get("bestTitle") else ""


def close_triage(d: Discussion, rnd: Round) -> str:
    found = notes(rnd)["triage"]
    level = confidence(found["scores"])
    below = DeliberateSettings.of(d.settings).deliberate_below
    go = level < below
    found["confidence"], found["below"], found["deliberate"] = level, below, go
    if not go:
        d.termination_reason = "confident"
    return (f"round {rnd.number}: triage confidence {level} "
            + (f"is below {below}: the panel deliberates" if go else f"reaches {below}: the chair answers alone"))


def conclusion_spec(d: Discussion, ctx: Context) -> CallSpec | None:
    chair = d.panel.chair
    if d.termination_reason == "confident":
        user = ctx.prompts.render("direct", question=ctx.q, triage=notes(stage(d, "triage"))["triage"])
        return CallSpec(chair.id, chair, messages(chair, ctx.prompts, user), "conclude", 3000,
                        validate=parse_conclusion, schema=CONCLUSION_SCHEMA, context={"title": ctx.q.title})
    if d.termination_reason != "completed" or len(d.rounds) < len(stages(d)):
        return None  # a gate failed, or stopped early: no decision is written
    ranking, alts = notes(stage(d, "ranking")), alternatives(d)
    c = ranking["consensus"]
    name = lambda pid: d.personas.get(pid, {}).get("name", pid)  # noqa: E731
    dissent = [(name(p), alts[str(c["preferred"][p])]["title"], ranking["rankings"][p]["concern"] or "(no reason given)")
               for p in c["dissenters"]]
    ranked = [(f"{label}: {alts[label]['title']}", score) for label, score in
              sorted(c["means"].items(), key=lambda kv: -kv[1])]
    user = ctx.prompts.render("decision", question=ctx.q, ranked=ranked, best=alts[str(c["best"])]["title"],
                              consensus=c["score"], threshold=c["threshold"], dissent=dissent,
                              warnings=ranking.get("conformity", []))
    held = dissent_context(d.panel.member(c["dissenters"][0])) if c["dissenters"] else {}
    return CallSpec(chair.id, chair, messages(chair, ctx.prompts, user), "conclude", 3000,
                    validate=parse_conclusion, schema=CONCLUSION_SCHEMA, context={"title": ctx.q.title, **held})


class DeliberatePresentation(Presentation):
    conclusion_title = "Decision by the chair"

    def show_round(self, r: Round, names: dict[str, str]) -> list[str]:
        out = super().show_round(r, names)
        if c := notes(r).get("consensus"):
            out.append(f"  consensus {c['score']} on {c['best']}{named(c)} against {c['threshold']} ({c['taskType']})")
            for gate in ("gate1", "gate2"):
                failed = [x["check"] for x in notes(r)[gate]["checks"] if not x["passed"]]
                out.append(f"  {gate}: {'failed: ' + ', '.join(failed) if failed else 'passed'}")
            out += [f"  conformity warning: {w}" for w in notes(r).get("conformity", [])]
        return out


class DeliberateFigures(Figures):
    def recompute(self, d: Discussion, q: Question | None = None) -> list[dict[str, Any]] | None:
        return recompute(d, q)


class Deliberate(Protocol):
    summary = "personas research alone, propose alternatives, rank them; two gates check the consensus"
    runs_to_end = True
    settings_model = DeliberateSettings
    storage = RoundStorage(DeliberateNotes)
    presentation = DeliberatePresentation()
    figures = DeliberateFigures()

    # The rules are module functions, testable alone; the protocol is them.
    new_round = staticmethod(new_round)
    finished_rounds = staticmethod(finished_rounds)
    round_step = staticmethod(round_step)
    conclusion_spec = staticmethod(conclusion_spec)

    def most_rounds(self, d: Discussion) -> int:
        return len(stages(d))

    def prepare(self, d: Discussion, setup: Setup) -> None:
        if not d.personas:
            d.personas = assign(setup.personas(SHIPPED), d.panel.ids, DeliberateSettings.of(d.settings).personas)
