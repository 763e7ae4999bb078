"""Labelled sets for `discuss eval`: a project's own (`evals/NAME.jsonl` or `evals/NAME.yaml`) and the ones
built in, read and checked; nothing is downloaded.

Built in: `arithmetic`, generated from a seed in the style of Du et al.'s
arithmetic task (`a+b*c+d-e*f` with numbers below 30): the same seed gives
the same items everywhere, so two evals of it compare. And sets shipped in
the package (`discuss/evalsets/`, each recording its source and licence,
the licence's text beside it): 200 problems of GSM8K's test split and three
BIG-Bench Hard tasks, made by scripts/make_evalsets.py.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..text.grading import DEFAULT_RULE, options_of
from ..text.naming import did_you_mean, is_safe_id
from . import yamlio
from .documents import read_text
from .layout import confined

# A set's pydantic models are imported where a set file is read (`_read`), not by every command that names sets.
SHIPPED = Path(__file__).resolve().parent.parent / "evalsets"


def built_in() -> list[str]:
    """The sets that need no file of the project: generated ones, then those shipped in the package."""
    return ["arithmetic", *sorted(p.stem for p in SHIPPED.glob("*.yaml"))]


@dataclass(frozen=True)
class Item:
    id: str
    question: str
    answer: str
    kind: str  # number, choice or text
    aliases: tuple[str, ...] = ()
    background: str = ""
    choices: tuple[str, ...] = ()  # the closed list its answer is one of (a choice's letters where none is given)


@dataclass
class EvalSet:
    name: str
    items: list[Item]
    source: str = ""
    licence: str = ""
    notes: list[str] = field(default_factory=list)
    rule: str = DEFAULT_RULE  # how a reply's answer is read (text/grading.py)
    digest: str = ""  # of the set as it is defined (the file's bytes, or the generator's name and version)


def closed(kind: str, question: str, given: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """An item's closed list: the one it names; for a choice, the letters its question offers."""
    return tuple(given) or (options_of(question) if kind == "choice" else ())


def arithmetic(count: int, seed: int) -> EvalSet:
    """`count` items of six numbers below 30 under + and *, seeded."""
    rng = random.Random(seed)
    items = []
    for k in range(count):
        a, b, c, d, e, f = (rng.randint(0, 29) for _ in range(6))
        items.append(Item(f"a{k + 1:04d}", f"What is the result of {a}+{b}*{c}+{d}-{e}*{f}?",
                          str(a + b * c + d - e * f), "number"))
    return EvalSet("arithmetic", items, source=f"generated (seed {seed}), in the style of Du et al. 2023",
                   licence="none needed: generated", digest=ARITHMETIC)


ARITHMETIC = "arithmetic-v1"  # the generator's version: another way of making the items is another digest


def load_set(root: Path, name: str, count: int | None, seed: int) -> EvalSet:
    """The set `name`: the project's evals/NAME.jsonl or .yaml, else a built-in one; its first `count` items
    (all where None; a built-in set makes that many)."""
    if not is_safe_id(name):
        raise InputError(f"{name!r}: a set is named by a safe name (evals/NAME.jsonl or .yaml, or "
                         f"{', '.join(built_in())})")
    folder = root / "evals"
    for suffix in (".jsonl", ".yaml", ".yml"):
        path = folder / f"{name}{suffix}"
        if path.is_file():
            found = _read(path)
            found.items = found.items[:count] if count else found.items
            return found
    if name == "arithmetic":
        return arithmetic(count or 50, seed)
    if (SHIPPED / f"{name}.yaml").is_file():
        found = _read(SHIPPED / f"{name}.yaml")
        found.items = found.items[:count] if count else found.items
        return found
    known = sorted({p.stem for p in folder.glob("*.*") if p.suffix in (".jsonl", ".yaml", ".yml")} | set(built_in()))
    raise InputError(f"no set {name!r} (evals/{name}.jsonl or .yaml; sets: {', '.join(known)})"
                     + did_you_mean(name, known))


def _read(path: Path) -> EvalSet:
    from ..schema import validated
    from ..schema.evalset import ItemModel, SetModel

    meta: Any = {}
    raw: Any = None
    try:
        text = read_text(path)
        if path.suffix == ".jsonl":
            raw = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            data = yamlio.load(text)
            meta, raw = (data, data.get("items")) if isinstance(data, dict) else ({}, data)
    except (ValueError, OSError) as exc:
        raise InputError(f"{path}: cannot be read: {exc}") from None
    rule, shared = DEFAULT_RULE, []
    if path.suffix == ".jsonl" or not isinstance(meta, dict) or "items" not in meta:
        models = [validated(ItemModel, row, f"{path}: item {i + 1}") for i, row in enumerate(raw or [])]
        source = licence = ""
    else:
        whole = validated(SetModel, meta, str(path))
        models, source, licence, rule, shared = whole.items, whole.source, whole.licence, whole.rule, whole.choices
    if not models:
        raise InputError(f"{path}: no items")
    if repeated := sorted(i for i, n in Counter(m.id for m in models).items() if n > 1):
        shown = ", ".join(repeated[:10]) + (f" and {len(repeated) - 10} more" if len(repeated) > 10 else "")
        raise InputError(f"{path}: item ids repeat ({shown})")
    items = [Item(m.id, m.question, str(m.answer), m.answer_type, tuple(m.aliases), m.background,
                  closed(m.answer_type, m.question, m.choices or shared)) for m in models]
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return EvalSet(path.stem, items, source, licence, rule=rule, digest=digest)


def answers(path: Path, root: Path) -> list[dict[str, Any]] | None:
    """The answers a baseline arm's file for one item holds, failed ones too; None where it was not asked yet.
    The file is read only where it resolves inside the project (a pull request may bring a link)."""
    if not path.is_file():
        return None
    confined(path, root, what=str(path))
    data = yamlio.load(read_text(path), written=True)
    found = data.get("answers") if isinstance(data, dict) else None
    return [a for a in found if isinstance(a, dict)] if isinstance(found, list) else []
