#!/usr/bin/env bash
# Mutation testing of the pure rules with mutmut: breaks each rule one small change at a time
# (a < for a <=, a constant, a dropped call) and runs the fast tests that guard it.
# Prints the kill rate and the mutants that survived. The modules and tests are in pyproject.toml
# under [tool.mutmut]. A full run takes about six minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pip install --quiet "mutmut>=3.3,<4"
rm -rf mutants
.venv/bin/mutmut run --max-children "${MUTMUT_CHILDREN:-2}" >/dev/null 2>&1 || true
.venv/bin/mutmut results --all true > mutants/results.txt 2>/dev/null || .venv/bin/mutmut results > mutants/results.txt
.venv/bin/python - <<'PY'
import collections, re
lines = [l.strip() for l in open("mutants/results.txt") if ": " in l]
status = collections.Counter(l.rsplit(": ", 1)[1] for l in lines)
total = sum(status.values())
killed = status["killed"] + status["timeout"]
print(f"mutants: {total}; killed {status['killed']}, timed out {status['timeout']}, survived {status['survived']}, "
      f"no test {status['no tests']}")
print(f"kill rate: {killed / total:.1%} ({killed} of {total})")
for line in lines:
    if not line.endswith(("killed", "timeout")):
        print("  " + line)
PY
