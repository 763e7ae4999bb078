"""The vote protocol's rules (Project Dyson's): answer, vote anonymously, pick a winner, repeat.

Each step reads the discussion state and says what to ask next, or folds
a finished call into the state. The state on disk tells what is done, so a
run that was interrupted picks up where it stopped: calls that finished are
never asked again.
"""

from __future__ import annotations

import random
from functools import partial

from discuss.plugin import (
    CONCLUSION_SCHEMA,
    FORECAST_ASK,
    CallResult,
    CallSpec,
    Context,
    Convergence,
    Discussion,
    InputError,
    Panelist,
    Phase,
    Prompts,
    Protocol,
    Question,
    Round,
    Step,
    agreement,
    agreement_test,
    describe,
    dissent_context,
    make_labels,
    measure,
    messages,
    parse_conclusion,
    record_failure,
    record_reply,
    require_measure,
    title_overlap,
    titles,
)

from . import moves
from .author import conclusion_author
from .ballots import ballot_schema, parse_ballot
from .forms import BALLOT
from .notes import notes
from .parts import VoteFigures, VotePresentation, VoteStorage
from .record import Abstention, Ballot, BallotBox, TerminationVote, Vote, ballot_box, round_seed
from .scoring import pick_winner, tally, vote_agreement
from .settings import VoteSettings
from .termination import Decision, decide
from .thread import ballot_texts, clip_tokens, earlier_context


def settings(d: Discussion) -> VoteSettings:
    return VoteSettings.of(d.settings)


def new_round(d: Discussion) -> Round:
    number = d.current_round + 1
    rnd = Round(number=number, seed=round_seed(d.seed_key, number), record=BallotBox())
    d.rounds.append(rnd)
    return rnd


# ---- respond ---------------------------------------------------------------

def respond_spec(d: Discussion, q: Question, rnd: Round, prompts: Prompts, p: Panelist) -> CallSpec:
    shown = settings(d).show_winner
    earlier, omitted = earlier_context(d, p.id, d.settings.context_tokens, shown)
    user = prompts.render("respond", question=q, earlier=earlier, omitted=omitted, hide_winners=not shown,
                          round=rnd.number, max_words=d.settings.max_response_words)
    return CallSpec(key=p.id, panelist=p, messages=messages(p, prompts, user), task="respond",
                    max_tokens=d.settings.max_response_words * 2, context={"title": q.title, "round": rnd.number})


def apply_reply(rnd: Round, result: CallResult, now: str) -> None:
    record_reply(rnd, result.spec.panelist, result, result.spec.key, "respondent", result.text or "", now)


# ---- vote ------------------------------------------------------------------

def label_order(rnd: Round, voter: str, panel_order: list[str] | None = None) -> dict[str, str]:
    """Labels A, B, C... to reply authors, shuffled per voter by the round's seed.

    A round run with named ballots labels each answer with its author's id,
    in the panel's order (`panel_order`), as Project Dyson's tool showed them.
    """
    if ballot_box(rnd).method == "named":
        return {pid: pid for pid in (panel_order or sorted(rnd.replies)) if pid in rnd.replies}
    targets = sorted(rnd.replies)
    random.Random(f"{rnd.seed}:{voter}").shuffle(targets)
    return dict(zip(make_labels(len(targets)), targets))


def vote_pending(d: Discussion, rnd: Round) -> list[Panelist]:
    return [p for p in d.panel.members if p.id not in ballot_box(rnd).voted()]


def vote_specs(d: Discussion, q: Question, rnd: Round, prompts: Prompts) -> list[CallSpec]:
    specs = []
    shown = ballot_texts(d, rnd)
    names = {m.id: m.name for m in d.panel.members}
    box = ballot_box(rnd)
    if not box.voted():
        # Chosen when the first ballot goes out; once one is in, the round keeps it (read back from the ballots).
        # Our anonymised rounds in our own layout say nothing: that is what a round with no method is.
        box.method = "named" if settings(d).ballots == "named" else None
    named = box.method == "named"
    for p in vote_pending(d, rnd):
        order = label_order(rnd, p.id, d.panel.ids)
        replies = [(label, shown[target]) for label, target in order.items()]
        user = prompts.render("vote", question=q, labels=list(order), replies=replies, named=named,
                              authors=[names.get(t, t) for t in order.values()], me=p.id, forecast_ask=FORECAST_ASK)
        labels, forecast = list(order), q.forecast == "yes-no"
        specs.append(CallSpec(
            key=p.id, panelist=p, messages=messages(p, prompts, user), task="vote", max_tokens=1500,
            validate=partial(parse_ballot, labels=labels, forecast=forecast), schema=ballot_schema(labels, forecast),
            context={"round": rnd.number, "labels": dict(replies), "order": order, "forecast": forecast},
            offline=moves.vote, worst_case=moves.worst_case, form=BALLOT,
        ))
    return specs


def apply_ballot(d: Discussion, rnd: Round, result: CallResult) -> None:
    p, box = result.spec.panelist, ballot_box(rnd)
    if not result.ok:
        if result.invalid:
            box.abstentions.append(Abstention(p.id, f"invalid ballot: {result.error}", result.usage))
        else:
            box.abstentions.append(Abstention(p.id, f"call failed: {result.error}"))
            record_failure(rnd, "vote", result)
        return
    order = result.spec.context["order"]
    parsed = result.value
    box.ballots.append(Ballot(p.id, dict(order), result.asks, result.usage))
    box.votes += [Vote(p.id, order[label], vote, why) for label, vote, why in parsed.votes]
    box.termination_votes.append(TerminationVote(p.id, parsed.termination, parsed.termination_reasoning))
    if parsed.probability is not None:
        box.forecasts[p.id] = parsed.probability


def close_round(d: Discussion, rnd: Round, now: str) -> Decision:
    """Tally the votes, pick the winner, decide whether to stop; the round is then complete.

    A round in which no panelist cast a valid ballot has no winner: a draw
    over scores nobody gave would crown someone the panel never chose.
    """
    box = ballot_box(rnd)
    if box.ballots:
        order = [pid for pid in d.panel.ids if pid in rnd.replies]
        box.results = tally(box.votes, order, settings(d).self_vote_weight)
        box.winner_id, box.tie_break = pick_winner(box.results, rnd.seed)
        box.winner_score = next(x.weighted_score for x in box.results if x.target_id == box.winner_id)
        rnd.agreement = vote_agreement(box.votes)
    else:
        box.results, box.winner_id, box.tie_break, box.winner_score, rnd.agreement = [], None, None, None, None
    decision = decide(d.rounds, d.settings, len(d.panel.members))
    if not box.ballots:
        # A panel that cannot vote decides nothing: stop when it never has, or twice running.
        never = not any(ballot_box(r).ballots for r in d.rounds)
        if never or (not decision.terminate and len(d.rounds) >= 2 and not ballot_box(d.rounds[-2]).ballots):
            decision = Decision(True, "no-valid-ballots",
                                f"no valid ballot in round {rnd.number}" + (" nor before" if never else ""))
    if not decision.terminate and (check := text_convergence(d, rnd)) is not None:
        notes(rnd)["convergence"] = check
        if check["converged"]:
            decision = Decision(True, "converged", str(check))
    box.should_terminate, box.termination_reason = decision.terminate, decision.reason
    rnd.completed_at = now
    return decision


def text_convergence(d: Discussion, rnd: Round) -> Convergence | None:
    """The `titles` or `agreement` test on the answers, when chosen; the vote has no judge."""
    test, texts = settings(d).convergence_test, [r.text for r in rnd.replies.values()]
    if test == "agreement":
        return agreement_test(agreement(texts, measure(d.settings.agreement_measure)), d.settings.consensus_at)
    if test == "titles" and rnd.number > 1:
        return title_overlap(titles([r.text for r in d.rounds[rnd.number - 2].replies.values()]), titles(texts))
    return None


# ---- conclude --------------------------------------------------------------

def _dissent(rnd: Round, names: dict[str, str]) -> list[str]:
    return [
        f"{names.get(v.voter_id, v.voter_id)} rejected {names.get(v.target_id, v.target_id)}'s reply: {v.reasoning}"
        for v in ballot_box(rnd).votes if v.vote == "REJECT" and v.reasoning
    ]


def conclusion_spec(d: Discussion, ctx: Context) -> CallSpec | None:
    if not any(r.complete and ballot_box(r).winner_id for r in d.rounds):
        return None  # no round was through, or none had a winner: nothing the panel chose to conclude from
    q, prompts = ctx.q, ctx.prompts
    author = conclusion_author(d)
    names = {m.id: m.name for m in d.panel.members}
    done = [(r, ballot_box(r)) for r in d.rounds if r.complete and ballot_box(r).winner_id in r.replies]
    share = max(d.settings.context_tokens // max(len(done), 1), 200)
    rounds = [
        {"number": r.number, "winner_score": f"{box.winner_score:g}",
         "winner_text": clip_tokens(r.replies[str(box.winner_id)].text, share),
         "dissent": _dissent(r, names)}
        for r, box in done
    ]
    user = prompts.render("conclude", question=q, rounds=rounds, reason=describe(d.termination_reason))
    # The dissent is voiced by the answer the last round scored lowest.
    last = done[-1][1] if done else None
    losers = sorted((x for x in last.results if x.target_id != last.winner_id),
                    key=lambda x: x.weighted_score) if last else []
    return CallSpec(
        key=author.id, panelist=author, messages=messages(author, prompts, user), task="conclude",
        max_tokens=3000, validate=parse_conclusion, schema=CONCLUSION_SCHEMA,
        context={"title": q.title, **(dissent_context(d.panel.member(losers[0].target_id)) if losers else {})},
    )


# ---- the protocol ------------------------------------------------------------

class VoteProtocol(Protocol):
    summary = "answer, vote anonymously on each other's answers, repeat until a stopping rule fires"
    counts_tokens = True  # ballots and the thread cut answers to a share of the context
    settings_model = VoteSettings
    storage = VoteStorage()
    presentation = VotePresentation()
    figures = VoteFigures()

    # The rules are module functions, testable alone; the protocol is them.
    new_round = staticmethod(new_round)
    conclusion_spec = staticmethod(conclusion_spec)

    def check_ready(self, d: Discussion) -> None:
        own = settings(d)
        if own.convergence_test == "agreement":
            require_measure(d)
        if own.conclusion_author != "winner" and own.conclusion_author not in d.panel.ids:
            raise InputError(f"conclusionAuthor: {own.conclusion_author!r} is not 'winner' nor a member "
                             f"of the panel ({', '.join(d.panel.ids)})")

    def round_step(self, d: Discussion, rnd: Round, ctx: Context) -> Step:
        answers = Phase(rnd, "respond", list(d.panel.members))
        if step := answers.step(f"round {rnd.number}: answers", partial(respond_spec, d, ctx.q, rnd, ctx.prompts),
                                lambda r: apply_reply(rnd, r, ctx.clock())):
            return step
        if specs := vote_specs(d, ctx.q, rnd, ctx.prompts):
            return Step(f"round {rnd.number}: votes", specs, lambda r: apply_ballot(d, rnd, r))

        def close() -> str:
            decision = close_round(d, rnd, ctx.clock())
            if decision.terminate:
                d.termination_reason = decision.reason
            box = ballot_box(rnd)
            if box.winner_id is None:
                return f"round {rnd.number}: no valid ballot, so no winner"
            tie = f", tie broken by {box.tie_break}" if box.tie_break else ""
            return f"round {rnd.number}: winner {box.winner_id} ({box.winner_score:g}){tie}"

        return Step("", after=close)
