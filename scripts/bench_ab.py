"""Two installs of discuss side by side: start-up of the usual commands and a one-shot council, interleaved.

Each install is a Python environment with its own discuss (a checkout of the tree before a change, set up
with scripts/setup.sh, and one of the tree after). Every command runs as a fresh process, the two installs
taking turns, so a machine that slows down slows both; the figure is the median of the after's runs over
the before's. Commands: `--help`, `panels` (three hosted members), `doctor --panel offline`, `status` over
200 and 1,000 discussions (after a first status kept what it read), and a council of three on a fake
server at 0.3 s latency (`run QUESTION --protocol council`, one question per run).
Usage: python scripts/bench_ab.py BEFORE_PYTHON AFTER_PYTHON [--runs 11]
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

from bench_startup import generate
from benchkit import FakeLLM, make_project

PANELS = ("panels:\n  default:\n    members: [anthropic/claude-opus-4-6, gemini/gemini-3-pro-preview, openai/gpt-5.2]\n"
          "  offline:\n    members: [offline/pragmatist, offline/skeptic, offline/visionary]\n")


def timed(python: str, args: list[str], cwd: Path) -> float:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "BENCH_KEY": "bench"}
    env.pop("PYTHONPATH", None)  # each install's own discuss
    start = time.perf_counter()
    done = subprocess.run([python, "-m", "discuss", *args], cwd=cwd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{python} discuss {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return took


def compiled(python: str) -> None:
    """Each install's modules compiled ahead, as an install that has run once holds them: where bytecode is not
    written (PYTHONDONTWRITEBYTECODE), a changed module would be compiled again on every run."""
    code = "import compileall, os, discuss; compileall.compile_dir(os.path.dirname(discuss.__file__), quiet=1)"
    subprocess.run([python, "-c", code], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    pythons = {"before": args.before, "after": args.after}
    for python in pythons.values():
        compiled(python)
    with tempfile.TemporaryDirectory() as folder, FakeLLM(latency=0.3) as fake:
        tmp = Path(folder)
        hosted = tmp / "hosted"
        (hosted / "discussions").mkdir(parents=True)
        (hosted / "discussions" / "panels.yaml").write_text(PANELS)
        archives = {(tree, count): tmp / f"{tree}-{count}" for tree in pythons for count in (200, 1000)}
        for (_, count), root in archives.items():  # one archive per install: each keeps its own reading of it
            generate(root, count)
        councils = {tree: make_project(tmp / f"council-{tree}", fake.url, 3, questions=args.runs)
                    for tree in pythons}
        cases: dict[str, tuple[list[str], dict[str, Path]]] = {
            "--help": (["--help"], {t: tmp for t in pythons}),
            "panels": (["panels"], {t: hosted for t in pythons}),
            "doctor --panel offline": (["doctor", "--panel", "offline"], {t: hosted for t in pythons}),
            "status over 200": (["status"], {t: archives[t, 200] for t in pythons}),
            "status over 1,000": (["status"], {t: archives[t, 1000] for t in pythons}),
        }
        for (tree, _), root in archives.items():  # the first status keeps what it read
            timed(pythons[tree], ["status"], root)
        found: dict[str, dict[str, list[float]]] = {name: {t: [] for t in pythons} for name in [*cases, "council"]}
        for n in range(args.runs):
            order = list(pythons) if n % 2 == 0 else list(reversed(pythons))
            for name, (command, where) in cases.items():
                for tree in order:
                    found[name][tree].append(timed(pythons[tree], command, where[tree]))
            for tree in order:
                found["council"][tree].append(timed(pythons[tree], ["run", f"q{n:03d}", "--panel", "bench",
                                                                    "--protocol", "council", "-q"], councils[tree]))
    print(f"medians of {args.runs} runs each, interleaved; after over before")
    for name, by_tree in found.items():
        before, after = (statistics.median(by_tree[t]) for t in ("before", "after"))
        print(f"  {name:24} before {before:.3f} s, after {after:.3f} s: {after / before:.3f}")


if __name__ == "__main__":
    sys.exit(main())
