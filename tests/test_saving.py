"""When a run writes: results together, within `LONGEST` of the first unwritten one; the rest after sending.

Driven on a clock of the test's own, so each rule is checked at the moment
it decides, never by the wall clock.
"""

import pytest

from conftest import fake_panel
from discuss.domain import Discussion
from discuss.engine.runner import Saving


class Clock:
    """What `Saving` needs of an event loop: its time, and callbacks at a time, run as the clock moves."""

    def __init__(self):
        self.now = 0.0
        self.due: list[Handle] = []

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, fn) -> "Handle":
        handle = Handle(when, fn)
        self.due.append(handle)
        return handle

    def advance(self, seconds: float) -> None:
        end = self.now + seconds
        while (ready := sorted((h for h in self.due if not h.cancelled and h.when <= end), key=lambda h: h.when)):
            handle = ready[0]
            self.due.remove(handle)
            self.now = handle.when
            handle.fn()
        self.now = end


class Handle:
    def __init__(self, when: float, fn):
        self.when, self.fn, self.cancelled = when, fn, False

    def cancel(self) -> None:
        self.cancelled = True


def saving() -> tuple[Saving, Clock, list[float]]:
    clock, writes, d = Clock(), [], Discussion.__new__(Discussion)
    d.rounds = []
    return Saving(d, lambda since, index: writes.append(clock.now), clock), clock, writes


def results(s: Saving, clock: Clock, times: list[float]) -> None:
    for t in times:
        clock.advance(t - clock.now)
        s.result(index=False)


def test_a_burst_of_results_is_written_once_after_the_last():
    s, clock, writes = saving()
    results(s, clock, [0.001 * i for i in range(10)])
    assert writes == []  # the phase's other replies are still arriving: nothing written mid-way
    clock.advance(1)
    assert writes == [pytest.approx(0.009 + Saving.QUIET)]


def test_results_that_keep_coming_are_written_within_the_longest_wait():
    s, clock, writes = saving()
    arrivals = [0.005 * i for i in range(60)]  # never quiet for long
    results(s, clock, arrivals)
    clock.advance(1)
    assert len(writes) >= 5
    for t in arrivals:  # every result is on disk within LONGEST of its arrival
        assert min(w for w in writes if w >= t) - t <= Saving.LONGEST + 1e-9


def test_what_is_pending_is_written_once_the_next_requests_are_out():
    s, clock, writes = saving()
    s.changed()
    s.before_sending()
    assert writes == []  # not before the requests: they need the thread first
    clock.advance(1)
    assert writes == [pytest.approx(Saving.SENDING)]


def test_after_sending_never_holds_a_result_past_the_longest_wait():
    s, clock, writes = saving()
    results(s, clock, [0.0, 0.008, 0.016, 0.024, 0.032, 0.040])  # never quiet: the first is not yet written
    clock.advance(0.005)
    s.before_sending()
    clock.advance(1)
    assert writes == [pytest.approx(Saving.LONGEST)]  # not SENDING after now: the first result would wait longer


def test_a_round_opened_is_in_the_index_before_its_first_reply_is_taken_in():
    s, clock, writes = saving()
    s.d.rounds.append(object())  # what a step that opens a round does
    s.before_sending()
    assert writes == []  # its requests go out first
    clock.advance(0.005)
    s.before_result()  # a reply came before the timer: the round is named on disk before it is taken in
    assert writes == [pytest.approx(0.005)]
    s.before_result()  # the next reply finds nothing ahead of it
    s.result(index=False)
    clock.advance(1)
    assert writes == [pytest.approx(0.005), pytest.approx(0.005 + Saving.QUIET)]


def test_a_round_opened_is_written_once_its_requests_are_out():
    s, clock, writes = saving()
    s.d.rounds.append(object())
    s.before_sending()
    clock.advance(1)
    assert writes == [pytest.approx(Saving.SENDING)]
    s.before_result()  # written already: nothing more to write before the reply
    assert writes == [pytest.approx(Saving.SENDING)]
    s.changed()
    s.before_sending()  # the same round again
    clock.advance(1)
    assert writes == [pytest.approx(Saving.SENDING), pytest.approx(1 + Saving.SENDING)]


def test_a_reply_waits_for_the_timer_where_no_round_was_opened():
    s, clock, writes = saving()
    s.result(index=False)  # the phase before's last reply, not yet written
    s.before_sending()  # the next phase, in the same round
    s.before_result()  # its first reply: no round to name, so no write of its own (an instant panel wrote twice)
    assert writes == []
    clock.advance(1)
    assert writes == [pytest.approx(Saving.SENDING)]


def test_a_write_that_fails_on_a_timer_stops_the_next_phase_and_loses_nothing():
    clock, written, d = Clock(), [], Discussion.__new__(Discussion)
    d.rounds = []
    full = [True]

    def write(since: int, index: bool) -> None:
        if full[0]:
            raise OSError(28, "No space left on device", "votes.yaml")
        written.append(since)

    s = Saving(d, write, clock)
    s.result(index=False)
    clock.advance(1)  # the timer's write fails: nothing raised into the event loop
    with pytest.raises(OSError, match="No space"):
        s.before_sending()  # but before the next phase spends
    full[0] = False
    s.flush()  # what was pending still is: written once the disk has room
    assert written == [0]


def test_nothing_pending_is_nothing_written():
    s, clock, writes = saving()
    s.before_sending()
    s.flush()
    clock.advance(1)
    assert writes == []


@pytest.mark.parametrize("protocol,rounds", [("vote", 3), ("council", 1)])  # a council's stages share a round
def test_no_file_of_a_round_reaches_the_disk_before_the_index_records_the_round(project, fake, monkeypatch,
                                                                                protocol, rounds):
    """Checked at every write of a whole run on a server that answers at once: a resume refuses the opposite."""
    import re

    from discuss.store import discussions, yamlio

    real, checked = discussions.write_atomic, []

    def write(path, text):
        if m := re.fullmatch(r"round-(\d+)", path.parent.name):
            index = yamlio.load((project.folder / "discussion.yaml").read_text(), written=True)
            assert len(index["rounds"]) >= int(m.group(1)), f"{path.name} of round {m.group(1)} came first"
            checked.append(path)
        return real(path, text)

    monkeypatch.setattr(discussions, "write_atomic", write)
    fake.termination = "CONTINUE"
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, maxRounds: 3, convergenceRounds: 99}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", protocol, "--auto")
    assert result.exit_code == 0, result.output
    assert {p.parent.name for p in checked} == {f"round-{n}" for n in range(1, rounds + 1)}


def test_a_run_writes_its_start_while_its_first_requests_are_out(project, fake, monkeypatch):
    """The first save (with the YAML writer's import) once took 30-60 ms before the first request."""
    from discuss.engine.gateway import Gateway
    from discuss.store import discussions

    real_write, real_call, seen = discussions.write_atomic, Gateway.call, []

    def write(path, text):
        seen.append("write")
        return real_write(path, text)

    async def call(self, spec):
        seen.append("call")  # a member's call begins: its request goes out at its first step
        return await real_call(self, spec)

    monkeypatch.setattr(discussions, "write_atomic", write)
    monkeypatch.setattr(Gateway, "call", call)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "council", "--auto")
    assert result.exit_code == 0, result.output
    assert seen[:3] == ["call"] * 3 and "write" in seen  # every first call began before anything was written
    assert discussions.load(project.folder).conclusion is not None


def test_what_a_replys_check_needs_is_made_while_the_requests_are_out(project, fake, monkeypatch):
    from discuss.text import placeholders

    real, seen = placeholders.patterns, []

    def patterns(*args):
        seen.append(sum("end" in r for r in fake.requests))  # replies the server had finished by then
        return real(*args)

    real.cache_clear()
    monkeypatch.setattr(placeholders, "patterns", patterns)
    fake.latency = 0.5  # the early call is due 20 ms after sending: far ahead of any reply, even on a busy machine
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "council", "--auto").exit_code == 0
    assert seen and seen[0] == 0  # compiled before the first reply came back
