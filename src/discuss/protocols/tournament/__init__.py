"""The tournament protocol: every panelist answers; answers meet in pairs, the loser drops out.

With `matchDebate` on (the default), each pair first debates briefly: each
side answers the other's answer once, both at once. Then a judge who is in
neither side of the match (the panel's judge, an outsider, else another
member) picks the winner from the answers and the debate. Round after
round, until one answer is left. The bracket (who met whom, who won, byes)
is recorded in each round's `round.yaml`; the last answer standing is the
champion, and its answer is the result.
"""

from __future__ import annotations

import random
from typing import Any

from discuss.plugin import (
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
    RunError,
    Step,
    agreement,
    messages,
    record_failure,
    record_reply,
)

from . import moves
from .notes import TournamentNotes, notes
from .replies import MATCH_SCHEMA, parse_match
from .roles import DEBATER, JUDGE, argument_key, judge_of
from .settings import TournamentSettings
from .verify import recompute

ARGUMENT_WORDS = 150  # a short debate: one answer to the other side, no more


def _answers_spec(d: Discussion, p: Panelist, ctx: Context) -> CallSpec:
    words = d.settings.max_response_words
    user = ctx.prompts.render("respond", question=ctx.q, earlier=[], omitted=0, round=1, max_words=words)
    return CallSpec(p.id, p, messages(p, ctx.prompts, user), "respond", words * 2,
                    context={"title": ctx.q.title, "round": 1})


class TournamentPresentation(Presentation):

    def show_round(self, r: Round, names: dict[str, str]) -> list[str]:
        out = super().show_round(r, names)
        out += [f"  {names.get(m['a'], m['a'])} vs {names.get(m['b'], m['b'])}: "
                f"{names.get(m['winner'], m['winner']) if m['winner'] else 'undecided'}"
                for m in notes(r).get("matches", [])]
        if champion := notes(r).get("champion"):
            out.append(f"  champion: {names.get(champion, champion)}")
        return out


class TournamentFigures(Figures):
    def recompute(self, d: Discussion, q: Question | None = None) -> list[dict[str, Any]] | None:
        return recompute(d, q)

    def matches(self, d: Discussion) -> list[tuple[str, str, str | None]] | None:
        return [(m["a"], m["b"], m["winner"]) for r in d.rounds for m in notes(r).get("matches", [])]


class Tournament(Protocol):
    summary = "every panelist answers; answers meet in judged pairs until one is left"
    runs_to_end = True
    settings_model = TournamentSettings
    storage = RoundStorage(TournamentNotes)
    presentation = TournamentPresentation()
    figures = TournamentFigures()

    def __init__(self) -> None:
        # Matches whose judging failed in this run: asked again by the next run, not this one.
        self.failed_now: set[str] = set()

    @staticmethod
    def survivors(d: Discussion) -> list[str]:
        if not d.rounds or not d.rounds[0].complete:
            return []
        last = d.rounds[-1] if d.rounds[-1].complete else d.rounds[-2]
        if last.number == 1:
            entrants = sorted(last.replies)
            random.Random(f"{d.seed_key}:bracket").shuffle(entrants)
            return entrants
        played = notes(last)
        return [str(m["winner"]) for m in played.get("matches", [])] + played.get("byes", [])

    def finished_rounds(self, d: Discussion) -> bool:
        return bool(d.rounds) and d.rounds[-1].complete and len(self.survivors(d)) <= 1

    def new_round(self, d: Discussion) -> Round:
        number = len(d.rounds) + 1
        rnd = Round(number=number, seed=0, stage="answers" if number == 1 else "matches")
        if number > 1:
            alive = self.survivors(d)
            notes(rnd)["matches"] = [{"a": a, "b": b, "winner": None} for a, b in zip(alive[::2], alive[1::2])]
            notes(rnd)["byes"] = alive[len(alive) - len(alive) % 2:]
        d.rounds.append(rnd)
        return rnd

    def round_step(self, d: Discussion, rnd: Round, ctx: Context) -> Step:
        if rnd.number == 1:
            answers = Phase(rnd, "answers", list(d.panel.members))
            if step := answers.step("round 1: answers", lambda p: _answers_spec(d, p, ctx),
                                    lambda r: self.apply_answer(rnd, r, ctx.clock())):
                return step
        else:
            open_matches = [i for i, m in enumerate(notes(rnd)["matches"])
                            if m["winner"] is None and f"match-{i + 1}" not in self.failed_now]
            arguing = self.pending_arguments(d, rnd, open_matches)
            if arguing:
                specs = [self.argument_spec(d, rnd, i, pid, ctx) for i, pid in arguing]
                return Step(f"round {rnd.number}: match debates", specs,
                            lambda r: self.apply_argument(rnd, r, ctx.clock()))
            if open_matches:
                specs = [self.match_spec(d, rnd, i, ctx) for i in open_matches]
                return Step(f"round {rnd.number}: matches", specs, lambda r: self.apply_match(rnd, r, ctx.clock()))
        return Step("", after=lambda: self.close(d, rnd, ctx.clock()))

    @staticmethod
    def apply_answer(rnd: Round, result: CallResult, now: str) -> None:
        record_reply(rnd, result.spec.panelist, result, result.spec.panelist.id, "respondent", result.text or "", now)

    @staticmethod
    def pending_arguments(d: Discussion, rnd: Round, open_matches: list[int]) -> list[tuple[int, str]]:
        """The sides of undecided matches still to argue; a side whose call failed is judged without it."""
        if not TournamentSettings.of(d.settings).match_debate:
            return []
        failed = rnd.failed("debate")
        return [(i, pid) for i in open_matches for pid in (notes(rnd)["matches"][i]["a"], notes(rnd)["matches"][i]["b"])
                if argument_key(i, pid) not in rnd.replies and pid not in failed]

    @staticmethod
    def argument_spec(d: Discussion, rnd: Round, i: int, pid: str, ctx: Context) -> CallSpec:
        match = notes(rnd)["matches"][i]
        other = match["b"] if pid == match["a"] else match["a"]
        p, answers = d.panel.member(pid), d.rounds[0].replies
        user = ctx.prompts.render("argue", question=ctx.q, own=answers[pid].text, other=answers[other].text,
                                  max_words=ARGUMENT_WORDS)
        return CallSpec(argument_key(i, pid), p, messages(p, ctx.prompts, user), "argue", ARGUMENT_WORDS * 2,
                        context={"title": ctx.q.title, "round": rnd.number, "match": i + 1}, offline=moves.argue)

    @staticmethod
    def apply_argument(rnd: Round, result: CallResult, now: str) -> None:
        if not result.ok:
            return record_failure(rnd, "debate", result)
        record_reply(rnd, result.spec.panelist, result, result.spec.key, DEBATER, result.text or "", now)

    judge_of = staticmethod(judge_of)

    def match_spec(self, d: Discussion, rnd: Round, i: int, ctx: Context) -> CallSpec:
        match = notes(rnd)["matches"][i]
        first, second = match["a"], match["b"]
        if random.Random(f"{d.seed_key}:{rnd.number}:{i}").random() < 0.5:
            first, second = second, first  # neither side is always shown first
        answers = d.rounds[0].replies
        judge = self.judge_of(d, rnd, i)
        argued = {pid: rnd.replies[argument_key(i, pid)].text for pid in (first, second)
                  if argument_key(i, pid) in rnd.replies}
        user = ctx.prompts.render("match", question=ctx.q, first=answers[first].text, second=answers[second].text,
                                  debate=TournamentSettings.of(d.settings).match_debate, first_argues=argued.get(first),
                                  second_argues=argued.get(second))
        return CallSpec(f"match-{i + 1}", judge, messages(judge, ctx.prompts, user), "match", 600,
                        validate=parse_match, schema=MATCH_SCHEMA, offline=moves.match,
                        context={"match": i, "sides": {"A": first, "B": second},
                                 "labels": {"A": answers[first].text, "B": answers[second].text}})

    def apply_match(self, rnd: Round, result: CallResult, now: str) -> None:
        i = result.spec.context["match"]
        if not result.ok:
            self.failed_now.add(result.spec.key)
            if result.invalid:  # asked again and again, never a usable verdict: it decides nothing
                notes(rnd)["matches"][i]["undecided"] = "no usable verdict from the judge"
            return record_failure(rnd, "match", result)
        match = notes(rnd)["matches"][i]
        match["winner"] = result.spec.context["sides"][result.value["winner"]]
        match["shownFirst"] = result.spec.context["sides"]["A"]
        record_reply(rnd, result.spec.panelist, result, result.spec.key, JUDGE, result.value["reasoning"] + "\n", now)

    def close(self, d: Discussion, rnd: Round, now: str) -> str:
        unjudged = [m for m in notes(rnd).get("matches", []) if m["winner"] is None]
        if rnd.number > 1 and any(not m.get("undecided") for m in unjudged):
            raise RunError(f"round {rnd.number}: a match could not be judged; run again to retry")
        if rnd.number > 1 and unjudged:
            # No champion is crowned by a judge that never judged: the tournament ends here, honestly.
            rnd.completed_at = now
            d.termination_reason = "no-valid-verdict"
            return f"round {rnd.number}: {len(unjudged)} match(es) without a usable verdict; no champion"
        rnd.completed_at = now
        if rnd.number == 1:
            rnd.agreement = agreement([r.text for r in rnd.replies.values()])
        alive = self.survivors(d)
        if len(alive) == 1:
            notes(d.rounds[-1])["champion"] = alive[0]
            return f"round {rnd.number}: champion {alive[0]}"
        return f"round {rnd.number}: {len(alive)} answers go on"

    def conclusion_spec(self, d: Discussion, ctx: Context) -> None:
        return None  # the champion's answer is the result; nothing more to write

    def result_of(self, d: Discussion) -> str | None:
        return next((str(r.notes["champion"]) for r in d.rounds if r.notes.get("champion")), None)

    def most_rounds(self, d: Discussion) -> int:
        return 1 + max(len(d.panel.members) - 1, 0).bit_length()
