"""Reading shared with a process pool gives what reading alone gives, in order, whatever a worker does; and a
first `status` read that way prints and keeps exactly what one read alone does.

The workers import what they are handed by name: the functions they run are this module's."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from discuss import pools
from discuss.store import statuscache

DYSON = Path(__file__).parent / "data" / "dyson"
PARENT = int(os.environ.setdefault("POOLS_PARENT", str(os.getpid())))  # a worker imports this module too


@pytest.fixture
def shared(monkeypatch):
    """Parts of two items, a pool from eight items on, two processors."""
    monkeypatch.setattr(pools, "PART", 2)
    monkeypatch.setattr(pools, "LEAST", 8)
    monkeypatch.setattr(pools, "processors", lambda: 2)


def doubled(part: list[int]) -> list[list[int]]:
    """Each item doubled, with where it was worked; this process slowly, so a worker takes some parts."""
    if os.getpid() == PARENT:
        time.sleep(0.2)
    return [[item * 2, os.getpid()] for item in part]


def test_a_worker_takes_parts_from_the_back_and_the_results_come_in_order(shared):
    out = pools.share(list(range(24)), doubled)
    assert [value for value, _ in out] == [i * 2 for i in range(24)]
    where = [pid for _, pid in out]
    assert where[0] == PARENT and where[-1] != PARENT  # this process from the front, the worker from the back
    assert where == sorted(where, key=lambda pid: pid != PARENT)  # they met once, in between


def failing(part: list[int]) -> list[list[int]]:
    if os.getpid() != PARENT:
        raise RuntimeError("lost")
    return doubled(part)


def uncarried(part: list[int]) -> list[object]:
    return [(lambda: None) if os.getpid() != PARENT else item * 2 for item in part]  # a function pickle cannot carry


def short(part: list[int]) -> list[int]:
    return [] if os.getpid() != PARENT else [item * 2 for item in part]


@pytest.mark.parametrize("work", [failing, uncarried, short])
def test_a_part_a_worker_fails_to_hand_back_is_worked_here(shared, work):
    out = pools.share(list(range(24)), work)
    assert [x[0] if isinstance(x, list) else x for x in out] == [i * 2 for i in range(24)]


def test_no_pool_for_a_short_list_or_one_processor(shared, monkeypatch):
    made = []
    monkeypatch.setattr(pools, "pool", lambda workers: made.append(workers))
    assert [pid for _, pid in pools.share(list(range(7)), doubled)] == [PARENT] * 7
    monkeypatch.setattr(pools, "processors", lambda: 1)
    assert [pid for _, pid in pools.share(list(range(24)), doubled)] == [PARENT] * 24
    assert made == []


def sleepy(part: list[int]) -> list[int]:
    if os.getpid() == PARENT:
        raise KeyboardInterrupt
    Path(os.environ["POOLS_SEEN"], str(os.getpid())).touch()
    time.sleep(1)
    return part


def test_a_failure_here_leaves_no_worker_behind(shared, tmp_path, monkeypatch):
    monkeypatch.setenv("POOLS_SEEN", str(tmp_path))  # the worker inherits it: it says who it was
    with pytest.raises(KeyboardInterrupt):
        pools.share(list(range(24)), sleepy)
    for pid in (int(p.name) for p in tmp_path.iterdir()):
        state = Path(f"/proc/{pid}/stat")
        assert not state.exists() or state.read_text().split(") ")[1].startswith("Z")  # gone, or waiting to be reaped


def test_a_first_status_read_with_a_pool_prints_and_keeps_what_one_reading_gives(project, monkeypatch):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    assert project.cli("follow-up", "swarm-power", "And in eclipse?", "--rounds", "1", "-q").exit_code == 0
    questions = project.content / "questions"
    (questions / "crit.md").write_text("---\ntitle: Crit?\ntags: [a, b]\n---\n\nBody.\n")
    assert project.cli("run", "crit", "--panel", "offline", "--protocol", "critique", "-q").exit_code == 0
    (questions / "broken.md").write_text("---\ntitle: [unclosed\n---\n")
    (questions / "torn.md").write_text("---\ntitle: Torn?\n---\n")
    (questions / "torn").mkdir()
    (questions / "torn" / "discussion.yaml").write_text("status: [unclosed\n")
    for n in range(6):
        (questions / f"later-{n}.md").write_text(f"---\ntitle: Later {n}?\n---\n\nBody.\n")
    shutil.copytree(DYSON, project.content / "research-questions")
    cache = statuscache._file(project.content)

    cache.unlink(missing_ok=True)
    alone = project.cli("status", "--json")
    kept = cache.read_bytes()
    cache.unlink()
    monkeypatch.setattr(pools, "PART", 2)
    monkeypatch.setattr(pools, "LEAST", 2)
    monkeypatch.setattr(pools, "processors", lambda: 2)
    made, real = [], pools.pool
    monkeypatch.setattr(pools, "pool", lambda workers: made.append(workers) or real(workers))
    shared = project.cli("status", "--json")
    assert made == [1]
    assert shared.stdout == alone.stdout
    slugs = [row["slug"] for row in json.loads(shared.stdout)]
    assert slugs[:9] == ["crit", *[f"later-{n}" for n in range(6)], "swarm-power", "swarm-power-part-2"]
    assert shared.stderr == alone.stderr
    assert "torn" in alone.stderr and "broken.md" in alone.stderr
    assert cache.read_bytes() == kept
