"""`--estimate` against what a run sends: a council, and a 3-round vote, whose every answer fills its limit.

The fake server pads each prose answer to the call's max_tokens (`fill`),
and its ballots never conclude, so the run takes the estimate's worst case.
Both sides are counted the same way (discuss's token counter over the
prompts the server received), so the ratio is the bound's slack alone: it
must be at least 1 (an upper bound) and at most 2 (of use for budgeting).
Usage: python scripts/bench_estimate.py
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from benchkit import FakeLLM, make_project
from discuss.text.tokens import count

SRC = str(Path(__file__).resolve().parent.parent / "src")
CASES = {"council": ("council", ""), "vote, 3 rounds": ("vote", "maxRounds: 3, ")}


def discuss(root: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": SRC, "BENCH_KEY": "bench"}
    done = subprocess.run([sys.executable, "-m", "discuss", "--root", str(root), *args], env=env,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr)
    return done.stdout


def main() -> None:
    print("case             estimated  sent (prompt tokens, one counter)  estimate / sent")
    for case, (protocol, settings) in CASES.items():
        with FakeLLM(termination="CONTINUE") as fake, tempfile.TemporaryDirectory() as tmp:
            fake.fill = True
            root = make_project(Path(tmp), fake.url, 3, settings=f"{{{settings}retryBaseDelay: 0.01}}")
            out = discuss(root, "run", "q000", "--panel", "bench", "--protocol", protocol, "--auto", "--estimate")
            bound = int(re.search(r"prompt tokens:\s+at most (\d+)", out).group(1))
            discuss(root, "run", "q000", "--panel", "bench", "--protocol", protocol, "--auto", "-q")
            sent = sum(count(m["content"]) for r in fake.requests for m in r["messages"]
                       if isinstance(m["content"], str))
            print(f"{case:16} {bound:9}  {sent:9}                           {bound / sent:.2f}")


if __name__ == "__main__":
    main()
