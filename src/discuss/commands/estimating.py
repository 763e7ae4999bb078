"""What a run would take at most, priced before it starts: calls, tokens, cost; no call made, no file written."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any


def estimate(root: Path, content: Path, question: str, options: Any, plan: Any) -> dict[str, Any]:
    """The upper bound of the run `plan` asks of `question` (as `run --estimate` prints it), as a value.

    `concluded` is set, and nothing else, where the discussion has ended.
    """
    from .. import providers
    from ..domain import Usage
    from ..engine.dry_run import estimate_run
    from ..engine.runner import Runner, prompts_for
    from ..protocols import get_protocol
    from .running import ready

    r = ready(root, content, question, options)
    q, d = r.q, r.d
    if d.concluded:
        return {"slug": q.slug, "concluded": True, "status": d.status, "terminationReason": d.termination_reason}
    prompts = prompts_for(root)
    usage, calls, unpriced, reasks = providers.run(estimate_run(lambda g: Runner(g, prompts), r.asked, d, plan))
    s = d.settings
    structured = sum(1 for _, _, shaped in calls if shaped)
    worst = Usage(usage.prompt_tokens, usage.completion_tokens, usage.cost, usage.calls)
    worst.add(reasks)
    return {
        "slug": q.slug, "concluded": False, "protocol": d.protocol, "panel": d.panel.name, "notes": list(r.notes),
        "calls": usage.calls, "tasks": dict(Counter(t for _, t, _ in calls)),
        "promptTokens": usage.prompt_tokens, "completionTokens": usage.completion_tokens, "cost": usage.cost,
        "unpriced": list(unpriced), "mostRounds": get_protocol(d.protocol).most_rounds(d),
        "answerTokens": s.max_response_words * 2, "structured": structured, "voteAttempts": s.vote_attempts,
        "withReasks": {"calls": worst.calls, "promptTokens": worst.prompt_tokens,
                       "completionTokens": worst.completion_tokens, "cost": worst.cost},
    }


def batch_estimate(root: Path, prepared: list[tuple[Any, Any]]) -> dict[str, Any]:
    """Each prepared (question, discussion) run to its end, priced as an upper bound, and the sum."""
    from .. import providers
    from ..domain import Usage
    from ..engine.dry_run import estimate_run
    from ..engine.runner import Plan, Runner, prompts_for

    prompts, total, found = prompts_for(root), Usage(), []
    for q, d in prepared:
        usage, _, _, _ = providers.run(estimate_run(lambda g: Runner(g, prompts), q, d, Plan(auto=True)))
        total.add(usage)
        found.append({"slug": q.slug, "protocol": d.protocol, "calls": usage.calls, "tokens": usage.total_tokens,
                      "cost": usage.cost})
    return {"discussions": found, "total": {"calls": total.calls, "tokens": total.total_tokens, "cost": total.cost}}
