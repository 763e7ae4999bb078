"""The decompose protocol: split the question, answer the parts in parallel, reassemble.

One panelist (the `drafter`, default the first member) splits the question
into parts; the other panelists answer the parts in parallel, assigned in
turn; the splitter reassembles one answer as the conclusion.
"""

from __future__ import annotations

from typing import Any

from discuss.plugin import (
    CONCLUSION_SCHEMA,
    CallResult,
    CallSpec,
    Context,
    Discussion,
    Figures,
    Phase,
    Presentation,
    Protocol,
    Question,
    Round,
    RoundStorage,
    Step,
    messages,
    parse_conclusion,
    record_failure,
    record_reply,
    require_replies,
    titled,
)

from . import moves
from .notes import DecomposeNotes, Part, notes
from .replies import parse_split
from .roles import splitter
from .settings import DecomposeSettings
from .verify import recompute

MIN_PARTS, MAX_PARTS = 2, 6


class DecomposePresentation(Presentation):
    conclusion_title = "Reassembled answer by the splitter"


class DecomposeFigures(Figures):
    def recompute(self, d: Discussion, q: Question | None = None) -> list[dict[str, Any]] | None:
        return recompute(d, q)


class Decompose(Protocol):
    summary = "one panelist splits the question, the others answer the parts, the splitter reassembles"
    runs_to_end = True
    settings_model = DecomposeSettings
    storage = RoundStorage(DecomposeNotes)
    presentation = DecomposePresentation()
    figures = DecomposeFigures()

    splitter = staticmethod(splitter)

    def finished_rounds(self, d: Discussion) -> bool:
        return len(d.rounds) >= 2

    def new_round(self, d: Discussion) -> Round:
        number = len(d.rounds) + 1
        rnd = Round(number=number, seed=0, stage="split" if number == 1 else "parts")
        if number == 2:
            lead = self.splitter(d)
            helpers = [m.id for m in d.panel.members if m.id != lead.id] or [lead.id]
            notes(rnd)["parts"] = [{**part, "assignee": helpers[i % len(helpers)]}
                                  for i, part in enumerate(notes(d.rounds[0])["parts"])]
        d.rounds.append(rnd)
        return rnd

    def round_step(self, d: Discussion, rnd: Round, ctx: Context) -> Step:
        words = d.settings.max_response_words
        if rnd.number == 1 and not rnd.replies:
            lead = self.splitter(d)
            user = ctx.prompts.render("split", question=ctx.q, min_parts=MIN_PARTS, max_parts=MAX_PARTS)
            spec = CallSpec(lead.id, lead, messages(lead, ctx.prompts, user), "split", 1500,
                            validate=lambda text: parse_split(text, MIN_PARTS, MAX_PARTS),
                            schema=titled("parts", "question", MIN_PARTS, MAX_PARTS),
                            context={"title": ctx.q.title, "most": MAX_PARTS}, offline=moves.split,
                            worst_case=moves.most_parts)
            return Step("round 1: split", [spec], lambda r: self.apply_split(rnd, r, ctx.clock()),
                        lambda: require_replies(rnd))
        if rnd.number == 2:
            def part_spec(item: tuple[int, Part]) -> CallSpec:
                i, part = item
                p = d.panel.member(part["assignee"])
                user = ctx.prompts.render("part", question=ctx.q, part=part, max_words=words)
                return CallSpec(f"part-{i + 1}", p, messages(p, ctx.prompts, user), "respond", words * 2,
                                context={"title": part["title"], "round": 2})

            parts = Phase(rnd, "parts", list(enumerate(notes(rnd)["parts"])), key=lambda item: f"part-{item[0] + 1}")
            if step := parts.step("round 2: parts", part_spec, lambda r: self.apply_part(rnd, r, ctx.clock())):
                return step
        return Step("", after=lambda: setattr(rnd, "completed_at", ctx.clock()))

    @staticmethod
    def apply_split(rnd: Round, result: CallResult, now: str) -> None:
        if not result.ok:
            return record_failure(rnd, "split", result)
        notes(rnd)["parts"] = result.value
        text = "\n".join(f"## {p['title']}\n\n{p['question']}\n" for p in result.value)
        record_reply(rnd, result.spec.panelist, result, result.spec.panelist.id, "splitter", text, now)

    @staticmethod
    def apply_part(rnd: Round, result: CallResult, now: str) -> None:
        record_reply(rnd, result.spec.panelist, result, result.spec.key, "part", result.text or "", now)

    def conclusion_spec(self, d: Discussion, ctx: Context) -> CallSpec | None:
        if len(d.rounds) < 2 or not d.rounds[1].complete:
            return None
        rnd, lead = d.rounds[1], self.splitter(d)
        names = {m.id: m.name for m in d.panel.members}
        parts = [(part["title"], names.get(part["assignee"], part["assignee"]), rnd.replies[f"part-{i + 1}"].text)
                 for i, part in enumerate(notes(rnd)["parts"]) if f"part-{i + 1}" in rnd.replies]
        user = ctx.prompts.render("reassemble", question=ctx.q, parts=parts)
        return CallSpec(lead.id, lead, messages(lead, ctx.prompts, user), "conclude", 3000,
                        validate=parse_conclusion, schema=CONCLUSION_SCHEMA, context={"title": ctx.q.title})

    def most_rounds(self, d: Discussion) -> int:
        return 2
