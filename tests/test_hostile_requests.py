"""The classes a confused or hostile caller tries: one question per text, a person's hostile YAML, keys pasted
into the wrong field, a panel wider than the labels, misspelt keys; each refused in words or kept apart."""

from __future__ import annotations

import json
import re

import pytest

from conftest import fake_panel
from discuss.store import documents
from discuss.text.secrets import scrub
from test_people import PERSON, ballot_yaml, forms


def _slug(result) -> str:
    return re.search(r"questions/([^/\s]+)\.md", result.stderr).group(1)


@pytest.mark.parametrize("first, second", [
    ("Should the error budget be < 5%?", "Should the error budget be > 5%?"),
    ("Как распределить энергию роя 2+3?", "Как охладить рой 2+3?"),
    ("Which " + "very " * 20 + "long question ends in A?", "Which " + "very " * 20 + "long question ends in B?"),
])
def test_two_questions_whose_words_make_one_slug_get_a_discussion_each(project, first, second):
    one = project.cli("ask", first, "--panel", "offline")
    two = project.cli("ask", second, "--panel", "offline")
    assert one.exit_code == 0 and two.exit_code == 0, (one.output, two.output)
    assert "asked before" not in two.stderr and _slug(one) != _slug(two)
    for result, title in ((one, first), (two, second)):
        meta, _ = documents.read(project.content / "questions" / f"{_slug(result)}.md")
        assert meta["title"] == title
    again = project.cli("ask", first, "--panel", "offline")
    assert "asked before" in again.stderr and _slug(again) == _slug(one)  # the same text is the same question


def test_a_question_in_a_script_ascii_cannot_spell_is_asked(project):
    result = project.cli("ask", "如何分配群体的电力？", "--panel", "offline")
    assert result.exit_code == 0, result.output
    assert re.fullmatch(r"q-[0-9a-f]{8}", _slug(result))


def test_a_hostile_ballot_from_a_person_is_refused_in_words_and_kept(project, fake):
    project.write_panels(fake_panel(fake.url, ids=("alpha", "beta")).replace("      settings:", PERSON + "      settings:"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    assert project.cli("reply", "swarm-power", "--as", "ann", input="An answer.").exit_code == 0
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    bomb = "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n"
    result = project.cli("vote", "swarm-power", "--as", "ann", input=bomb)
    assert result.exit_code == 2 and "refused" in result.stderr and "alias" in result.stderr, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert any(f.name.endswith(".draft.md") for f in forms(project))


def test_a_ballot_written_as_the_models_write_it_is_taken(project, fake):
    project.write_panels(fake_panel(fake.url, ids=("alpha", "beta")).replace("      settings:", PERSON + "      settings:"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    assert project.cli("reply", "swarm-power", "--as", "ann", input="An answer.").exit_code == 0
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    meta, _ = documents.read(project.folder / "for-people" / "round-1-vote-ann.md")
    as_list = "votes:\n" + "".join(f"  - {{label: {x}, vote: APPROVE, reasoning: fine}}\n" for x in meta["labels"]) \
        + "termination: {vote: CONTINUE, reasoning: more}\n"
    result = project.cli("vote", "swarm-power", "--as", "ann", input=as_list)
    assert result.exit_code == 0, result.output
    assert project.cli("vote", "swarm-power", "--as", "ann", input=ballot_yaml(meta["labels"])).exit_code == 0


KEYS = ["AIzaSyD4x9Qm2Lr8Vt6Wp1Zk3Nb7Hc5Jf0Ge2Yu", "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        "xoxb-123456789012-123456789012-AbCdEfGhIjKlMnOpQrStUvWx", "github_pat_11ABCDEFG0" + "x" * 40]


@pytest.mark.parametrize("key", KEYS)
def test_a_key_pasted_where_its_variables_name_goes_is_refused_and_never_printed(project, key):
    project.write_panels(f"  p:\n    members:\n      - {{model: openai/gpt-4o-mini, api_key_env: '{key}'}}\n")
    for args in (["panels"], ["doctor"], ["run", "swarm-power", "--panel", "p", "--estimate"]):
        result = project.cli(*args)
        assert key not in result.output and key[8:20] not in result.output, (args, result.output)
    assert "looks like a key" in project.cli("panels").output


@pytest.mark.parametrize("key", KEYS)
def test_the_scrubber_knows_the_shapes_of_keys_no_variable_holds(key):
    assert key[6:20] not in scrub(f"the server said: bad key {key}, try again")


def test_a_panel_wider_than_the_labels_is_refused_before_any_call(project):
    members = "".join(f"      - offline/m{i}\n" for i in range(27))
    project.write_panels(f"  wide:\n    members:\n{members}")
    before = project.snapshot()
    for args in (["panels"], ["doctor"], ["run", "swarm-power", "--panel", "wide", "--estimate"],
                 ["run", "swarm-power", "--panel", "wide", "--auto"]):
        result = project.cli(*args)
        assert result.exit_code == 2 and "at most 26" in result.output, (args, result.output)
    assert project.snapshot() == before


def test_misspelt_keys_of_the_panel_file_get_a_did_you_mean(project):
    project.write_panels("  p:\n    memebers: [offline/a]\n")
    assert "did you mean members" in project.cli("panels").output
    project.write_panels("  p:\n    members:\n      - {model: offline/a, options: {temprature: 0.2}}\n")
    assert "did you mean temperature" in project.cli("panels").output


def test_an_unknown_setting_names_the_settings_there_are(project):
    result = project.cli("run", "swarm-power", "--panel", "offline", "--protocol", "critique", "--set", "critiqueRound=2")
    assert result.exit_code == 2 and "did you mean critiqueRounds" in result.stderr, result.output
    result = project.cli("ask", "Q?", "--panel", "offline", "--set", "foo=1")
    assert result.exit_code == 2 and "protocols" in result.stderr
    assert not (project.content / "questions" / "q.md").exists()
    listed = json.loads(project.cli("protocols", "--json").stdout)
    assert listed


def test_a_strict_site_build_passes_over_every_folder_the_tool_writes(project):
    from sitekit import MKDOCS, build

    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    audited = project.cli("audit", "swarm-power", "--orders", "1")
    assert audited.exit_code == 0, audited.output
    assert (project.folder / "audit").is_dir()
    assert project.cli("trials", "swarm-power", "--runs", "1", "--panel", "offline").exit_code == 0
    assert project.cli("follow-up", "swarm-power", "And the second unit?", "-q").exit_code == 0
    (project.root / "mkdocs.yml").write_text(MKDOCS + "strict: true\n")
    site = build(project.root)  # strict: a warning would fail the build
    assert (site / "questions" / "swarm-power" / "index.html").is_file()
    assert not list(site.rglob("audit"))


def test_a_title_with_direction_overrides_is_never_published_raw(project):
    from sitekit import MKDOCS, build

    hidden = "Which unit first? \u202egnp.exe\u202c and \u2066more\u2069\u200b"
    project.question.write_text(project.question.read_text().replace("title: ", f"title: '{hidden}'\nx-old: ", 1))
    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1", "-q", "--yes").exit_code in (0, 2)
    (project.root / "mkdocs.yml").write_text(MKDOCS)
    site = build(project.root)
    published = [p for p in site.rglob("*") if p.suffix in (".html", ".json", ".xml")]
    assert published and any("[U+202E]" in p.read_text() for p in published)
    for page in published:
        text = page.read_text()
        assert not any(ch in text for ch in "\u202e\u202c\u2066\u2069\u200b"), page


@pytest.mark.parametrize("names", [("H3twin.md", "h3twin.md"), ("caf\u00e9.md", "cafe\u0301.md")])
def test_question_files_one_file_on_other_systems_are_named_by_check_and_not_run(project, names):
    for name in names:
        (project.content / "questions" / name).write_text(project.question.read_text().replace(
            "slug: swarm-power", f"slug: {'h3twin' if 'twin' in name else 'cafe'}-{len(name)}"))
    result = project.cli("check")
    assert result.exit_code == 1 and result.output.count("differs from") == 2, result.output
    ran = project.cli("run", str(project.content / "questions" / names[0]), "--panel", "offline", "--rounds", "1")
    assert ran.exit_code == 2 and "only by case or Unicode form" in ran.stderr
