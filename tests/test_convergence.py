"""The early-exit tests: judge, titles and agreement, each at its bar and with what it records."""

from __future__ import annotations

import pytest

from discuss.rules.convergence import agreement_test, judge_test, near, normalise_title, title_overlap, titles

TEMPLATE = "## Position\n\nText.\n\n## Reasoning\n\n- a\n\n## Risks to watch\n\n- b\n"


def test_the_answer_form_is_no_finding():
    assert titles([TEMPLATE, TEMPLATE.replace("Text.", "Other text.")]) == set()
    found = titles([TEMPLATE + "\n## 1. Solar first!\n", "- **Storage** comes later\n### Grid ties ###\n"])
    assert found == {"solar first", "storage", "grid ties"}


def test_normalised_titles():
    assert normalise_title("2) Cost-Sharing: Who Pays?") == "cost sharing who pays"
    assert normalise_title("  ## ") == ""


@pytest.mark.parametrize("a, b, alike", [
    ("solar first", "solar first", True),
    ("solar power first", "solar first", True),          # 2 of 3 words shared
    ("phased deployment", "phased deployments", True),   # letters nearly alike
    ("solar first", "nuclear later", False),
    ("storage", "grid ties", False),
])
def test_near_match(a, b, alike):
    assert near(a, b) is alike


def test_template_headings_alone_never_converge():
    rounds = [TEMPLATE, TEMPLATE.replace("Text.", "Changed entirely.")]
    check = title_overlap(titles([rounds[0]]), titles([rounds[1]]))
    assert check == {"test": "titles", "changed": 0, "matching": 0, "titles": 0, "converged": False}


@pytest.mark.parametrize("previous, current, expected", [
    ({"a one", "b two", "c three"}, {"a one", "b two", "c three"}, (0, 3, True)),
    ({"a one", "b two", "c three"}, {"a one", "b two", "c three", "d four"}, (1, 3, True)),   # one new: still
    ({"a one", "b two", "c three"}, {"a one", "b two", "d four"}, (2, 2, False)),            # one gone, one new
    ({"a one", "b two"}, {"a one", "c three"}, (2, 1, False)),
    ({"a one"}, {"a one", "b two"}, (1, 1, False)),  # half of the current ones is not most of them
    ({"solar first"}, {"solar power first"}, (0, 1, True)),  # a near match counts as the same finding
    (set(), set(), (0, 0, False)),
])
def test_title_overlap(previous, current, expected):
    check = title_overlap(previous, current)
    assert (check["changed"], check["matching"], check["converged"]) == expected
    assert check["titles"] == len(current) and check["test"] == "titles"


def test_judge_and_agreement_record_what_they_looked_at():
    assert judge_test(0.9, 0.85) == {"test": "judge", "value": 0.9, "threshold": 0.85, "converged": True}
    assert agreement_test(0.5, 0.7) == {"test": "agreement", "value": 0.5, "threshold": 0.7, "converged": False}
    assert judge_test(None, 0.85)["converged"] is False and agreement_test(None, 0.7)["converged"] is False


@pytest.mark.parametrize("protocol", ["vote", "critique"])
def test_shared_section_names_do_not_stop_a_discussion(project, protocol):
    """The offline panel's answers share 'Position', 'Reasoning' and 'Risks to watch' and nothing else."""
    settings = "{retryBaseDelay: 0.0, convergenceTest: titles}"
    project.write_panels(project_panel(settings))
    result = project.cli("run", "swarm-power", "--panel", "offline", "--protocol", protocol, "--auto", "-q")
    assert result.exit_code == 0, result.output
    from discuss.store import discussions as store

    d = store.load(project.folder)
    assert d.termination_reason != "converged"
    assert all(not r.notes.get("convergence", {}).get("converged") for r in d.rounds)


def project_panel(settings: str) -> str:
    from conftest import OFFLINE_PANEL

    return OFFLINE_PANEL.replace("{retryBaseDelay: 0.0}", settings)


def test_a_test_is_told_in_words_never_as_a_raw_structure(project):
    from discuss.rules.convergence import agreement_test, in_words, judge_test, title_overlap

    assert in_words(judge_test(0.8333, 0.85)) == "0.83, under the 0.85 needed"
    assert in_words(agreement_test(0.9, 0.7)) == "0.90, at or above the 0.70 needed"
    assert in_words(judge_test(None, 0.85)) == "no score"
    assert in_words(title_overlap({"a", "b"}, {"a", "b", "c"})).endswith("findings kept, 1 changed")
    result = project.cli("run", "swarm-power", "--panel", "offline", "--protocol", "critique", "--auto")
    assert result.exit_code == 0 and "judge test" in result.output
    assert "{'" not in result.output and "{'" not in project.cli("show", "swarm-power").stdout
