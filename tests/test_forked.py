"""Reading shared with forked copies gives what reading alone gives, in order, whatever a copy does; and a
first `status` read that way prints and keeps exactly what one read alone does.

Each case runs in a fresh interpreter: a copy is only made where no other thread runs, and a test runner's
worker may have some."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from discuss.store import statuscache

DYSON = Path(__file__).parent / "data" / "dyson"


def run(code: str) -> subprocess.CompletedProcess[str]:
    prelude = ("import os, sys, threading\nfrom discuss.store import forked\n"
               "forked.LEAST = 2\nforked.processors = lambda: 3\n")
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True,
                          text=True, env=dict(os.environ), timeout=120)


def results(code: str) -> list:
    done = run(code)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


SHARED = """
    parent = os.getpid()
    def work(part):
        {body}
        return [[item * 2, os.getpid() == parent] for item in part]
    {before}
    print(__import__("json").dumps(forked.share(list(range(12)), work)))
"""


def shared(body: str = "pass", before: str = "") -> list:
    return results(SHARED.format(body=body, before=before))


def test_copies_work_their_parts_and_the_results_come_in_order():
    out = shared()
    assert [value for value, _ in out] == [i * 2 for i in range(12)]
    assert [here for _, here in out] == [True] * 4 + [False] * 8  # three parts: this process took the first


def test_a_copy_that_fails_leaves_its_part_to_this_process():
    out = shared(body="if os.getpid() != parent and part[0] == 4: raise RuntimeError('lost')")
    assert [value for value, _ in out] == [i * 2 for i in range(12)]
    assert [here for _, here in out] == [True] * 8 + [False] * 4


def test_a_copy_whose_answer_cannot_be_carried_leaves_its_part_to_this_process():
    code = """
        parent = os.getpid()
        def work(part):
            return [object() if os.getpid() != parent and part[0] == 8 else item for item in part]
        print(__import__("json").dumps(forked.share(list(range(12)), work)))
    """
    assert results(code) == list(range(12))


def test_no_copy_is_made_while_another_thread_runs_or_for_a_short_list():
    before = "threading.Thread(target=threading.Event().wait, args=(5,), daemon=True).start()"
    assert [here for _, here in shared(before=before)] == [True] * 12
    assert [here for _, here in shared(before="forked.LEAST = 7")] == [True] * 12  # 12 // 7: one process


def test_a_failure_here_leaves_no_copy_behind():
    code = """
        import time
        parent = os.getpid()
        def work(part):
            if os.getpid() == parent:
                raise KeyboardInterrupt
            time.sleep(60)
            return part
        try:
            forked.share(list(range(12)), work)
        except KeyboardInterrupt:
            pass
        try:
            os.waitpid(-1, os.WNOHANG)  # a copy still running, or not yet reaped
        except ChildProcessError:
            print("[]")
        else:
            print("[1]")
    """
    assert results(code) == []


def test_a_first_status_read_by_copies_prints_and_keeps_what_one_reading_gives(project):
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
    code = f"""
        started = []
        real = forked._start
        forked._start = lambda part, work: started.append(len(part)) or real(part, work)
        from discuss.cli.quick import status
        status(["--root", {str(project.root)!r}, "status", "--json"])
        print("started", started, file=sys.stderr)
    """
    done = run(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "started [" in done.stderr and "started []" not in done.stderr  # copies did read
    assert done.stdout == alone.stdout
    slugs = [row["slug"] for row in json.loads(done.stdout)]
    assert slugs[:9] == ["crit", *[f"later-{n}" for n in range(6)], "swarm-power", "swarm-power-part-2"]
    assert [line for line in done.stderr.splitlines() if "started" not in line] == alone.stderr.splitlines()
    assert "torn" in alone.stderr and "broken.md" in alone.stderr
    assert cache.read_bytes() == kept
