"""Grading a final answer against a labelled one: pure, the same for every arm of an eval.

An extraction rule says where a reply states its answer; a set names its
rule (`answer-line` unless it says otherwise), and the report records it.

- `answer-line` (the default): the last statement of the answer, a line
  `Answer: X` (or `Final answer: X`), or "the (final) answer is X" within a
  line; where there is none, a number is the last number in the reply, a
  letter the lone letter of the last line that holds one, and a text the
  last non-empty line (or, with a closed list, the one value of the list
  the reply names).
- `gsm8k-strict`: lm-evaluation-harness's GSM8K strict match, "The answer
  is N" (N digits, '.', ',', a sign); nothing else is read.
- `gsm8k-flexible`: the harness's flexible extract, the last number in the
  reply.
- `bbh`: the harness's BIG-Bench Hard rule, what follows "the answer is"
  (its final character dropped), else its multiple-choice fallback: the
  last `(X)` of a letter answer, the one value of a closed list the reply
  names.

A value is read as a whole token: `B (I am fairly sure)` is B, `C, I
think.` is C, a number's remark in brackets is no part of it. A stated
answer naming two values (`12 or 13`, `B or C`, `True or False`) is
ungradable, as is a read outside a closed list (True/False, the letters a
choice offers, named options): never a wrong answer, never guessed.
Numbers compare as numbers (1,000 and 1000.0 are 1000, to a relative
tolerance of 1e-9); letters as letters; text once case, punctuation and
runs of spaces are made one, with the answer's aliases.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

STATED = re.compile(r"(?im)(?:^\W*|\bthe\s+)(?:final\s+)?answer\s*(?:is\b)?\s*[:=\-]?\s*(.+?)\s*$")
NUMBER = re.compile(r"[-+]?\$?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
LETTER = re.compile(r"(?<![A-Za-z])\(?([A-J])\)?(?![A-Za-z])")
PRONOUN = re.compile(r"I\s+[a-z']")  # "I think", "I am": the pronoun, no option
JOINED = r"\s*(?:,|\bor\b|\band\b|\bto\b|/|&)\s*"  # between two values, it names both
STRICT = re.compile(r"The answer is (-?[0-9.,]+)")
FLEXIBLE = re.compile(r"(-?[$0-9.,]{2,})|(-?[0-9]+)")
BBH = re.compile(r"(?i)the answer is (.*).")
OPTION = re.compile(r"\(([A-J])\)")

DEFAULT_RULE = "answer-line"
INSTRUCTIONS = {
    "answer-line": "End with your final answer alone on the last line, as `Answer: <{kind}>`.",
    "gsm8k-strict": "End with `The answer is <{kind}>.`",
    "gsm8k-flexible": "End with `The answer is <{kind}>.`",
    "bbh": "End with `So the answer is <{kind}>.`",
}
RULES = tuple(INSTRUCTIONS)


def instruction(rule: str, kind: str) -> str:
    """What an item's prompt asks of the reply's end, under `rule`."""
    return INSTRUCTIONS[rule].format(kind={"number": "number", "choice": "letter", "text": "answer"}[kind])


def plain(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w\s]", " ", folded).split())


def _number(raw: str) -> str | None:
    try:
        value = float(raw.replace(",", "").replace("$", "").rstrip("."))
    except ValueError:
        return None
    return str(int(value)) if value.is_integer() else repr(value)


def _letters(text: str) -> list[str]:
    """The option letters `text` names, the pronoun "I" aside."""
    return [m.group(1) for m in LETTER.finditer(text) if not PRONOUN.match(text, m.start(1))]


def _joined(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether two of the values found at `spans` stand joined ("12 or 13", "B/C"): the answer names both."""
    return any(re.fullmatch(JOINED, text[a[1]:b[0]]) for a, b in zip(spans, spans[1:]))


def _first_of_stated(stated: str, kind: str, closed: Sequence[str]) -> str | None:
    """The value a stated answer gives as its leading token; None where it names two."""
    if kind == "number":
        bare = re.sub(r"\([^)]*\)", " ", stated)  # a remark in brackets is no part of the number
        found = list(NUMBER.finditer(bare))
        if not found or _joined(bare, [m.span() for m in found]):
            return None
        return _number(found[-1].group())
    if kind == "choice":
        letters = [m for m in LETTER.finditer(stated) if not PRONOUN.match(stated, m.start(1))]
        if not letters or _joined(stated, [m.span() for m in letters]):
            return None
        return letters[0].group(1)
    if closed:
        return _one_of(stated, closed)
    return plain(stated) or None


def _one_of(text: str, closed: Sequence[str]) -> str | None:
    """The one value of a closed list `text` names, as a whole word; None for none or two."""
    folded = f" {plain(text)} "
    named = {plain(c) for c in closed if f" {plain(c)} " in folded}
    return named.pop() if len(named) == 1 else None


def _answer_line(text: str, kind: str, closed: Sequence[str]) -> str | None:
    stated = [m.group(1) for m in STATED.finditer(text)]
    if stated:
        return _first_of_stated(stated[-1], kind, closed)
    if kind == "number":
        found = NUMBER.findall(text)
        return _number(found[-1]) if found else None
    if kind == "choice":
        for line in reversed([ln for ln in text.splitlines() if ln.strip()]):
            if letters := _letters(line):
                return letters[-1]
        return None
    if closed:
        return _one_of(text, closed)
    last = next((ln for ln in reversed(text.splitlines()) if ln.strip()), None)
    return plain(last) if last else None


def _gsm8k_strict(text: str, kind: str, closed: Sequence[str]) -> str | None:
    found = STRICT.findall(text)
    return _number(found[0].rstrip(".,")) if found else None


def _gsm8k_flexible(text: str, kind: str, closed: Sequence[str]) -> str | None:
    found = [a or b for a, b in FLEXIBLE.findall(text)]
    numbers = [n for raw in found if (n := _number(raw.rstrip(".,"))) is not None]
    return numbers[-1] if numbers else None


def _bbh(text: str, kind: str, closed: Sequence[str]) -> str | None:
    if found := BBH.findall(text):
        return _first_of_stated(found[0], kind, closed)
    if kind == "choice":
        options = OPTION.findall(text)
        return options[-1] if options else None
    if closed:
        return _one_of(text, closed)
    if kind == "number":
        numbers = NUMBER.findall(text)
        return _number(numbers[-1]) if numbers else None
    return None


READERS: dict[str, Callable[[str, str, Sequence[str]], str | None]] = {
    "answer-line": _answer_line, "gsm8k-strict": _gsm8k_strict, "gsm8k-flexible": _gsm8k_flexible, "bbh": _bbh}


def read_answer(text: str, kind: str, rule: str = DEFAULT_RULE, closed: Sequence[str] = ()) -> str | None:
    """The final answer `text` states under `rule`, in the form `kind` compares; None where it states none,
    names two, or names one outside the `closed` list."""
    read = READERS[rule](text or "", kind, closed)
    if read is None or not closed:
        return read
    allowed = {c.upper() for c in closed} if kind == "choice" else {plain(c) for c in closed}
    return read if (read.upper() if kind == "choice" else read) in allowed else None


def options_of(question: str) -> tuple[str, ...]:
    """The letters a multiple-choice question offers, `(A)` to `(J)`, in order; none where it shows none."""
    return tuple(dict.fromkeys(OPTION.findall(question)))


def correct(read: str | None, answer: str, kind: str, aliases: tuple[str, ...] = ()) -> bool | None:
    """Whether a read answer is right; None where nothing could be read."""
    if read is None:
        return None
    if kind == "number":
        want, got = _number(str(answer)), _number(read)
        if want is None or got is None:
            return False
        return abs(float(want) - float(got)) <= 1e-9 * max(1.0, abs(float(want)))
    if kind == "choice":
        return read.upper() == str(answer).strip().strip("()").upper()
    return read in {plain(a) for a in (str(answer), *aliases)}


def grade(text: str, answer: str, kind: str, aliases: tuple[str, ...] = (), rule: str = DEFAULT_RULE,
          closed: Sequence[str] = ()) -> tuple[str | None, bool | None]:
    """(the answer read, whether it is right): the one grader of every arm."""
    read = read_answer(text, kind, rule, closed)
    return read, correct(read, answer, kind, aliases)
