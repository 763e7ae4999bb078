"""Two runs on one discussion, and `status` while a run is writing."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import fake_panel
from fakeserver import DEFAULT, Action

SRC = str(Path(__file__).resolve().parent.parent / "src")


def first_run(project, fake, settings: str) -> subprocess.Popen:
    """A run in its own process that stays in round 1's votes (gamma's ballot takes 30 s)."""
    fake.script("gamma", DEFAULT, Action(delay=30))
    project.write_panels(fake_panel(fake.url, settings=settings))
    return subprocess.Popen(
        [sys.executable, "-m", "discuss.cli.app", "--root", str(project.root), "run", "swarm-power", "--panel", "fake",
         "--auto", "-q"], env={**os.environ, "PYTHONPATH": SRC}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_a_second_run_fails_fast_and_status_never_sees_half_a_file(project, fake):
    first = first_run(project, fake, "{retryBaseDelay: 0.01, timeoutSeconds: 60}")
    try:
        statuses = 0
        deadline = time.monotonic() + 60
        while not fake.requests_for("gamma", "vote") and time.monotonic() < deadline:
            result = project.cli("status")  # while the first run writes its files
            assert result.exit_code == 0, result.output
            statuses += 1
        assert fake.requests_for("gamma", "vote"), "the first run never reached its votes"
        # the lock is taken without waiting: the second run is refused, it does not queue
        second = project.cli("run", "swarm-power", "--auto")
        assert second.exit_code == 2 and "another `discuss run` is working on this discussion" in second.stderr
        assert statuses > 0 and project.cli("status").exit_code == 0
    finally:
        first.kill()
        first.wait()
    assert project.cli("run", "swarm-power", "--auto").exit_code == 0  # the lock died with its holder


def test_run_all_beside_another_run_reports_its_discussion_as_running_elsewhere(project, fake):
    second = project.content / "questions" / "second.md"
    second.write_text(project.question.read_text().replace("slug: swarm-power", "slug: second"))
    first = first_run(project, fake, "{retryBaseDelay: 0.01, timeoutSeconds: 60, maxRounds: 1}")
    try:
        deadline = time.monotonic() + 60
        while not fake.requests_for("gamma", "vote") and time.monotonic() < deadline:
            time.sleep(0.05)
        batch = project.cli("run", "--all", "--panel", "fake")
        assert batch.exit_code == 0, batch.output
        assert "swarm-power: running elsewhere" in batch.stderr and "failed" not in batch.output
        assert "1 of 2 discussion(s) ran to their end; 1 running elsewhere (swarm-power)" in batch.stdout
    finally:
        first.kill()
        first.wait()


def test_a_run_leaves_only_its_own_files_for_git(project):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q"], cwd=project.root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project.root, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=project.root, check=True)
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto").exit_code == 0
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=project.root,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    assert status and all(line.startswith("?? content/questions/swarm-power/") for line in status), status
    assert not any(".lock" in line for line in status)


def test_a_process_that_called_a_model_exits_at_once_with_its_code_and_every_file_whole(project, fake):
    """After the last reply the process leaves without the interpreter's teardown; nothing is lost by it."""
    from discuss.store import discussions as store

    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxRounds: 1}"))
    command = [sys.executable, "-m", "discuss", "--root", str(project.root), "run", "swarm-power", "--panel", "fake"]
    done = subprocess.run([*command, "--auto", "-q"], env={**os.environ, "PYTHONPATH": SRC}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "concluded" in done.stdout  # what was printed before leaving is all there
    d = store.load(project.folder)
    assert d.status == "concluded" and d.conclusion is not None
    fake.fail_always("alpha")
    fake.fail_always("beta")
    fake.fail_always("gamma")
    second = project.content / "questions" / "second.md"
    second.write_text(project.question.read_text().replace("slug: swarm-power", "slug: second"))
    failed = subprocess.run([*command[:-3], "second", "--panel", "fake", "--rounds", "1"],
                            env={**os.environ, "PYTHONPATH": SRC}, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1 and "every participant failed" in failed.stderr


@pytest.mark.parametrize("code,status,said", [(None, 0, ""), (0, 0, ""), (3, 3, ""), ("no such panel", 1, "no such panel")])
def test_leaving_gives_the_commands_code_and_says_its_message(monkeypatch, capsys, code, status, said):
    from discuss.cli import entry

    left: list[int] = []
    monkeypatch.setattr(entry.os, "_exit", left.append)
    entry.leave(code)
    assert left == [status] and capsys.readouterr().err.strip() == said


@pytest.mark.parametrize("given,kept", [(None, "__all__"), ("", ""), ("logfire", "logfire")])
def test_pydantic_plugins_are_left_out_of_the_process_unless_asked_for(monkeypatch, given, kept):
    from discuss.cli import entry, quick

    if given is None:
        monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)
    else:
        monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", given)
    monkeypatch.setattr(quick, "status", lambda argv: 0)

    def leaving(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(entry.os, "_exit", leaving)
    with pytest.raises(SystemExit):
        entry.main()
    assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == kept


def test_a_reader_that_left_early_makes_the_command_fail_not_hang(monkeypatch):
    from discuss.cli import entry

    class Gone:
        def flush(self):
            raise BrokenPipeError

    left: list[int] = []
    monkeypatch.setattr(entry.os, "_exit", left.append)
    monkeypatch.setattr(entry.sys, "stdout", Gone())
    entry.leave(0)
    assert left == [1]


def test_a_limit_holds_across_processes_started_from_one_project(tmp_path):
    """Two processes (as two MCP asks start them) under `limits: {key: 1}` never hold a request at once."""
    import subprocess
    import sys
    import uuid

    key = f"test-provider-{uuid.uuid4().hex}"
    script = (
        "import asyncio, sys, time\n"
        "from discuss.domain import Panelist\n"
        "from discuss.engine.gateway import ProviderLimits\n"
        "limits = ProviderLimits({sys.argv[1]: 1})\n"
        "async def one():\n"
        "    async with limits.gate(Panelist('a', sys.argv[1] + '/m', 'A')):\n"
        "        start = time.time(); await asyncio.sleep(0.3); end = time.time()\n"
        "    print(start, end, flush=True)\n"
        "async def main():\n"
        "    await asyncio.gather(one(), one())\n"
        "asyncio.run(main())\n")
    runs = [subprocess.Popen([sys.executable, "-c", script, key], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    spans = sorted(tuple(map(float, line.split())) for r in runs for line in r.communicate(timeout=30)[0].split("\n")
                   if line)
    assert len(spans) == 4
    assert all(later[0] >= earlier[1] - 0.01 for earlier, later in zip(spans, spans[1:])), spans


def test_a_slot_file_removed_under_a_run_is_not_locked_beside_the_new_one(tmp_path, monkeypatch):
    """A process keeps its slot files open between calls; if the folder is cleaned away meanwhile, another
    process locks a new file of the same name, and this one must see that file, not its old one."""
    import shutil
    import uuid

    from discuss.store import files

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    key = f"test-provider-{uuid.uuid4().hex}"
    files.take_slot(key, 1)()  # opened, locked and given back: the file stays open in this process
    shutil.rmtree(tmp_path / f"discuss-locks-{os.getuid()}")
    script = ("import sys\nfrom discuss.store.files import take_slot\n"
              "assert take_slot(sys.argv[1], 1)\nprint('held', flush=True)\nsys.stdin.readline()\n")
    other = subprocess.Popen([sys.executable, "-c", script, key], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)})
    try:
        assert other.stdout.readline().strip() == "held"  # type: ignore[union-attr]
        assert files.take_slot(key, 1) is None
        assert (give_back := files.take_slot(key, 2)) is not None
        give_back()
    finally:
        other.communicate("\n", timeout=30)
    assert (give_back := files.take_slot(key, 1)) is not None
    give_back()


def test_at_a_providers_limit_calls_of_lower_priority_go_first_then_in_order_of_arrival():
    """An eval's discussions (priority 0) are let in before its plain baselines (1) wherever both wait; a
    waiter cancelled in line, or after it was let in, never keeps the place."""
    import asyncio

    from discuss.engine.gateway import _Gate

    async def main() -> list[str]:
        gate, order = _Gate(1), []
        await gate.acquire(0)  # held

        async def wait(name: str, priority: int) -> None:
            await gate.acquire(priority)
            order.append(name)
            await asyncio.sleep(0)
            gate.release()

        late = [asyncio.create_task(wait(f"baseline-{i}", 1)) for i in range(2)]
        await asyncio.sleep(0)
        gone = asyncio.create_task(wait("cancelled", 0))
        soon = [asyncio.create_task(wait(f"discussion-{i}", 0)) for i in range(2)]
        await asyncio.sleep(0)
        gone.cancel()
        gate.release()
        await asyncio.gather(*late, *soon, gone, return_exceptions=True)
        # let in, then cancelled before it ran: the place passes to the next
        await gate.acquire(0)
        taken = asyncio.create_task(wait("let-in-then-cancelled", 0))
        after = asyncio.create_task(wait("after", 0))
        await asyncio.sleep(0)
        gate.release()
        taken.cancel()
        await asyncio.gather(taken, after, return_exceptions=True)
        assert gate.free == 1 and not gate.waiting
        return order

    assert asyncio.run(main()) == ["discussion-0", "discussion-1", "baseline-0", "baseline-1", "after"]
