"""An eval's figures, from its files: accuracy per arm, paired differences, conformity and diversity.

Every arm is graded by the one grader (`text/grading.py`). A protocol arm's
final answer is its last round's winning answer where its rounds have
winners, else its result's author's last answer, else its conclusion; a
baseline arm's is the plurality of its answers. What cannot be read is
ungradable and counts as wrong in the paired comparisons (it is no right
answer), and is reported apart.

Conformity, for arms whose panelists answer in several rounds: a flip is a
panelist whose answer changed from one round to the next (both readable);
right-to-wrong and wrong-to-right flips by the labels; and the share of
flips onto the previous round's winning answer (anchoring).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..domain import Discussion, Panel
from ..protocols import get_protocol
from ..rules.evalstats import paired, plurality, wilson
from ..store.evalsets import answers as baseline_answers
from ..text.grading import grade, read_answer


def final_text(d: Discussion) -> str:
    """What a protocol arm answered in the end, as a grader reads it."""
    protocol = get_protocol(d.protocol)
    for r in reversed(d.rounds):
        winner = protocol.figures.of_round(r).winner if r.complete else None
        if winner and winner in r.replies:
            return r.replies[winner].text
    if (pid := protocol.result_of(d)) is not None:
        said = [r.replies[pid].text for r in d.rounds if pid in r.replies]
        if said:
            return said[-1]
    if d.conclusion is not None:
        return "\n".join([d.conclusion.summary, *d.conclusion.key_points])
    return ""


def _winner_by_round(d: Discussion) -> list[str]:
    protocol = get_protocol(d.protocol)
    out = []
    for r in d.rounds:
        winner = protocol.figures.of_round(r).winner if r.complete else None
        out.append(r.replies[winner].text if winner and winner in r.replies else "")
    return out


def figures(folder: Path, found: Any, panel: Panel, arms: list[Any], seed: int,
            items: list[dict[str, Any]] | None = None,
            load: Callable[[Path], Discussion | None] | None = None) -> dict[str, Any]:
    """The report of an eval as `--json` gives it and report.yaml keeps it; `items`, where given, gets a row
    per item and arm (what was read, whether it was right, what it cost): the table a study re-analyses.
    `load` reads an item's discussion (store.load, unless the caller has read it already)."""
    from ..store import discussions as store

    load = load or store.load
    graded: dict[str, list[bool | None]] = {}
    out: dict[str, Any] = {}
    conformity: dict[str, Any] = {}
    for arm in arms:
        rows: list[bool | None] = []
        spent: list[tuple[int, int, float | None]] = []
        by_round: list[list[bool | None]] = []
        flips = _Flips()
        for item in found.items:
            if arm.kind == "protocol":
                d = load(folder / arm.folder / item.id)
                if d is None or not d.concluded:
                    rows.append(None)
                    continue
                read, right = grade(final_text(d), item.answer, item.kind, item.aliases)
                rows.append(right)
                spent.append((d.usage.calls, d.usage.total_tokens, d.usage.cost))
                by_round.append([grade(t, item.answer, item.kind, item.aliases)[1] for t in _winner_by_round(d)])
                flips.add(d, item)
            else:
                answers = baseline_answers(folder / arm.folder / f"{item.id}.yaml", folder.parent.parent)
                if answers is None:
                    rows.append(None)
                    continue
                read = plurality([read_answer(a["text"], item.kind) for a in answers])
                right = None if read is None else grade(f"Answer: {read}", item.answer, item.kind, item.aliases)[1]
                rows.append(right)
                costs = [a.get("cost") for a in answers]
                spent.append((sum(a.get("calls") or 0 for a in answers), sum(a.get("tokens") or 0 for a in answers),
                               None if any(c is None for c in costs) else sum(float(c or 0) for c in costs)))
            if items is not None:
                calls, tokens, cost = spent[-1]
                items.append({"set": found.name, "arm": arm.name, "item": item.id, "answer": item.answer,
                              "read": read, "correct": right, "calls": calls, "tokens": tokens, "cost": cost})
        graded[arm.name] = rows
        out[arm.name] = _arm(rows, spent, by_round)
        if arm.kind == "protocol" and flips.count:
            conformity[arm.name] = flips.as_dict()
    return {"set": found.name, "source": found.source, "licence": found.licence, "items": len(found.items),
            "seed": seed, "arms": out, "paired": _pairs(graded, arms, seed), "conformity": conformity,
            "diversity": diversity(panel)}


def _arm(rows: list[bool | None], spent: list[tuple[int, int, float | None]], by_round: list[list[Any]]) \
        -> dict[str, Any]:
    done = len(spent)
    correct = sum(r is True for r in rows)
    costs = [c for _, _, c in spent]
    longest = max((len(b) for b in by_round), default=0)
    per_round = []
    for k in range(longest):
        at = [b[k] if k < len(b) else b[-1] for b in by_round if b]  # an item that stopped keeps its last
        per_round.append({"round": k + 1, **wilson(sum(x is True for x in at), len(at))})
    return {"accuracy": wilson(correct, done), "items": done, "correct": correct,
            "ungradable": sum(r is None for r in rows) - (len(rows) - done),
            "callsPerItem": round(sum(c for c, _, _ in spent) / done, 3) if done else None,
            "tokensPerItem": round(sum(t for _, t, _ in spent) / done, 1) if done else None,
            "costPerItem": None if not done or any(c is None for c in costs)
            else round(sum(float(c or 0) for c in costs) / done, 6),
            "byRound": per_round}


def _pairs(graded: dict[str, list[bool | None]], arms: list[Any], seed: int) -> dict[str, Any]:
    """Each arm against `majority` and against the best single member, over the items both answered."""
    singles = [a.name for a in arms if a.kind == "single"]
    best_single = max(singles, key=lambda n: sum(x is True for x in graded[n]), default=None)
    out: dict[str, Any] = {}
    for arm in arms:
        for other in ("majority", best_single):
            if other is None or other == arm.name or other not in graded or f"{other} vs {arm.name}" in out:
                continue  # majority against the best single is one comparison, not two
            both = [(x is True, y is True) for x, y in zip(graded[arm.name], graded[other])
                    if x is not None or y is not None]
            out[f"{arm.name} vs {other}"] = paired([x for x, _ in both], [y for _, y in both], seed)
    return out


class _Flips:
    """Conformity over an arm's discussions: flips per panelist between rounds, by the labels."""

    def __init__(self) -> None:
        self.by: dict[str, dict[str, int]] = {}
        self.count = 0

    def add(self, d: Discussion, item: Any) -> None:
        protocol = get_protocol(d.protocol)
        rounds = [r for r in d.rounds if r.complete]
        for before, after in zip(rounds, rounds[1:]):
            winner = protocol.figures.of_round(before).winner
            leading = read_answer(before.replies[winner].text, item.kind) if winner in before.replies else None
            for pid in set(before.replies) & set(after.replies):
                was, now = (read_answer(x.replies[pid].text, item.kind) for x in (before, after))
                if was is None or now is None:
                    continue
                row = self.by.setdefault(pid, {"pairs": 0, "flips": 0, "rightToWrong": 0, "wrongToRight": 0,
                                               "towardWinner": 0})
                row["pairs"] += 1
                self.count += 1
                if was != now:
                    right_before = grade(f"Answer: {was}", item.answer, item.kind, item.aliases)[1]
                    right_after = grade(f"Answer: {now}", item.answer, item.kind, item.aliases)[1]
                    row["flips"] += 1
                    row["rightToWrong"] += bool(right_before and not right_after)
                    row["wrongToRight"] += bool(right_after and not right_before)
                    row["towardWinner"] += now == leading and pid != winner

    def as_dict(self) -> dict[str, Any]:
        out = {}
        for pid, row in sorted(self.by.items()):
            flips = row["flips"]
            out[pid] = {**row, "flipRate": round(flips / row["pairs"], 4) if row["pairs"] else None,
                        "towardWinnerShare": round(row["towardWinner"] / flips, 4) if flips else None}
        return out


def family(model: str) -> str:
    """A model's family, by its name: `openai/gpt-4o-mini` is gpt, `anthropic/claude-3-5` claude."""
    name = model.rsplit("/", 1)[-1].lower()
    for known in ("gpt", "claude", "gemini", "llama", "qwen", "mistral", "mixtral", "deepseek", "phi", "gemma",
                  "grok", "command", "smollm", "o1", "o3", "o4"):
        if name.startswith(known):
            return "gpt" if known in ("o1", "o3", "o4") else known
    return model.split("/", 1)[0] if "/" in model else name.split("-", 1)[0]


def diversity(panel: Panel) -> dict[str, Any]:
    """How many providers and model families sit on the panel; one family is said so."""
    providers = sorted({m.model.split("/", 1)[0] for m in panel.members})
    families = sorted({family(m.model) for m in panel.members})
    return {"providers": providers, "families": families, "oneFamily": len(families) == 1}
