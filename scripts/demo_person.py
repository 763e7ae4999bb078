"""Play the demo's person: answer and vote as `reviewer` until the discussion needs nobody.

Usage: python scripts/demo_person.py [QUESTION]  (default: slot-handover-review)
Each pass runs the discussion; while it stops for the person (exit 3), fills
the waiting form through `discuss reply` / `discuss vote` and runs again.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from discuss.store import documents

ANSWER = """## Position

An independent registrar signs off, on a checklist the operators agreed in
advance: the old unit's disposal confirmed by tracking data, the new unit's
acceptance tests, and both operators' written consent to the date.

## Why

The two operators alone have every reason to wave a handover through; a
rotating panel of rivals has reasons to slow it down. A registrar with a
fixed checklist is neither, and its record can be audited.
"""


def discuss(*args: str, stdin: str | None = None) -> int:
    return subprocess.run([sys.executable, "-m", "discuss", *args], input=stdin, text=True).returncode


def ballot(form: Path) -> str:
    labels = documents.read(form)[0]["labels"]
    votes = "".join(f"  {label}: {{vote: APPROVE, reasoning: Concrete and checkable.}}\n" for label in labels)
    return f"votes:\n{votes}termination: {{vote: CONCLUDE, reasoning: The checklist settles it.}}\n"


def main() -> None:
    question = sys.argv[1] if len(sys.argv) > 1 else "slot-handover-review"
    while (code := discuss("run", question, "--auto", "-q")) == 3:
        folder = Path("content/questions") / question / "for-people"
        newest = max(folder.glob("round-*-reviewer.md"), key=lambda f: f.stat().st_mtime)
        if "-vote-" in newest.name:
            discuss("vote", question, "--as", "reviewer", "--stdin", stdin=ballot(newest))
        else:
            discuss("reply", question, "--as", "reviewer", "--stdin", stdin=ANSWER)
    sys.exit(code)


if __name__ == "__main__":
    main()
