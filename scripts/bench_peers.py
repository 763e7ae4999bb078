"""discuss against a peer council tool, side by side on the same fake server.

The peer is llm-council-core (amiable-dev's llm-council), installed in a
virtual environment of its own (made on the first run, under
`--peer-venv`; default: the user's cache folder). Both answer a one-shot
council of three members, one of them also in the chair, as a user runs
it: a fresh process each time, runs interleaved, against one fake server
(tests/fakeserver.py) at a fixed latency. For each tool, medians over the
runs of:
- the whole process's wall time;
- its peak resident memory (each run under a parent of its own, which reads
  its only child's peak);
- its phases on the server's clock (requests that overlap are one phase),
  and the server's span over phases x latency.
The figure is discuss's wall over the peer's (goal <= 0.6 at 0.3 s) and
discuss's peak memory (goal <= 60 MB).
With `--hosted`, discuss's members take the names people use
(`openai/gpt-4o-mini`, `openai/gpt-4o`, `openai/gpt-4.1-mini`) on the same
server, the path of every hosted panel; `DISCUSS_CLIENT=litellm` in the
environment measures the litellm path for comparison.
Usage: python scripts/bench_peers.py [--runs 5] [--latency 0.3] [--hosted] [--peer-venv DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

from bench_orchestration import phases
from benchkit import HOSTED, FakeLLM, make_project

SRC = str(Path(__file__).resolve().parent.parent / "src")
PEER = "llm-council-core==0.53.0"

# Runs one command and prints its wall time and its peak memory (ru_maxrss of its only child, in KiB).
MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - start
print(wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)
sys.stderr.write(done.stderr[-2000:] if done.returncode else "")
"""

# The peer's own entry point for a whole council: stage 1 answers, stage 2 reviews, stage 3 the chair.
PEER_COUNCIL = """
import asyncio, sys
from llm_council.council import run_full_council
answers, reviews, verdict, _ = asyncio.run(run_full_council(sys.argv[1], bypass_cache=True))
if not answers or not verdict:
    raise SystemExit("the peer's council did not finish")
"""


def peer_python(folder: Path) -> Path:
    python = folder / "bin" / "python"
    if not python.exists():
        print(f"installing {PEER} into {folder} (once)", file=sys.stderr)
        venv.create(folder, with_pip=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PEER], check=True)
    return python


def peer_env(tmp: Path, url: str) -> dict[str, str]:
    config = tmp / "llm_council.yaml"
    config.write_text(json.dumps({
        "council": {"models": ["openai/p0", "openai/p1", "openai/p2"], "chairman": "openai/p0"},
        "gateways": {"default": "openrouter",
                     "providers": {"openrouter": {"base_url": url + "/chat/completions"}}},
    }))
    return {**os.environ, "LLM_COUNCIL_CONFIG": str(config), "OPENROUTER_API_KEY": "bench", "HOME": str(tmp)}


def measured(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    done = subprocess.run([sys.executable, "-c", MEASURE, *cmd], env=env, cwd=cwd, capture_output=True, text=True)
    wall, rss_kib, code = done.stdout.split()
    if code != "0":
        raise SystemExit(f"{cmd[:3]} failed:\n{done.stderr}")
    return float(wall), int(rss_kib) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--hosted", action="store_true", help="discuss's members named as hosted models")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    parser.add_argument("--peer-venv", type=Path, default=cache / "discuss" / "bench-peers")
    args = parser.parse_args()
    peer = peer_python(args.peer_venv)
    figures: dict[str, dict[str, list[float]]] = {t: {"wall": [], "rss": [], "phases": [], "span": []}
                                                  for t in ("discuss", "peer")}
    with tempfile.TemporaryDirectory() as folder, FakeLLM(latency=args.latency) as fake:
        tmp = Path(folder)
        root = make_project(tmp / "project", fake.url, 3, questions=args.runs, models=HOSTED if args.hosted else None)
        ours = {**os.environ, "PYTHONPATH": SRC, "BENCH_KEY": "bench"}
        theirs = peer_env(tmp, fake.url)
        (tmp / "peer-council.py").write_text(PEER_COUNCIL)
        for n in range(args.runs):
            for tool in ("discuss", "peer"):
                seen = len(fake.requests)
                if tool == "discuss":
                    wall, rss = measured([sys.executable, "-m", "discuss", "--root", str(root), "run", f"q{n:03d}",
                                          "--panel", "bench", "--protocol", "council", "-q"], ours, tmp)
                else:
                    wall, rss = measured([str(peer), str(tmp / "peer-council.py"), f"Question {n}?"], theirs, tmp)
                found = phases([{"start": r["at"], "end": r["end"]} for r in fake.requests[seen:]])
                figures[tool]["wall"].append(wall)
                figures[tool]["rss"].append(rss)
                figures[tool]["phases"].append(len(found))
                figures[tool]["span"].append((found[-1][1] - found[0][0]) / (len(found) * args.latency))
    median = {t: {k: statistics.median(v) for k, v in f.items()} for t, f in figures.items()}
    names = ", ".join(HOSTED) if args.hosted else "openai/p0..p2"
    client = os.environ.get("DISCUSS_CLIENT") or "default"
    print(f"one-shot council of 3 (one in the chair), {args.latency} s latency, median of {args.runs} runs each; "
          f"discuss's members: {names} (client: {client})")
    for tool, m in median.items():
        print(f"  {tool:8} wall {m['wall']:.2f} s, peak memory {m['rss']:.0f} MB, {m['phases']:.0f} phases, "
              f"server span over phases x latency {m['span']:.3f}")
    print(f"  discuss's wall over the peer's: {median['discuss']['wall'] / median['peer']['wall']:.2f} (goal <= 0.6); "
          f"discuss's peak memory {median['discuss']['rss']:.0f} MB (goal <= 60)")


if __name__ == "__main__":
    main()
