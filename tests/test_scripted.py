"""The scripted panel: replies, ballots and failures follow a script; bad scripts are refused before a call."""

from __future__ import annotations

import re

from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from scripted import ballot, scripted_panel, write_scripts


def everyone(**votes):
    return {"ann": "NEUTRAL", "bob": "NEUTRAL", "cy": "NEUTRAL", **votes}


def test_replies_and_ballots_follow_the_script_with_labels_resolved(project):
    project.write_panels(scripted_panel())
    write_scripts(project.root,
                  ann=[{"task": "respond", "round": 1, "reply": "Ann's own words."},
                       {"task": "vote", "json": ballot("CONCLUDE", **everyone(bob="REJECT", cy="APPROVE"))}],
                  bob=[], cy=[])
    result = project.cli("run", "swarm-power", "--rounds", "1")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    rnd = d.rounds[0]
    assert rnd.replies["ann"].text.strip() == "Ann's own words."
    assert "offline panel" in rnd.replies["bob"].text  # no entry: played as the offline panel would
    by_ann = {v.target_id: v.vote for v in ballot_box(rnd).votes if v.voter_id == "ann"}
    assert by_ann == {"ann": "NEUTRAL", "bob": "REJECT", "cy": "APPROVE"}
    assert {t.model_id: t.vote for t in ballot_box(rnd).termination_votes}["ann"] == "CONCLUDE"


def test_an_invalid_ballot_then_a_valid_one_is_asked_again(project):
    project.write_panels(scripted_panel())
    write_scripts(project.root, ann=[{"task": "vote", "ask": 1, "reply": "I refuse to use JSON."},
                                     {"task": "vote", "json": ballot(**everyone())}], bob=[], cy=[])
    assert project.cli("run", "swarm-power", "--rounds", "1").exit_code == 0
    rnd = store.load(project.folder).rounds[0]
    assert {b.voter_id: b.attempts for b in ballot_box(rnd).ballots}["ann"] == 2
    assert not ballot_box(rnd).abstentions


def test_a_scripted_timeout_drops_the_panelist_from_the_round(project):
    project.write_panels(scripted_panel())
    write_scripts(project.root, ann=[], bob=[], cy=[{"task": "respond", "fail": "timeout"}])
    assert project.cli("run", "swarm-power", "--rounds", "1").exit_code == 0
    rnd = store.load(project.folder).rounds[0]
    assert "cy" not in rnd.replies
    assert [(f.model_id, f.timed_out, f.attempts) for f in rnd.failures] == [("cy", True, 1)]


def test_a_bad_script_is_refused_by_file_and_field_before_anything_is_written(project):
    project.write_panels(scripted_panel())
    write_scripts(project.root, ann=[{"task": "vote", "reply": "x", "fail": "timeout"}], bob=[{"rnd": 1, "reply": "x"}])
    before = project.snapshot()
    result = project.cli("run", "swarm-power")
    assert result.exit_code == 2
    assert "ann.yaml" in result.output and "exactly one of reply, json or fail" in result.output
    assert project.snapshot() == before
    (project.root / "discussions" / "scripts" / "ann.yaml").write_text("[]\n")
    result = project.cli("run", "swarm-power")
    assert result.exit_code == 2 and "bob.yaml" in result.output and "unknown key 'rnd'" in result.output
    (project.root / "discussions" / "scripts" / "bob.yaml").unlink()
    result = project.cli("run", "swarm-power")
    assert result.exit_code == 2 and "bob.yaml: no script" in result.output
    assert not project.folder.exists()


def test_progress_shows_what_a_scripted_members_delay_took(project):
    project.write_panels(scripted_panel(settings="{retryBaseDelay: 0.0, maxRounds: 1}"))
    write_scripts(project.root, ann=[{"task": "respond", "reply": "Slow but sure.", "delay": 0.4}], bob=[], cy=[])
    result = project.cli("run", "swarm-power", "--rounds", "1")
    assert result.exit_code == 0, result.output
    took = float(re.search(r"ok ann \[respond\].*?, ([\d.]+)s", result.stderr).group(1))
    assert took >= 0.4
    assert "latencyMs: 0" in (project.folder / "round-1" / "ann.md").read_text()  # the record stays stable
