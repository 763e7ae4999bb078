"""What a panelist is shown of the discussion so far: the thread, within the context budget.

For each of the latest rounds (at most `contextRounds`, newest first into
the budget, oldest first out): every answer of that round, the panelist's
own and the winner marked (the winner, and the scores that name it, left
out where the discussion hides them), each cut to a fair share of what is left (and
never past `ANSWER_CHARS`, as Project Dyson's reference cuts them), then the
reasons the other voters gave on the panelist's own answer, so it can answer
the objections it is asked to answer. Voters and other authors stay
anonymous. Pure: the prompt template only lays this out.
"""

from __future__ import annotations

from typing import Any

from discuss.plugin import Discussion, Round, estimate_tokens, fitting

from .notes import notes
from .record import ballot_box
from .settings import VoteSettings

# Tokens the template spends on one earlier round and on one answer besides their texts.
ROUND_OVERHEAD, ANSWER_OVERHEAD = 40, 20
ANSWER_CHARS = 1000
REASON_CHARS = 300
# An answer cut shorter than this says too little to keep: the round is left out instead.
LEAST_TOKENS = 30


CUT = " [...]"


def clip(text: str, chars: int) -> str:
    """At most `chars` characters, the cut marked within them."""
    text = text.strip()
    return text if len(text) <= chars else text[: max(chars - len(CUT), 0)].rstrip() + CUT


def clip_tokens(text: str, tokens: int, chars: int | None = None) -> str:
    """Within `tokens` (as `estimate_tokens` counts) and `chars` characters, the cut marked within them."""
    text = clip(text, chars) if chars is not None else text.strip()
    if estimate_tokens(text) <= tokens:
        return text
    return clip(text, fitting(text, max(tokens - estimate_tokens(CUT), 0)) + len(CUT))


def _order(r: Round, me: str, show_winner: bool) -> list[str]:
    """The winner first (where it is shown), then the panelist's own answer, then the others as they sort."""
    lead = (ballot_box(r).winner_id, me) if show_winner else (me,)
    first = [pid for pid in dict.fromkeys(lead) if pid in r.replies]
    return first + sorted(pid for pid in r.replies if pid not in first)


def _reasons(r: Round, me: str) -> list[dict[str, str]]:
    return [{"vote": v.vote, "reasoning": clip(v.reasoning, REASON_CHARS)}
            for v in ballot_box(r).votes if v.target_id == me and v.voter_id != me and v.reasoning.strip()]


def round_entry(r: Round, me: str, tokens: int, show_winner: bool = True) -> dict[str, Any] | None:
    """One round within `tokens`, or None when its answers would be cut below use."""
    reasons = _reasons(r, me)
    ids = _order(r, me, show_winner)
    fixed = ROUND_OVERHEAD + len(ids) * ANSWER_OVERHEAD + sum(estimate_tokens(x["reasoning"]) + 5 for x in reasons)
    share = (tokens - fixed) // max(len(ids), 1)
    if share < LEAST_TOKENS:
        return None
    scores = {x.target_id: x.weighted_score for x in ballot_box(r).results}
    answers = [{"label": chr(ord("A") + i), "yours": pid == me,
                "winner": show_winner and pid == ballot_box(r).winner_id,
                "score": None if not show_winner else f"{scores[pid]:g}" if pid in scores else "-",
                "text": clip_tokens(r.replies[pid].text, share, ANSWER_CHARS)}
               for i, pid in enumerate(ids)]
    conclude = sum(t.vote == "CONCLUDE" for t in ballot_box(r).termination_votes)
    return {"number": r.number, "answers": answers, "reasons": reasons,
            "termination": f"{conclude} of {len(ballot_box(r).termination_votes)} asked to conclude"}


def entry_tokens(entry: dict[str, Any]) -> int:
    return (ROUND_OVERHEAD + sum(estimate_tokens(a["text"]) + ANSWER_OVERHEAD for a in entry["answers"])
            + sum(estimate_tokens(x["reasoning"]) + 5 for x in entry["reasons"]))


def earlier_context(d: Discussion, me: str, budget: int,
                    show_winner: bool = True) -> tuple[list[dict[str, Any]], int]:
    """The rounds to show, oldest first, and how many earlier rounds were left out."""
    done = [r for r in d.rounds if r.complete and ballot_box(r).winner_id in r.replies]
    chosen: list[dict[str, Any]] = []
    left = budget
    for r in list(reversed(done))[: VoteSettings.of(d.settings).context_rounds]:
        entry = round_entry(r, me, left, show_winner)
        if entry is None:
            break
        chosen.append(entry)
        left -= entry_tokens(entry)
    return list(reversed(chosen)), len(done) - len(chosen)


MIN_SHARE = 200  # tokens: below this an answer is too cut to judge, whatever the panel's size


def ballot_texts(d: Discussion, rnd: Round) -> dict[str, str]:
    """Each answer as ballots show it: cut to an equal share of the context budget, the cut recorded.

    The same cut for every answer, so no answer is judged on more of itself
    than another; a ballot's prompt stays within `contextTokens` plus the
    fixed instructions, whatever the panel's size and the answers' length.
    """
    share = max(d.settings.context_tokens // max(len(rnd.replies), 1), MIN_SHARE)
    cut = sorted(pid for pid, reply in rnd.replies.items() if estimate_tokens(reply.text.strip()) > share)
    texts = {pid: clip_tokens(reply.text, share) if pid in cut else reply.text for pid, reply in rnd.replies.items()}
    if cut:
        notes(rnd)["ballotCut"] = {"tokensPerAnswer": share, "cut": cut}
    return texts
