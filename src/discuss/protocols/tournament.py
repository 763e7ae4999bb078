"""The tournament and decompose protocols.

tournament: every panelist answers; then answers meet in pairs, each match
judged by the judge, and the loser drops out, round after round, until one
answer is left. The bracket (who met whom, who won, byes) is recorded in
each round's `round.yaml`; the last answer standing is the champion.

decompose: one panelist (the `drafter`, default the first member) splits
the question into parts; the other panelists answer the parts in parallel,
assigned in turn; the splitter reassembles one answer as the conclusion.
"""

from __future__ import annotations

import random

from ..agreement import agreement
from ..conclusions import parse_conclusion
from ..domain import Discussion, Panelist, Reply, Round
from ..errors import RunError
from ..calls import CallResult, CallSpec
from ..verdicts import parse_match, parse_split
from .base import Context, Step, messages, record_failure, require_replies

JUDGE = "judge"
MIN_PARTS, MAX_PARTS = 2, 6


def _answers_spec(d: Discussion, p: Panelist, ctx: Context) -> CallSpec:
    words = d.settings.max_response_words
    user = ctx.prompts.render("respond", question=ctx.q, earlier=[], omitted=0, round=1, max_words=words)
    return CallSpec(p.id, p, messages(p, ctx.prompts, user), "respond", words * 2,
                    context={"title": ctx.q.title, "round": 1})


def _record(rnd: Round, p: Panelist, result: CallResult, key: str, role: str, text: str, now: str) -> None:
    rnd.replies[key] = Reply(p.id, p.name, rnd.number, text, now, result.usage, result.latency_ms,
                             role=role, simulated=p.simulated)


class Tournament:
    name = "tournament"
    runs_to_end = True

    def __init__(self):
        # Matches whose judging failed in this run: asked again by the next run, not this one.
        self.failed_now: set[str] = set()

    @staticmethod
    def survivors(d: Discussion) -> list[str]:
        if not d.rounds or not d.rounds[0].complete:
            return []
        last = d.rounds[-1] if d.rounds[-1].complete else d.rounds[-2]
        if last.number == 1:
            entrants = sorted(last.replies)
            random.Random(f"{d.question_slug}:bracket").shuffle(entrants)
            return entrants
        return [m["winner"] for m in last.notes["matches"]] + last.notes.get("byes", [])

    def finished_rounds(self, d: Discussion) -> bool:
        return bool(d.rounds) and d.rounds[-1].complete and len(self.survivors(d)) <= 1

    def new_round(self, d: Discussion) -> Round:
        number = len(d.rounds) + 1
        rnd = Round(number=number, seed=0, stage="answers" if number == 1 else "matches")
        if number > 1:
            alive = self.survivors(d)
            rnd.notes["matches"] = [{"a": a, "b": b, "winner": None} for a, b in zip(alive[::2], alive[1::2])]
            rnd.notes["byes"] = alive[len(alive) - len(alive) % 2:]
        d.rounds.append(rnd)
        return rnd

    def round_step(self, d: Discussion, rnd: Round, ctx: Context) -> Step:
        if rnd.number == 1:
            failed = rnd.failed("answers") if rnd.replies else set()
            pending = [p for p in d.panel.members if p.id not in rnd.replies and p.id not in failed]
            if pending:
                return Step("round 1: answers", [_answers_spec(d, p, ctx) for p in pending],
                            lambda r: self.apply_answer(rnd, r, ctx.clock()), lambda: require_replies(rnd))
        else:
            open_matches = [i for i, m in enumerate(rnd.notes["matches"])
                            if m["winner"] is None and f"match-{i + 1}" not in self.failed_now]
            if open_matches:
                specs = [self.match_spec(d, rnd, i, ctx) for i in open_matches]
                return Step(f"round {rnd.number}: matches", specs, lambda r: self.apply_match(rnd, r, ctx.clock()))
        return Step("", after=lambda: self.close(d, rnd, ctx.clock()))

    @staticmethod
    def apply_answer(rnd: Round, result: CallResult, now: str) -> None:
        if not result.ok:
            return record_failure(rnd, "answers", result)
        _record(rnd, result.spec.panelist, result, result.spec.panelist.id, "respondent", result.text or "", now)

    @staticmethod
    def match_spec(d: Discussion, rnd: Round, i: int, ctx: Context) -> CallSpec:
        match = rnd.notes["matches"][i]
        first, second = match["a"], match["b"]
        if random.Random(f"{d.question_slug}:{rnd.number}:{i}").random() < 0.5:
            first, second = second, first  # neither side is always shown first
        answers = d.rounds[0].replies
        judge = d.panel.judge or d.panel.chair
        user = ctx.prompts.render("match", question=ctx.q, first=answers[first].text, second=answers[second].text)
        return CallSpec(f"match-{i + 1}", judge, messages(judge, ctx.prompts, user), "match", 600,
                        validate=parse_match, context={"match": i, "sides": {"A": first, "B": second},
                                                       "labels": {"A": answers[first].text, "B": answers[second].text}})

    def apply_match(self, rnd: Round, result: CallResult, now: str) -> None:
        i = result.spec.context["match"]
        if not result.ok:
            self.failed_now.add(result.spec.key)
            return record_failure(rnd, "match", result)
        match = rnd.notes["matches"][i]
        match["winner"] = result.spec.context["sides"][result.value["winner"]]
        match["shownFirst"] = result.spec.context["sides"]["A"]
        _record(rnd, result.spec.panelist, result, result.spec.key, JUDGE, result.value["reasoning"] + "\n", now)

    def close(self, d: Discussion, rnd: Round, now: str) -> str:
        if rnd.number > 1 and any(m["winner"] is None for m in rnd.notes["matches"]):
            raise RunError(f"round {rnd.number}: a match could not be judged; run again to retry")
        rnd.completed_at = now
        if rnd.number == 1:
            rnd.agreement = agreement([r.text for r in rnd.replies.values()])
        alive = self.survivors(d)
        if len(alive) == 1:
            d.rounds[-1].notes["champion"] = alive[0]
            return f"round {rnd.number}: champion {alive[0]}"
        return f"round {rnd.number}: {len(alive)} answers go on"

    def conclusion_spec(self, d: Discussion, ctx: Context) -> None:
        return None  # the champion's answer is the result; nothing more to write


class Decompose:
    name = "decompose"
    runs_to_end = True

    @staticmethod
    def splitter(d: Discussion) -> Panelist:
        return d.panel.member(d.settings.drafter) if d.settings.drafter else d.panel.members[0]

    def finished_rounds(self, d: Discussion) -> bool:
        return len(d.rounds) >= 2

    def new_round(self, d: Discussion) -> Round:
        number = len(d.rounds) + 1
        rnd = Round(number=number, seed=0, stage="split" if number == 1 else "parts")
        if number == 2:
            lead = self.splitter(d)
            helpers = [m.id for m in d.panel.members if m.id != lead.id] or [lead.id]
            rnd.notes["parts"] = [{**part, "assignee": helpers[i % len(helpers)]}
                                  for i, part in enumerate(d.rounds[0].notes["parts"])]
        d.rounds.append(rnd)
        return rnd

    def round_step(self, d: Discussion, rnd: Round, ctx: Context) -> Step:
        words = d.settings.max_response_words
        if rnd.number == 1 and not rnd.replies:
            lead = self.splitter(d)
            user = ctx.prompts.render("split", question=ctx.q, min_parts=MIN_PARTS, max_parts=MAX_PARTS)
            spec = CallSpec(lead.id, lead, messages(lead, ctx.prompts, user), "split", 1500,
                            validate=lambda text: parse_split(text, MIN_PARTS, MAX_PARTS),
                            context={"title": ctx.q.title})
            return Step("round 1: split", [spec], lambda r: self.apply_split(rnd, r, ctx.clock()),
                        lambda: require_replies(rnd))
        if rnd.number == 2:
            failed = rnd.failed("parts") if rnd.replies else set()
            pending = [(i, part) for i, part in enumerate(rnd.notes["parts"])
                       if f"part-{i + 1}" not in rnd.replies and f"part-{i + 1}" not in failed]
            if pending:
                specs = []
                for i, part in pending:
                    p = d.panel.member(part["assignee"])
                    user = ctx.prompts.render("part", question=ctx.q, part=part, max_words=words)
                    specs.append(CallSpec(f"part-{i + 1}", p, messages(p, ctx.prompts, user), "respond", words * 2,
                                          context={"title": part["title"], "round": 2}))
                return Step("round 2: parts", specs, lambda r: self.apply_part(rnd, r, ctx.clock()),
                            lambda: require_replies(rnd))
        return Step("", after=lambda: setattr(rnd, "completed_at", ctx.clock()))

    @staticmethod
    def apply_split(rnd: Round, result: CallResult, now: str) -> None:
        if not result.ok:
            return record_failure(rnd, "split", result)
        rnd.notes["parts"] = result.value
        text = "\n".join(f"## {p['title']}\n\n{p['question']}\n" for p in result.value)
        _record(rnd, result.spec.panelist, result, result.spec.panelist.id, "splitter", text, now)

    @staticmethod
    def apply_part(rnd: Round, result: CallResult, now: str) -> None:
        if not result.ok:
            # Recorded under the part's key, so the part is not asked again in this run.
            return record_failure(rnd, "parts", result, who=result.spec.key)
        _record(rnd, result.spec.panelist, result, result.spec.key, "part", result.text or "", now)

    def conclusion_spec(self, d: Discussion, ctx: Context) -> CallSpec | None:
        if len(d.rounds) < 2 or not d.rounds[1].complete:
            return None
        rnd, lead = d.rounds[1], self.splitter(d)
        names = {m.id: m.name for m in d.panel.members}
        parts = [(part["title"], names.get(part["assignee"], part["assignee"]), rnd.replies[f"part-{i + 1}"].text)
                 for i, part in enumerate(rnd.notes["parts"]) if f"part-{i + 1}" in rnd.replies]
        user = ctx.prompts.render("reassemble", question=ctx.q, parts=parts)
        return CallSpec(lead.id, lead, messages(lead, ctx.prompts, user), "conclude", 3000,
                        validate=parse_conclusion, context={"title": ctx.q.title})


def protocol(name: str):
    return Tournament() if name == "tournament" else Decompose()
