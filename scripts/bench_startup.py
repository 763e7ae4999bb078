"""Start-up of `discuss --help`, `panels`, `doctor --panel offline`, and `status` over 200 and 1,000 discussions.

Each command runs as a fresh process (`python -m discuss`, as the installed
command runs) several times; the medians are reported as fractions of
`python -c "import litellm"` measured in the same run. Targets: --help at
most 0.10, panels 0.10, doctor 0.15, status 0.05. Usage: python scripts/bench_startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchkit  # noqa: F401  (puts tests/ on the path)
from discuss.domain import Discussion, Panel, Panelist, Settings
from discuss.store import discussions as store
from sitekit import make_round, question

PANEL = Panel("trio", tuple(Panelist(i, f"openai/{i}", i.title()) for i in ("a", "b", "c")))


def generate(root: Path, count: int) -> None:
    (root / "discussions").mkdir(parents=True)
    (root / "discussions" / "panels.yaml").write_text("panels: {}\n")
    for n in range(count):
        path = question(root, f"q{n:03d}", f"Question {n}?")
        votes = [(v, t, "APPROVE", "reason") for v in PANEL.ids for t in PANEL.ids]
        rounds = [make_round(r, r, {p: "An answer. " * 50 for p in PANEL.ids}, votes,
                             [(p, "CONTINUE", "more") for p in PANEL.ids]) for r in range(1, 6)]
        store.save(Discussion(f"q-{n}", f"q{n:03d}", f"Question {n}?", PANEL, Settings(), rounds=rounds),
                   path.with_suffix(""))


def timed(cmd: list[str], cwd: Path, runs: int) -> float:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--discussions", type=int, nargs="+", default=[200, 1000])
    args = parser.parse_args()
    discuss = [sys.executable, "-m", "discuss"]
    with tempfile.TemporaryDirectory() as tmp:
        litellm = timed([sys.executable, "-c", "import litellm"], Path(tmp), args.runs)
        helptext = timed([*discuss, "--help"], Path(tmp), args.runs)
        print(f"import litellm {litellm:.2f}s (median of {args.runs})")
        print(f"discuss --help {helptext:.2f}s: {helptext / litellm:.3f} of it (target <= 0.10)")
        hosted = Path(tmp) / "hosted"
        (hosted / "discussions").mkdir(parents=True)
        (hosted / "discussions" / "panels.yaml").write_text(
            "panels:\n  default:\n    members: [anthropic/claude-opus-4-6, gemini/gemini-3-pro-preview, "
            "openai/gpt-5.2]\n  offline:\n    members: [offline/pragmatist, offline/skeptic, offline/visionary]\n")
        panels = timed([*discuss, "panels"], hosted, args.runs)
        print(f"discuss panels (three hosted members) {panels:.2f}s: {panels / litellm:.3f} of it (target <= 0.10)")
        doctor = timed([*discuss, "doctor", "--panel", "offline"], hosted, args.runs)
        print(f"discuss doctor --panel offline {doctor:.2f}s: {doctor / litellm:.3f} of it (target <= 0.15)")
        for count in args.discussions:
            root = Path(tmp) / str(count)
            generate(root, count)
            status = timed([*discuss, "status"], root, args.runs)
            print(f"discuss status over {count} discussions {status:.2f}s: {status / litellm:.3f} of it "
                  "(target <= 0.05)")


if __name__ == "__main__":
    main()
