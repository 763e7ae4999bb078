"""The council family: council, debate, adversarial and auto, as fixed stages.

Each round is one stage with one role; the last step is a synthesis by the
chairman (or, in adversarial, the converger) written as the conclusion.

- council: positions, then the chairman's synthesis (n + 1 calls).
- debate: positions; cross-examination, each panelist seeing its own
  answer and its peers'; rebuttal, each seeing exactly the critiques of its
  own answer; then the chairman over the revised answers (3n + 1 calls, the
  chairman optional).
- adversarial: one drafter; reviewers in parallel who see only the draft;
  a converger who judges the reviews (k + 2 calls).
- auto: a council whose first-round agreement below `escalateBelow`, or a
  question whose front matter says `stakes: high`, turns it into a debate
  (DeepThnkr's rule for choosing a mode); the reason is recorded in round 1.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

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
    Step,
    agreement,
    dissent_context,
    make_labels,
    measure,
    messages,
    pairwise,
    parse_conclusion,
    record_reply,
    require_measure,
)

from . import moves
from .critiques import critiques_schema, parse_critiques
from .notes import CouncilNotes, Critique, notes
from .roles import HIGH_STAKES, REVIEW_TASKS, converger, drafter, reviewers
from .settings import AdversarialSettings, AutoSettings, DebateSettings
from .verify import recompute


@dataclass(frozen=True)
class Stage:
    name: str
    role: str
    members: tuple[Panelist, ...]


def escalated(d: Discussion) -> bool:
    return bool(d.rounds and notes(d.rounds[0]).get("escalation", {}).get("debate"))




class CouncilPresentation(Presentation):
    conclusion_title = "Synthesis by the chairman"

    def show_round(self, r: Round, names: dict[str, str]) -> list[str]:
        out = super().show_round(r, names)
        out += [f"  {names.get(c['critic'], c['critic'])} critiqued {names.get(c['target'], c['target'])}"
                for c in notes(r).get("critiques", [])]
        if route := notes(r).get("route"):
            out.append(f"  route: {route['protocol']} ({route['reason']})")
        if escalation := notes(r).get("escalation"):
            out.append(f"  escalation: {escalation.get('reason')}")
        return out


class ConvergerPresentation(CouncilPresentation):
    conclusion_title = "Final answer by the converger"


class StagedFigures(Figures):
    """The figures of one staged protocol, recomputed by its own rules (each protocol has its own, so it never
    looks itself up by name)."""

    def __init__(self, kind: type[Staged] | None = None) -> None:
        self.kind = kind

    def recompute(self, d: Discussion, q: Question | None = None) -> list[dict[str, Any]] | None:
        if self.kind is None:
            return None
        protocol = self.kind()
        protocol.name = d.protocol  # as the registry names the protocol it made for the discussion
        return recompute(protocol, d, q)


class Staged(Protocol):
    runs_to_end = True
    storage = RoundStorage(CouncilNotes)
    presentation = CouncilPresentation()
    figures = StagedFigures()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.figures = StagedFigures(cls)

    def check_ready(self, d: Discussion) -> None:
        require_measure(d)

    def most_rounds(self, d: Discussion) -> int:
        return 3

    # ---- which rounds -------------------------------------------------------
    def stages(self, d: Discussion) -> list[Stage]:
        everyone = tuple(d.panel.members)
        positions = Stage("positions", "respondent", everyone)
        # Who gave no position has nothing to defend and no place in the debate.
        answered = tuple(m for m in everyone if d.rounds and m.id in d.rounds[0].replies)
        debate = [Stage("cross-examination", "critic", answered), Stage("rebuttal", "rebuttal", answered)]
        mode = self.mode(d)
        if mode == "council":
            return [positions]
        if mode == "debate":
            return [positions, *debate]
        if mode == "auto":
            return [positions, *debate] if escalated(d) else [positions]
        return [Stage("draft", "drafter", (drafter(d),)), Stage("review", "reviewer", reviewers(d))]

    def mode(self, d: Discussion) -> str:
        """Which of the family this discussion runs: the protocol's own name, unless auto routed it."""
        return self.name

    def finished_rounds(self, d: Discussion) -> bool:
        return len(d.rounds) >= len(self.stages(d))

    def new_round(self, d: Discussion) -> Round:
        stage = self.stages(d)[len(d.rounds)]
        rnd = Round(number=len(d.rounds) + 1, seed=0, stage=stage.name)
        d.rounds.append(rnd)
        return rnd

    # ---- one round ----------------------------------------------------------
    def round_step(self, d: Discussion, rnd: Round, ctx: Context) -> Step:
        stage = self.stages(d)[rnd.number - 1]
        calls = Phase(rnd, stage.name, list(stage.members))
        if step := calls.step(f"round {rnd.number}: {stage.name}", lambda p: self.spec(d, rnd, stage, p, ctx),
                              lambda r: self.apply(d, rnd, stage, r, ctx.clock())):
            return step
        return Step("", after=lambda: self.close(d, rnd, ctx.clock(), ctx.q.stakes))

    def spec(self, d: Discussion, rnd: Round, stage: Stage, p: Panelist, ctx: Context) -> CallSpec:
        q, prompts, words = ctx.q, ctx.prompts, d.settings.max_response_words
        context = {"title": q.title, "round": rnd.number}
        validate, move, schema = None, None, None
        if stage.name in ("positions", "draft"):
            task, user = "respond", prompts.render("respond", question=q, earlier=[], omitted=0,
                                                   round=rnd.number, max_words=words)
        elif stage.name == "cross-examination":
            order = self.peer_labels(d, rnd, p.id)
            peers = [(lab, d.rounds[0].replies[pid].text) for lab, pid in order.items()]
            own = d.rounds[0].replies.get(p.id)
            user = prompts.render("critique", question=q, own=own.text if own else "(you gave no answer)",
                                  peers=peers, labels=list(order))
            task, labels, move = "critique", list(order), moves.critique
            validate = lambda text, labels=labels: parse_critiques(text, labels)  # noqa: E731
            schema = critiques_schema(labels)
            context.update(labels=dict(peers), order=order)
        elif stage.name == "rebuttal":
            own = d.rounds[0].replies.get(p.id)
            user = prompts.render("rebut", question=q, own=own.text if own else "(you gave no answer)",
                                  critiques=critiques_of(d.rounds[1], p.id), max_words=words)
            task, move = "rebut", moves.rebut
        else:  # review
            user = prompts.render("review", question=q, draft=d.rounds[0].replies[drafter(d).id].text,
                                  max_words=words)
            task, move = "review", moves.review
        return CallSpec(key=p.id, panelist=p, messages=messages(p, prompts, user), task=task,
                        max_tokens=words * 2, validate=validate, schema=schema, context=context, offline=move)

    @staticmethod
    def peer_labels(d: Discussion, rnd: Round, me: str) -> dict[str, str]:
        peers = sorted(pid for pid in d.rounds[0].replies if pid != me)
        random.Random(f"{d.seed_key}:{rnd.number}:{me}").shuffle(peers)
        return dict(zip(make_labels(len(peers)), peers))

    def apply(self, d: Discussion, rnd: Round, stage: Stage, result: CallResult, now: str) -> None:
        p = result.spec.panelist
        text = result.text or ""
        if stage.name == "cross-examination":
            order = result.spec.context["order"]
            found: list[Critique] = [{"critic": p.id, "target": order[lab], "critique": c}
                                     for lab, c in result.value.items()]
            notes(rnd).setdefault("critiques", []).extend(found)
            notes(rnd)["critiques"].sort(key=lambda c: (c["critic"], c["target"]))
            names = {m.id: m.name for m in d.panel.members}
            text = "\n\n".join(f"## On the answer of {names.get(c['target'], c['target'])}\n\n{c['critique']}"
                               for c in found) + "\n"
        record_reply(rnd, p, result, p.id, stage.role, text, now)

    def close(self, d: Discussion, rnd: Round, now: str, stakes: str = "") -> str:
        texts = [r.text for r in rnd.replies.values()]
        similarity = measure(d.settings.agreement_measure)
        rnd.agreement = agreement(texts, similarity)
        ids = sorted(rnd.replies)
        scores = iter(pairwise([rnd.replies[i].text for i in ids], similarity))
        notes(rnd)["similarity"] = [{"a": a, "b": b, "score": round(next(scores), 4)}
                                   for n, a in enumerate(ids) for b in ids[n + 1:]]
        line = f"round {rnd.number}: agreement {rnd.agreement if rnd.agreement is not None else '-'}"
        if self.mode(d) == "auto" and rnd.number == 1:
            below = AutoSettings.of(d.settings).escalate_below
            disagree = rnd.agreement is not None and rnd.agreement < below
            high = stakes == HIGH_STAKES
            notes(rnd)["escalation"] = {
                "debate": disagree or high, "agreement": rnd.agreement, "below": below,
                "reason": (f"agreement {rnd.agreement} is below {below}: the panel debates"
                           if disagree else "the question's stakes are high: the panel debates" if high
                           else f"agreement {rnd.agreement} reaches {below}: "
                           "the chairman synthesises now"),
            }
            line += f"; {notes(rnd)['escalation']['reason']}"
        rnd.completed_at = now
        return line

    # ---- the synthesis ------------------------------------------------------
    def conclusion_spec(self, d: Discussion, ctx: Context) -> CallSpec | None:
        q, prompts = ctx.q, ctx.prompts
        names = {m.id: m.name for m in d.panel.members}
        done = [r for r in d.rounds if r.complete]
        if not done:
            return None
        last = done[-1]
        if self.mode(d) == "adversarial":
            chair = converger(d)
            reviews = [(names.get(pid, pid), r.text) for pid, r in last.replies.items() if last.number > 1]
            user = prompts.render("converge", question=q, draft=d.rounds[0].replies[drafter(d).id].text,
                                  reviews=reviews)
        else:
            if self.name == "debate" and not DebateSettings.of(d.settings).debate_chairman:
                return None
            chair = d.panel.chair
            answers = [(names.get(pid, pid), r.text) for pid, r in last.replies.items()]
            user = prompts.render("synthesis", question=q, answers=answers, debated=last.number > 1)
        minority = outlier(last)
        return CallSpec(key=chair.id, panelist=chair, messages=messages(chair, prompts, user), task="conclude",
                        max_tokens=3000, validate=parse_conclusion, schema=CONCLUSION_SCHEMA,
                        context={"title": q.title, **(dissent_context(d.panel.member(minority)) if minority else {})})


def outlier(rnd: Round) -> str | None:
    """The member whose answer is least like the others' (by the round's recorded similarity)."""
    totals: dict[str, list[float]] = {}
    for pair in notes(rnd).get("similarity", []):
        for pid in (pair["a"], pair["b"]):
            totals.setdefault(pid, []).append(pair["score"])
    return min(totals, key=lambda pid: sum(totals[pid]) / len(totals[pid])) if totals else None


def critiques_of(rnd: Round, target: str) -> list[str]:
    return [c["critique"] for c in notes(rnd).get("critiques", []) if c["target"] == target]


class Council(Staged):
    summary = "every panelist answers alone, then the chairman synthesises consensus and divergence"


class Debate(Staged):
    summary = "positions, cross-examination of peers, rebuttal with a revised answer, then the chairman"
    settings_model = DebateSettings


class Adversarial(Staged):
    summary = "one drafter, reviewers who never see each other, a converger who judges the reviews"
    presentation = ConvergerPresentation()
    settings_model = AdversarialSettings

    def most_rounds(self, d: Discussion) -> int:
        return 2


class Auto(Staged):
    summary = ("a council that turns into a debate when its first answers disagree or the stakes are high; "
               "a review of an artefact goes to the adversarial council")
    settings_model = AutoSettings

    def mode(self, d: Discussion) -> str:
        route = notes(d.rounds[0]).get("route") if d.rounds else None
        return "adversarial" if route and route["protocol"] == "adversarial" else "auto"

    def round_step(self, d: Discussion, rnd: Round, ctx: Context) -> Step:
        if rnd.number == 1 and "route" not in notes(rnd):
            # Decided once, from the question, and kept: the rounds that follow read it from the round.
            review = (ctx.q.task_type or "").lower() in REVIEW_TASKS
            notes(rnd)["route"] = {
                "protocol": "adversarial" if review else "council",
                "reason": f"the question's taskType is {ctx.q.task_type!r}: an artefact is reviewed by a drafter, "
                          "independent reviewers and a converger" if review
                          else "a council first; it debates if the answers disagree or the stakes are high"}
            rnd.stage = self.stages(d)[0].name
        return super().round_step(d, rnd, ctx)
