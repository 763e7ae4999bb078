"""Grading a final answer against a labelled one: pure, the same for every arm of an eval.

- `number`: the answer line's number (`Answer: 42`), else the last number in
  the text; compared as numbers (1,000 and 1000.0 are 1000), to a relative
  tolerance of 1e-9.
- `choice`: the answer line's letter (`Answer: (B)`), else a lone capital
  letter on the last line that holds one; compared as letters.
- `text`: the answer line, else the last non-empty line, compared with the
  answer and its aliases once case, punctuation and runs of spaces are made
  one.

What cannot be read is `None`: ungradable, never guessed.
"""

from __future__ import annotations

import re
import unicodedata

ANSWER_LINE = re.compile(r"(?im)^\W*(?:final\s+)?answer\s*(?:is)?\s*[:=\-]?\s*(.+?)\s*$")
NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
LETTER = re.compile(r"(?<![A-Za-z])\(?([A-J])\)?(?![A-Za-z])")


def read_answer(text: str, kind: str) -> str | None:
    """The final answer `text` states, in the form `kind` compares; None where it states none."""
    lines = [m.group(1) for m in ANSWER_LINE.finditer(text or "")]
    stated = lines[-1] if lines else None
    if kind == "number":
        found = NUMBER.findall(stated if stated and NUMBER.search(stated) else (text or ""))
        return _number(found[-1]) if found else None
    if kind == "choice":
        for candidate in ([stated] if stated else []) + [ln for ln in reversed((text or "").splitlines()) if ln.strip()]:
            found = LETTER.findall(candidate)
            if found:
                return found[-1]
        return None
    last = stated or next((ln for ln in reversed((text or "").splitlines()) if ln.strip()), None)
    return plain(last) if last else None


def _number(raw: str) -> str:
    value = float(raw.replace(",", ""))
    return str(int(value)) if value.is_integer() else repr(value)


def plain(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w\s]", " ", folded).split())


def correct(read: str | None, answer: str, kind: str, aliases: tuple[str, ...] = ()) -> bool | None:
    """Whether a read answer is right; None where nothing could be read."""
    if read is None:
        return None
    if kind == "number":
        try:
            want, got = float(str(answer).replace(",", "")), float(read)
        except ValueError:
            return False
        return abs(want - got) <= 1e-9 * max(1.0, abs(want))
    if kind == "choice":
        return read.upper() == str(answer).strip().strip("()").upper()
    return read in {plain(a) for a in (str(answer), *aliases)}


def grade(text: str, answer: str, kind: str, aliases: tuple[str, ...] = ()) -> tuple[str | None, bool | None]:
    """(the answer read, whether it is right): the one grader of every arm."""
    read = read_answer(text, kind)
    return read, correct(read, answer, kind, aliases)
