"""The critique protocol: answers, then rounds of structured critique scored by a judge.

Round 1: every panelist answers alone. Each later round: every panelist
reads its peers' positions from the round before (never a same-round reply)
and answers JSON: whom it agrees with on what, whom it disagrees with on
what and why, its updated position and its confidence. After each critique
round the judge scores convergence on three axes; the discussion stops when
the chosen convergence test passes, after `critiqueRounds` critique rounds,
or at `maxRounds` rounds in all (`--max-rounds`), whichever comes first. A
synthesizer that did not debate writes the attributed answer.
"""

from __future__ import annotations

import random
from typing import Any

from discuss.plugin import (
    CONCLUSION_SCHEMA,
    FORECAST_ASK,
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
    RoundFigures,
    RoundStorage,
    Step,
    agreement,
    agreement_test,
    convergence_line,
    dissent_context,
    in_words,
    judge_test,
    make_labels,
    measure,
    messages,
    parse_conclusion,
    record_failure,
    record_reply,
    require_measure,
    title_overlap,
    titles,
    with_probability,
)

from . import moves
from .notes import CritiqueNotes, Stance, Verdict, notes
from .replies import judge_schema, parse_judge, parse_stance, stance_schema
from .roles import JUDGE, judge_of, positions, synthesizer_of
from .settings import CritiqueSettings
from .verify import recompute


def dissenter(d: Discussion, rnd: Round) -> Panelist | None:
    """Who disagreed most in `rnd`: the voice of the conclusion's dissent."""
    stances = notes(rnd).get("stances", {})
    counts = {pid: len(s["disagreements"]) for pid, s in stances.items() if s["disagreements"]}
    return d.panel.member(max(counts, key=lambda pid: counts[pid])) if counts else None


def new_round(d: Discussion) -> Round:
    number = len(d.rounds) + 1
    rnd = Round(number=number, seed=0, stage="answers" if number == 1 else "critique")
    d.rounds.append(rnd)
    return rnd


def peer_labels(d: Discussion, rnd: Round, me: str) -> dict[str, str]:
    peers = sorted(pid for pid in positions(d.rounds[rnd.number - 2]) if pid != me)
    random.Random(f"{d.seed_key}:{rnd.number}:{me}").shuffle(peers)
    return dict(zip(make_labels(len(peers)), peers))


def answer_spec(d: Discussion, rnd: Round, p: Panelist, ctx: Context) -> CallSpec:
    words = d.settings.max_response_words
    context = {"title": ctx.q.title, "round": rnd.number}
    if rnd.number == 1:
        user = ctx.prompts.render("respond", question=ctx.q, earlier=[], omitted=0, round=1, max_words=words)
        return CallSpec(p.id, p, messages(p, ctx.prompts, user), "respond", words * 2, context=context)
    previous = positions(d.rounds[rnd.number - 2])
    order = peer_labels(d, rnd, p.id)
    peers = [(label, previous[pid].text) for label, pid in order.items()]
    own = previous[p.id].text if p.id in previous else "(you gave no position)"
    user = ctx.prompts.render("stance", question=ctx.q, round=rnd.number - 1, own=own, peers=peers,
                              max_words=words, forecast_ask=FORECAST_ASK)
    labels, forecast = list(order), ctx.q.forecast == "yes-no"
    schema = stance_schema(labels)
    return CallSpec(p.id, p, messages(p, ctx.prompts, user), "stance", words * 3,
                    validate=lambda text: parse_stance(text, labels, forecast),
                    schema=with_probability(schema) if forecast else schema,
                    context={**context, "labels": dict(peers), "order": order, "forecast": forecast},
                    offline=moves.stance)


def apply_answer(d: Discussion, rnd: Round, result: CallResult, now: str) -> None:
    p = result.spec.panelist
    text = result.text or ""
    if result.spec.task == "stance":
        order = result.spec.context["order"]
        stance = result.value
        text = stance["position"]
        kept: Stance = {
            "confidence": stance["confidence"],
            "agreements": [{"with": order[a["with"]], "on": a["on"]} for a in stance["agreements"]],
            "disagreements": [{"with": order[x["with"]], "on": x["on"], "why": x["why"]}
                              for x in stance["disagreements"]],
        }
        if "probability" in stance:
            kept["probability"] = stance["probability"]
        notes(rnd).setdefault("stances", {})[p.id] = kept
        notes(rnd)["stances"] = dict(sorted(notes(rnd)["stances"].items()))
    record_reply(rnd, p, result, p.id, "respondent" if rnd.number == 1 else "critic", text, now)


def judge_spec(d: Discussion, rnd: Round, ctx: Context) -> CallSpec:
    judge = judge_of(d, rnd.number)
    current = positions(rnd)
    labelled = list(zip(make_labels(len(current)), [current[pid].text for pid in sorted(current)]))
    user = ctx.prompts.render("judge", question=ctx.q, round=rnd.number - 1, positions=labelled)
    return CallSpec(judge.id, judge, messages(judge, ctx.prompts, user), "judge", 800, validate=parse_judge,
                    schema=judge_schema(),
                    context={"round": rnd.number, "texts": [t for _, t in labelled]}, offline=moves.judge,
                    worst_case=moves.never_converged)


def apply_judge(d: Discussion, rnd: Round, result: CallResult, now: str) -> None:
    judge = result.spec.panelist
    # A judge who also debates is on record, so a reader can weigh the score.
    debated: Verdict = {"debated": True} if judge.id in d.panel.ids else {}
    if not result.ok:
        record_failure(rnd, JUDGE, result)
        notes(rnd)["judge"] = {"judgeId": judge.id, "score": None, "failed": True, **debated}
        return
    verdict = result.value
    notes(rnd)["judge"] = {"judgeId": judge.id, "recommendation": verdict["recommendation"], **debated,
                           "keyFacts": verdict["keyFacts"], "caveats": verdict["caveats"], "score": verdict["score"]}
    record_reply(rnd, judge, result, f"{JUDGE}-{judge.id}", JUDGE, verdict["reasoning"] + "\n", now)


def round_step(d: Discussion, rnd: Round, ctx: Context) -> Step:
    members = d.panel.members if rnd.number == 1 else [
        m for m in d.panel.members if m.id in positions(d.rounds[rnd.number - 2])]
    answers = Phase(rnd, rnd.stage or "", list(members))
    if step := answers.step(f"round {rnd.number}: {rnd.stage}", lambda p: answer_spec(d, rnd, p, ctx),
                            lambda r: apply_answer(d, rnd, r, ctx.clock())):
        return step
    if rnd.number > 1 and "judge" not in notes(rnd):
        return Step(f"round {rnd.number}: judge", [judge_spec(d, rnd, ctx)],
                    lambda r: apply_judge(d, rnd, r, ctx.clock()))
    return Step("", after=lambda: close(d, rnd, ctx.clock()))


def close(d: Discussion, rnd: Round, now: str) -> str:
    texts = [r.text for r in positions(rnd).values()]
    rnd.agreement = agreement(texts, measure(d.settings.agreement_measure))
    rnd.completed_at = now
    if rnd.number == 1:
        return f"round 1: agreement {rnd.agreement}"
    own = CritiqueSettings.of(d.settings)
    test = own.convergence_test
    if test == "titles":
        check = title_overlap(titles([r.text for r in positions(d.rounds[rnd.number - 2]).values()]), titles(texts))
    elif test == "agreement":
        check = agreement_test(rnd.agreement, d.settings.consensus_at)
    else:
        check = judge_test(notes(rnd)["judge"].get("score"), own.convergence_threshold)
    notes(rnd)["convergence"] = check
    if check["converged"]:
        d.termination_reason = "converged"
    elif rnd.number - 1 >= own.critique_rounds or rnd.number >= d.settings.max_rounds:
        d.termination_reason = "max-rounds"
    return f"round {rnd.number}: {test} test {'passed' if check['converged'] else 'not passed'} ({in_words(check)})"


def conclusion_spec(d: Discussion, ctx: Context) -> CallSpec | None:
    done = [r for r in d.rounds if r.complete]
    if not done:
        return None
    names = {m.id: m.name for m in d.panel.members}
    rounds = []
    for r in done:
        stances = notes(r).get("stances", {})
        rounds.append({
            "number": r.number,
            "score": notes(r).get("judge", {}).get("score"),
            "positions": [(names.get(pid, pid), reply.text, stances[pid]["confidence"] if pid in stances else None)
                          for pid, reply in positions(r).items()],
            "disagreements": [f"{names.get(pid, pid)} disagreed with {names.get(x['with'], x['with'])} on "
                              f"{x['on']}: {x['why']}" for pid, s in stances.items() for x in s["disagreements"]],
        })
    writer = synthesizer_of(d)
    user = ctx.prompts.render("attributed", question=ctx.q, rounds=rounds, panel_size=len(d.panel.members))
    minority = dissenter(d, done[-1])
    return CallSpec(writer.id, writer, messages(writer, ctx.prompts, user), "conclude", 3000,
                    validate=parse_conclusion, schema=CONCLUSION_SCHEMA,
                    context={"title": ctx.q.title, "attributed": True,
                             **(dissent_context(minority) if minority else {})})


class CritiquePresentation(Presentation):
    conclusion_title = "Attributed answer by the synthesizer"

    def show_round(self, r: Round, names: dict[str, str]) -> list[str]:
        out = super().show_round(r, names)
        if judge := notes(r).get("judge"):
            who = judge.get("judgeId", "")
            also = " (also a debater)" if judge.get("debated") else ""
            out.append(f"  judge {names.get(who, who)}{also}: convergence {judge.get('score')}"
                       + ("" if judge.get("score") is None else f" (recommendation {judge['recommendation']}, "
                          f"key facts {judge['keyFacts']}, caveats {judge['caveats']})"))
        return out + convergence_line(notes(r).get("convergence"))


class CritiqueFigures(Figures):
    def of_round(self, r: Round) -> RoundFigures:
        """No winner or scores; each debater's probability of yes, where the question asks for a forecast."""
        stances = notes(r).get("stances", {})
        return RoundFigures(forecasts=tuple((pid, s["probability"]) for pid, s in stances.items()
                                            if "probability" in s))

    def recompute(self, d: Discussion, q: Question | None = None) -> list[dict[str, Any]] | None:
        return recompute(d, q)


class Critique(Protocol):
    summary = "answers, then rounds of structured critique scored by a judge, then an attributed synthesis"
    settings_model = CritiqueSettings
    storage = RoundStorage(CritiqueNotes)
    presentation = CritiquePresentation()
    figures = CritiqueFigures()

    # The rules are module functions, testable alone; the protocol is them.
    new_round = staticmethod(new_round)
    round_step = staticmethod(round_step)
    conclusion_spec = staticmethod(conclusion_spec)

    def check_ready(self, d: Discussion) -> None:
        require_measure(d)

    def most_rounds(self, d: Discussion) -> int:
        return min(CritiqueSettings.of(d.settings).critique_rounds + 1, d.settings.max_rounds)
