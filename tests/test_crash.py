"""Crash consistency: a run killed with SIGKILL at random moments, resumed each time.

Twelve kills (seeded), each once one more result is on disk and then at a
random moment up to 80 ms later: in the middle of a call, of the next
save, or between the two. The kills must land in both phases of a round
(answers and votes). Then checks: the discussion is complete and loads; no
answer that had been saved was asked for again; the final files equal an
uninterrupted run's except for timestamps and latencies. Each life of the
run is a new process, so the count of kills is what the test costs.
"""

import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import Project, fake_panel
from discuss.store import discussions as store
from fakeserver import FakeLLM
from test_cli import files_of, without_stamps

SRC = str(Path(__file__).resolve().parent.parent / "src")
IDS = ("alpha", "beta", "gamma", "delta")
# Four rounds: about twice the results the twelve kills need, so a run that outpaces a watcher starved of CPU
# (a loaded machine) still has work left when the twelfth kill is due.
SETTINGS = "{retryBaseDelay: 0.01, maxRounds: 4, convergenceRounds: 99}"
KILLS = 12


def start(project: Project) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "discuss.cli.app", "--root", str(project.root), "run", "swarm-power", "--panel", "fake",
         "--auto", "-q"], env={**os.environ, "PYTHONPATH": SRC}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def saved_answers(project: Project) -> set[tuple[str, int]]:
    return {(p.stem, int(p.parent.name.split("-")[1])) for p in project.folder.glob("round-*/*.md")}


def progress(project: Project) -> int:
    """Answers and ballots on disk."""
    ballots = sum(p.read_text().count("labels:") for p in project.folder.glob("round-*/votes.yaml"))
    return len(list(project.folder.glob("round-*/*.md"))) + ballots


def round_of(request) -> int | None:
    m = re.search(r"## Your task \(round (\d+)\)", request["messages"][-1]["content"])
    return int(m.group(1)) if m else None


def normalised(folder: Path) -> dict[str, str]:
    return {k: re.sub(r"latencyMs: \d+", "latencyMs: <ms>", v) for k, v in without_stamps(files_of(folder)).items()}


def phase(project: Project) -> str:
    rounds = sorted(project.folder.glob("round-*"), key=lambda p: int(p.name.split("-")[1]))
    return "votes" if rounds and (rounds[-1] / "votes.yaml").exists() else "answers"


def test_kills_lose_nothing_and_repeat_no_saved_answer(project, tmp_path):
    rng = random.Random(20261122)
    kills, phases = 0, set()
    with FakeLLM(latency=0.05, jitter=0.4, seed=7, termination="CONTINUE") as fake:
        project.write_panels(fake_panel(fake.url, IDS, SETTINGS))
        while True:
            saved, seen = saved_answers(project), len(fake.requests)
            proc = start(project)
            if kills < KILLS:
                # Kill once one more result is on disk, so that every life of the run gets somewhere.
                wanted = (progress(project) if project.folder.exists() else 0) + 1
                while proc.poll() is None and (not project.folder.exists() or progress(project) < wanted):
                    time.sleep(0.01)
                if proc.poll() is None:
                    time.sleep(rng.random() * 0.08)  # anywhere in the middle of a call or a save
                    proc.send_signal(signal.SIGKILL)
                    kills += 1
                    phases.add(phase(project))
            code = proc.wait()
            repeated = [(r["model"], round_of(r)) for r in fake.requests[seen:]
                        if r["task"] == "respond" and (r["model"], round_of(r)) in saved]
            assert not repeated, f"asked again after kill {kills}: {repeated}"
            d = store.load(project.folder)  # every file parses after every kill
            if d is not None and d.concluded:
                break
            assert code == -signal.SIGKILL, f"a run ended with {code} before the discussion concluded"
    assert kills >= KILLS, f"the discussion finished after only {kills} kills"
    assert phases == {"answers", "votes"}
    d = store.load(project.folder)
    assert d.concluded and d.termination_reason == "max-rounds" and len(d.rounds) == 4

    with FakeLLM(latency=0.0, termination="CONTINUE") as clean:
        other = Project(tmp_path / "clean")
        other.write_panels(fake_panel(clean.url, IDS, SETTINGS))
        assert other.cli("run", "swarm-power", "--panel", "fake", "--auto").exit_code == 0
    assert normalised(project.folder) == normalised(other.folder)
