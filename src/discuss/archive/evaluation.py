"""An eval's figures, from its files: accuracy per arm, paired differences, conformity and diversity.

Every arm is graded by the one grader (`text/grading.py`) under the set's
extraction rule. A protocol arm's final answer is its last round's winning
answer where its rounds have winners, else its result's author's last
answer, else its conclusion (`archive/finalanswer.py`, which also records it
in the discussion's index); a baseline arm's is the plurality of its
answers. What cannot be read is ungradable: it counts as not right in the
accuracy and the paired comparisons (it is no right answer), and its share
is reported beside each arm's accuracy.

A difference between two arms counts when McNemar's exact test gives p <
0.05 over the items both answered (`differs`); the paired-bootstrap
interval says how large it is. Equal compute is shown, not assumed: each
arm's tokens per item over the protocol arms' median (`computeRatio`), and
an arm more than 10% off it (self-consistency capped by `--max-samples`,
say) is marked `equalCompute: false`, as is every paired row it enters.

Conformity, for arms whose panelists answer in several rounds: a flip is a
panelist whose answer changed from one round to the next (both readable);
right-to-wrong and wrong-to-right flips by the labels; and the share of
flips onto the previous round's winning answer (anchoring).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..domain import Discussion, Panel, Panelist
from ..protocols import get_protocol
from ..rules.evalstats import BOOTSTRAP_DRAWS, detectable, effective_voters, paired, plurality, wilson
from ..store import discussions as store
from ..store.evalfolder import bound
from ..store.evalsets import answers as baseline_answers
from ..store.evalsets import load_set
from ..text.grading import DEFAULT_RULE, correct, grade, read_answer
from .finalanswer import final_text

ALPHA = 0.05  # a paired difference counts when McNemar's exact p-value is below this
EQUAL_COMPUTE = 0.10  # an arm within this share of the protocol arms' median tokens per item is at equal compute
DIFFERENCE_RULE = ("a difference counts when McNemar's exact test gives p < 0.05 over the items both arms "
                   "answered; the paired-bootstrap interval gives its size")


@dataclass(frozen=True)
class Arm:
    name: str  # as given: vote, single:alpha, majority, self-consistency:alpha
    kind: str  # protocol, single, majority, self-consistency
    member: str | None = None

    @property
    def folder(self) -> str:
        return self.name.replace(":", "-")

    @classmethod
    def named(cls, name: str) -> Arm:
        """The arm a recorded name stands for (checked when it was first run)."""
        kind, _, member = name.partition(":")
        if kind in ("single", "self-consistency"):
            return cls(name, kind, member)
        return cls(name, "majority" if name == "majority" else "protocol")


def recompute(root: Path, folder: Path) -> dict[str, Any] | None:
    """An eval's figures recomputed from its items' files alone, under the settings its `eval.yaml` records
    (the figures of report.yaml without its provenance): what `verify` compares a report with. None for a
    folder that records no eval."""
    record = bound(folder)
    if record is None:
        return None
    found = load_set(root, str(record["set"]), record.get("items"), int(record["seed"]))
    found.rule = str(record.get("rule") or found.rule)
    members = tuple(Panelist(str(m["id"]), str(m["model"]), str(m["id"]))
                    for m in (record.get("panel") or {}).get("members") or [])
    return figures(folder, found, Panel(str((record.get("panel") or {}).get("name") or ""), members),
                   [Arm.named(str(a)) for a in record.get("arms") or []], int(record["seed"]))


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
    load = load or store.load
    rule = found.rule
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
                read, right = grade(final_text(d), item.answer, item.kind, item.aliases, rule, item.choices)
                rows.append(right)
                spent.append((d.usage.calls, d.usage.total_tokens, d.usage.cost))
                by_round.append([grade(t, item.answer, item.kind, item.aliases, rule, item.choices)[1]
                                 for t in _winner_by_round(d)])
                flips.add(d, item, rule)
            else:
                answers = baseline_answers(folder / arm.folder / f"{item.id}.yaml", folder.parent.parent)
                if answers is None:
                    rows.append(None)
                    continue
                read = plurality([read_answer(a["text"], item.kind, rule, item.choices) for a in answers])
                right = correct(read, item.answer, item.kind, item.aliases)
                rows.append(right)
                costs = [a.get("cost") for a in answers]
                spent.append((sum(a.get("calls") or 0 for a in answers), sum(a.get("tokens") or 0 for a in answers),
                               None if any(c is None for c in costs) else sum(float(c or 0) for c in costs)))
            if items is not None:
                calls, tokens, cost = spent[-1]
                items.append({"set": found.name, "arm": arm.name, "item": item.id,
                              "answer": _cell(item.answer, item.kind), "read": _cell(read, item.kind),
                              "correct": right, "calls": calls, "tokens": tokens, "cost": cost})
        graded[arm.name] = rows
        out[arm.name] = _arm(rows, spent, by_round)
        if arm.kind == "protocol" and flips.count:
            conformity[arm.name] = flips.as_dict()
    _compute(out, arms)
    return {"set": found.name, "source": found.source, "licence": found.licence, "items": len(found.items),
            "seed": seed, "rule": rule, "arms": out, "paired": _pairs(graded, arms, seed, out),
            "conformity": conformity, "diversity": diversity(panel),
            "independence": independence(folder, found, arms)}


def independence(folder: Path, found: Any, arms: list[Any]) -> dict[str, Any]:
    """The panel's effective number of independent voters, from whether each member erred on each item by its
    own answer (the majority arm's, else its single arm's; an answer not read counts as an error, as in the
    accuracy; a failed call as no answer)."""
    sources = [a for a in arms if a.kind == "majority"] + [a for a in arms if a.kind == "single"]
    errors: dict[str, list[bool | None]] = {}
    for arm in sources:
        for k, item in enumerate(found.items):
            for a in baseline_answers(folder / arm.folder / f"{item.id}.yaml", folder.parent.parent) or []:
                member = str(a.get("member"))
                row = errors.setdefault(member, [None] * len(found.items))
                if (arm.kind == "majority" or member == arm.member) and row[k] is None and not a.get("error"):
                    read = read_answer(str(a.get("text") or ""), item.kind, found.rule, item.choices)
                    row[k] = correct(read, item.answer, item.kind, item.aliases) is not True
    return {**effective_voters(errors), "from": [a.name for a in sources]}


def _cell(value: str | None, kind: str) -> str | int | float | None:
    """A table's cell: a number as a number (a spreadsheet or pandas reads -133, not text)."""
    if value is None or kind != "number":
        return value
    number = float(value.replace(",", ""))
    return int(number) if number.is_integer() else number


def _compute(out: dict[str, Any], arms: list[Any]) -> None:
    """Each arm's tokens per item over the protocol arms' median, and whether that is equal compute."""
    import statistics

    spent = [out[a.name]["tokensPerItem"] for a in arms if a.kind == "protocol" and out[a.name]["tokensPerItem"]]
    median = statistics.median(spent) if spent else None
    for arm in arms:
        mine = out[arm.name]["tokensPerItem"]
        ratio = round(mine / median, 3) if median and mine is not None else None
        out[arm.name]["computeRatio"] = ratio
        if arm.kind == "self-consistency":
            out[arm.name]["equalCompute"] = ratio is not None and abs(ratio - 1) <= EQUAL_COMPUTE


STATISTICS = {"accuracy": "Wilson score interval, 95%",
              "paired": f"paired bootstrap over items, 95% percentile interval, {BOOTSTRAP_DRAWS} draws seeded by "
                        "the eval's seed; McNemar's exact test (two-sided binomial on the discordant items)",
              "difference": DIFFERENCE_RULE,
              "ungradable": "an answer that cannot be read, names two values or one outside the item's closed list "
                            "is ungradable: not right, counted apart (ungradable, ungradableShare)",
              "independence": "the members' errors correlated (phi) pair by pair over the items both answered, "
                              "r their mean; effective independent voters n / (1 + (n - 1) r)",
              "power": "per paired row, the smallest difference McNemar's test detects with 80% power at alpha "
                       "0.05 over these items (normal approximation, at the share of items the two arms disagree "
                       "on)"}


def provenance(record: dict[str, Any], panel: Panel, command: str) -> dict[str, Any]:
    """What a reader of the report needs to cite it: the panel and its members' models and options, the
    discuss version and the date, the command, the set's digest, the seed, the grader and its rule, and the
    statistics by name."""
    import datetime as dt


    shown = record.get("panel") or {}
    return {"panel": shown.get("name"), "members": shown.get("members") or
            [{"id": m.id, "model": m.model, "options": dict(m.options)} for m in panel.members],
            "settingsDigest": shown.get("settingsDigest"), "discussVersion": record.get("discussVersion"),
            "date": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
            "command": command, "setDigest": record.get("setDigest"), "seed": record.get("seed"),
            "grader": {"rule": record.get("rule") or DEFAULT_RULE, "module": "discuss.text.grading"},
            "statistics": STATISTICS}


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
            "ungradable": (ungradable := sum(r is None for r in rows) - (len(rows) - done)),
            "ungradableShare": round(ungradable / done, 4) if done else None,
            "callsPerItem": round(sum(c for c, _, _ in spent) / done, 3) if done else None,
            "tokensPerItem": round(sum(t for _, t, _ in spent) / done, 1) if done else None,
            "costPerItem": None if not done or any(c is None for c in costs)
            else round(sum(float(c or 0) for c in costs) / done, 6),
            "byRound": per_round}


def _pairs(graded: dict[str, list[bool | None]], arms: list[Any], seed: int, out: dict[str, Any]) -> dict[str, Any]:
    """Each arm against `majority` and against the best single member, over the items both answered; whether
    the difference counts (`differs`, the one rule), and whether both arms are at equal compute."""
    singles = [a.name for a in arms if a.kind == "single"]
    best_single = max(singles, key=lambda n: sum(x is True for x in graded[n]), default=None)
    figures, pairs = out, {}
    for arm in arms:
        for other in ("majority", best_single):
            if other is None or other == arm.name or other not in graded or f"{other} vs {arm.name}" in pairs:
                continue  # majority against the best single is one comparison, not two
            both = [(x is True, y is True) for x, y in zip(graded[arm.name], graded[other])
                    if x is not None or y is not None]
            row: dict[str, Any] = dict(paired([x for x, _ in both], [y for _, y in both], seed))
            row["differs"] = row["pValue"] is not None and row["pValue"] < ALPHA
            row["detectable"] = detectable(len(both), int(row["aWins"] or 0) + int(row["bWins"] or 0))
            row["equalCompute"] = all(figures[n].get("equalCompute", True) for n in (arm.name, other))
            pairs[f"{arm.name} vs {other}"] = row
    return pairs


class _Flips:
    """Conformity over an arm's discussions: flips per panelist between rounds, by the labels."""

    def __init__(self) -> None:
        self.by: dict[str, dict[str, int]] = {}
        self.count = 0

    def add(self, d: Discussion, item: Any, rule: str) -> None:
        protocol = get_protocol(d.protocol)
        rounds = [r for r in d.rounds if r.complete]
        for before, after in zip(rounds, rounds[1:]):
            winner = protocol.figures.of_round(before).winner
            leading = read_answer(before.replies[winner].text, item.kind, rule, item.choices) \
                if winner in before.replies else None
            for pid in set(before.replies) & set(after.replies):
                was, now = (read_answer(x.replies[pid].text, item.kind, rule, item.choices) for x in (before, after))
                if was is None or now is None:
                    continue
                row = self.by.setdefault(pid, {"pairs": 0, "flips": 0, "rightToWrong": 0, "wrongToRight": 0,
                                               "towardWinner": 0})
                row["pairs"] += 1
                self.count += 1
                if was != now:
                    right_before = correct(was, item.answer, item.kind, item.aliases)
                    right_after = correct(now, item.answer, item.kind, item.aliases)
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
