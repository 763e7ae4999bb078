"""Who judges, writes and converges: a third party where the panel has one, else members in turn, on record.

Driven by the scripted panel (every call is played as the offline panel
would unless a script says otherwise); the conclusion's dissent is voiced
by the panelist who dissented, in that persona's own words.
"""

from __future__ import annotations

import pytest

from discuss.store import discussions as store
from discuss.text.standins import PERSONAS, persona_of
from scripted import scripted_panel, write_scripts

MEMBERS = ("pragmatist", "skeptic", "visionary")
REFEREE = "      judge: {id: referee, model: scripted/referee, name: Referee}\n"


def run(project, protocol: str, extra: str = "", ids=MEMBERS, settings: str = "{retryBaseDelay: 0.0}"):
    project.write_panels(scripted_panel(ids, settings=settings, extra=extra))
    write_scripts(project.root, **{i: [] for i in (*ids, "referee")})
    result = project.cli("run", "swarm-power", "--protocol", protocol, "--auto")
    assert result.exit_code == 0, result.output
    return store.load(project.folder)


def test_critique_with_no_referee_rotates_the_judge_and_records_that_it_debated(project):
    d = run(project, "critique", settings="{retryBaseDelay: 0.0, critiqueRounds: 3, convergenceThreshold: 1.0}")
    verdicts = [r.notes["judge"] for r in d.rounds[1:]]
    judges = [v["judgeId"] for v in verdicts]
    assert len(judges) == 3 and len(set(judges)) == 3  # a new judge each round, not the chair every time
    assert all(v["debated"] is True for v in verdicts)
    assert d.conclusion.generated_by in MEMBERS
    assert "(also a debater)" in project.cli("show", "swarm-power").output


def test_critique_judge_and_synthesizer_are_the_panels_outsider(project):
    d = run(project, "critique", extra=REFEREE)
    assert {r.notes["judge"]["judgeId"] for r in d.rounds[1:]} == {"referee"}
    assert not any("debated" in r.notes["judge"] for r in d.rounds[1:])
    assert d.conclusion.generated_by == "referee"


def test_the_synthesizer_a_panel_names_writes_even_if_it_debated(project):
    d = run(project, "critique", extra="      synthesizer: skeptic\n")
    assert d.conclusion.generated_by == "skeptic"


@pytest.mark.parametrize("ids", [MEMBERS, (*MEMBERS, "fourth")])
def test_the_adversarial_converger_is_never_the_drafter(project, ids):
    d = run(project, "adversarial", ids=ids)
    drafter = next(iter(d.rounds[0].replies))
    converger = d.conclusion.generated_by
    assert converger != drafter
    reviewers = set(d.rounds[1].replies)
    # With enough reviewers left, the converger judges reviews it did not write.
    assert (converger in reviewers) == (len(ids) == 3)


def test_the_adversarial_converger_is_an_outsider_when_the_panel_has_one(project):
    d = run(project, "adversarial", extra=REFEREE)
    assert d.conclusion.generated_by == "referee"
    assert set(d.rounds[1].replies) == set(MEMBERS) - {next(iter(d.rounds[0].replies))}


@pytest.mark.parametrize("protocol", ["vote", "critique", "council", "debate", "adversarial", "auto"])
def test_the_offline_dissent_is_voiced_by_its_holder_in_its_own_words(project, protocol):
    project.write_panels(
        "    default:\n      members:\n" + "".join(f"        - {{id: {m}, model: offline/{m}, name: {m.title()}}}\n"
                                               for m in MEMBERS)
        + "      settings: {retryBaseDelay: 0.0}\n")
    result = project.cli("run", "swarm-power", "--protocol", protocol, "--auto")
    assert result.exit_code == 0, result.output
    c = store.load(project.folder).conclusion
    assert c.minority_positions
    for m in c.minority_positions:
        _, persona = persona_of("offline/" + m.held_by.lower())
        assert m.position in persona["moves"] and persona is PERSONAS[m.held_by.lower()]


@pytest.mark.parametrize("ids", [MEMBERS, (*MEMBERS, "fourth", "fifth")])
def test_a_tournament_match_is_judged_by_someone_outside_the_pair(project, ids):
    d = run(project, "tournament", ids=ids)
    for r in d.rounds[1:]:
        for i, m in enumerate(r.notes["matches"]):
            judge = r.replies[f"match-{i + 1}"].model_id
            assert judge not in (m["a"], m["b"])
    assert d.status == "concluded" and d.rounds[-1].notes["champion"] in ids
