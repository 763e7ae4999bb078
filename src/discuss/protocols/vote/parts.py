"""The vote protocol's optional parts: its files beside the replies, how it is shown, and its figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from discuss.plugin import (
    Discussion,
    Figures,
    InputError,
    Judgement,
    Presentation,
    Question,
    Round,
    RoundFigures,
    RoundStorage,
    Score,
    convergence_line,
)

from . import files
from .audit import audit
from .bias import report
from .forms import BALLOT
from .notes import VoteNotes, notes
from .record import METHODS, VOTE_SCORES, ballot_box
from .rescore import TIE_RULES, lines, rescore
from .scoring import describe_tie
from .settings import VoteSettings, from_flags
from .tables import discussion_row, round_row, vote_rows
from .termination import conclude_counts
from .verdict import confidence, dissent
from .verify import recompute


class VoteStorage(RoundStorage):
    """votes.yaml in each round folder; the winner, scores and stopping votes in the index."""

    notes_type = VoteNotes
    index_notes = ("convergence", "ballotCut")

    round_files = (files.VOTES_FILE,)

    def round_index(self, r: Round, failures: list[dict[str, Any]]) -> dict[str, Any]:
        box = ballot_box(r)
        return {
            "roundNumber": r.number, "seed": r.seed, "winnerId": box.winner_id, "winnerScore": box.winner_score,
            "tieBreak": box.tie_break, "shouldTerminate": box.should_terminate,
            "terminationReason": box.termination_reason, "agreement": r.agreement,
            **{key: r.notes[key] for key in self.index_notes if key in r.notes},
            "failures": failures, "completedAt": r.completed_at,
            **({"method": box.method} if box.method else {}),
        }

    def write_round_file(self, r: Round, name: str, panel_order: list[str]) -> dict[str, Any] | None:
        return files.votes_dict(r, panel_order)

    def read_round_file(self, r: Round, name: str, data: dict[str, Any]) -> None:
        files.read_votes(r, data)

    def read_index(self, r: Round, raw: dict[str, Any]) -> None:
        files.read_index(r, raw)

    def check_round(self, r: Round, folder: Path) -> str | None:
        return files.missing(r, folder)


class VotePresentation(Presentation):
    """Scores and votes under each answer, the winner marked; the ballot form a person fills in."""


    def headline(self, d: Discussion, stats: dict[str, Any], agreement: str | None) -> str:
        return f"approval from others: {stats['approvalRate']}%"

    def show_round(self, r: Round, names: dict[str, str]) -> list[str]:
        box = ballot_box(r)
        scores = {x.target_id: x for x in box.results}
        out = []
        for pid, reply in r.replies.items():
            x = scores.get(pid)
            score = f"{x.weighted_score:g} ({x.approve_count} approve, {x.reject_count} reject)" if x else "-"
            out.append(f"- {names.get(pid, pid)}: {reply.word_count} words, score {score}"
                       + (" <- winner" if pid == box.winner_id else ""))
        if box.tie_break:
            out.append(f"  tie broken by: {box.tie_break}")
        if box.method:
            out.append(f"  method: {METHODS.get(box.method, box.method)}")
        if cut := notes(r).get("ballotCut"):
            out.append(f"  ballots showed answers cut to {cut['tokensPerAnswer']} tokens each; cut: "
                       + ", ".join(names.get(pid, pid) for pid in cut["cut"]))
        if made_up := sum(v.invented for v in box.votes):
            out.append(f"  {made_up} vote(s) on answers invented by the recording tool, not cast")
        conclude, cast = conclude_counts(r)
        if cast:
            out.append(f"  termination votes: {conclude} of {cast} CONCLUDE")
        out += [f"    {names.get(t.model_id, t.model_id)}: {t.vote} - {t.reasoning}"
                + (" (invented by the recording tool, not cast)" if t.invented else "") for t in box.termination_votes]
        out += [f"  abstained: {names.get(a.voter_id, a.voter_id)} ({a.reason})" for a in box.abstentions]
        return out + convergence_line(notes(r).get("convergence"))

    def show_reply(self, r: Round, key: str, names: dict[str, str]) -> list[str]:
        on_it = [v for v in ballot_box(r).votes if v.target_id == key]
        return ["", "Votes on it:"] + [
            f"- {names.get(v.voter_id, v.voter_id)}{' (own)' if v.voter_id == key else ''}: {v.vote}"
            f"{' (invented, not cast)' if v.invented else ''} - {v.reasoning}" for v in on_it] if on_it else []

    def audit(self, d: Discussion) -> list[str]:
        return audit(d)

    def why_author(self, d: Discussion) -> str:
        if VoteSettings.of(d.settings).conclusion_author != "winner":
            return "named by the discussion's conclusionAuthor setting"
        last = next((r for r in reversed(d.rounds) if ballot_box(r).winner_id), None)
        if last is None or d.conclusion is None or ballot_box(last).winner_id != d.conclusion.generated_by:
            return ""
        tie = ballot_box(last).tie_break
        return f"the winner of round {last.number}, the last round with one" + (
            f" (a tie, broken by {describe_tie(tie)})" if tie else "")

    def export_round(self, r: Round) -> dict[str, Any]:
        box = ballot_box(r)
        return {
            "votes": [{"voter": v.voter_id, "target": v.target_id, "vote": v.vote, "reasoning": v.reasoning,
                       "invented": v.invented} for v in box.votes],
            "terminationVotes": [{"panelist": t.model_id, "vote": t.vote, "reasoning": t.reasoning,
                                  "invented": t.invented} for t in box.termination_votes],
            "abstentions": [{"panelist": a.voter_id, "reason": a.reason} for a in box.abstentions],
            **({"method": box.method} if box.method else {}),
        }

    def person_forms(self) -> dict[str, Any]:
        return {"vote": BALLOT}

    def own_from_flags(self, name: str, flags: dict[str, Any]) -> dict[str, Any]:
        return from_flags(flags.get("method"), flags.get("hide_winner"))


class VoteFigures(Figures):
    """Winners and scores per round, the paper's tables, rescoring, the bias report and audit."""

    has_winners = True

    def of_round(self, r: Round) -> RoundFigures:
        box = ballot_box(r)
        return RoundFigures(
            winner=box.winner_id, winner_score=box.winner_score, tie_break=box.tie_break,
            scores=tuple(Score(x.target_id, x.weighted_score, x.approve_count, x.reject_count) for x in box.results),
            judgements=tuple(Judgement(v.voter_id, v.target_id, VOTE_SCORES.get(v.vote, 0), v.vote == "APPROVE",
                                       v.invented) for v in box.votes),
            forecasts=tuple(box.forecasts.items()))

    def table_discussion(self, d: Discussion) -> dict[str, Any]:
        return discussion_row(d)

    def table_round(self, r: Round) -> dict[str, Any]:
        return round_row(r)

    def table_votes(self, r: Round) -> list[dict[str, Any]]:
        return vote_rows(r)

    def rescore(self, d: Discussion, setting: str, values: list[str]) -> tuple[list[Any], list[str]] | None:
        setting = setting or "selfVoteWeight"  # a bare list of values
        if setting == "tieRule":
            if not values or not set(values) <= set(TIE_RULES):
                raise InputError(f"tieRule: give one or more of {', '.join(TIE_RULES)}, e.g. tieRule=fair,list-order")
            found = rescore(d, [], tie_rules=values)
        elif setting == "selfVoteWeight":
            try:
                weights = [float(v) for v in values]
            except ValueError:
                weights = []
            if not weights or not all(0 <= w <= 1 for w in weights):
                raise InputError("selfVoteWeight: give values between 0 and 1, e.g. selfVoteWeight=0,0.5,1")
            found = rescore(d, weights)
        else:
            return None
        return found, lines(d, found)

    def bias(self, discussions: list[Discussion]) -> Any | None:
        return report(discussions)

    def bias_experiment(self) -> Any:
        from .experiment import EXPERIMENT  # the experiment (about 35 ms) loads where `audit` or the site asks for it

        return EXPERIMENT

    def recompute(self, d: Discussion, q: Question | None = None) -> list[dict[str, Any]] | None:
        return recompute(d)

    def confidence(self, d: Discussion) -> float | None:
        return confidence(d)

    def dissent(self, d: Discussion) -> list[dict[str, str]]:
        return dissent(d)

    def abstained(self, r: Round) -> int:
        return len(ballot_box(r).abstentions)
