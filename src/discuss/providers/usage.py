"""What a call used, as every client records it: the provider's counts where they are believable.

A provider's usage decides budgets, so a broken or lying server must not be
able to make calls free or buy budget back. A count is taken only when it is
a whole, non-negative number no larger than what was sent (every token is at
least a byte, plus a chat template's few per message) or received (at most
the reply's bytes or the tokens asked for); otherwise, and where a non-empty
reply is said to cost nothing, the call is counted here and marked
`recounted`. Cached tokens are at most the prompt; a cost is never negative.
A coding agent's counts (`agent_usage`) have no bound from what was sent:
it reads the repository and works in turns of its own.
"""

from __future__ import annotations

import math
from typing import Any

from ..domain import Usage
from ..text import tokens

TEMPLATE_TOKENS = 32  # a chat template's tokens around one message, generously
SLACK = 512


def whole(value: Any) -> int | None:
    """A count as a provider may give it (an int, or a float with no fraction); None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        return None
    return int(value) if 0 <= value < 10**12 else None


def text_of(content: Any) -> str:
    if isinstance(content, list):  # content blocks, as sent with cache marks
        return "".join(str(b.get("text") or "") for b in content if isinstance(b, dict))
    return str(content or "")


def sane_usage(prompt: Any, completion: Any, cached: Any, messages: list[dict[str, Any]], text: str,
               max_tokens: int | None) -> Usage:
    """The call's usage from the provider's raw counts, each replaced by ours where it cannot be true."""
    sent = [text_of(m.get("content")) for m in messages]
    sent_bound = sum(len(t.encode("utf-8", "surrogatepass")) for t in sent) + TEMPLATE_TOKENS * len(sent) + SLACK
    got_bound = max(max_tokens or 0, len(text.encode("utf-8", "surrogatepass"))) + SLACK
    p, c = whole(prompt), whole(completion)
    recount = False
    if p is None or p == 0 or p > sent_bound:
        p, recount = sum(tokens.count(t) for t in sent), True
    if c is None or c > got_bound or (c == 0 and text.strip()):
        c, recount = tokens.count(text), True
    return Usage(prompt_tokens=p, completion_tokens=c, calls=1, cached_tokens=min(whole(cached) or 0, p),
                 recounted=int(recount))


def sane_cost(cost: Any) -> float | None:
    """A cost as recorded: a finite, non-negative number of dollars, or None where nobody priced the call."""
    if isinstance(cost, bool) or not isinstance(cost, int | float) or not math.isfinite(cost):
        return None
    return max(float(cost), 0.0)


def agent_usage(prompt: Any, completion: Any, cached: Any, messages: list[dict[str, Any]], text: str) -> Usage:
    """A coding agent's usage from its tool's counts. An agent reads the repository and runs its own turns,
    so its prompt may be far larger than what was sent, and its reply larger than the text it ends with:
    no bound from either. The rest holds as for a server: a count that is no whole, non-negative number, or a
    call said to cost no token, is counted here and marked `recounted`; cached tokens are at most the prompt."""
    p, c = whole(prompt), whole(completion)
    recount = False
    if p is None or p == 0:
        p, recount = sum(tokens.count(text_of(m.get("content"))) for m in messages), True
    if c is None or (c == 0 and text.strip()):
        c, recount = tokens.count(text), True
    return Usage(prompt_tokens=p, completion_tokens=c, calls=1, cached_tokens=min(whole(cached) or 0, p),
                 recounted=int(recount))
