"""A damaged or hostile tree: YAML bombs, deep nesting, duplicate keys, lost indexes, CRLF and BOM.

Every file a person or a pull request can change is refused with exit 2
naming it, before any call and without a hang, a crash or a traceback.
"""

import subprocess
import sys

import pytest

from conftest import fake_panel

BOMB = "a: &a ['lol','lol','lol','lol','lol','lol','lol','lol','lol']\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
    f"*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n" for i in range(8))
DEEP = "x: " + "[" * 50_000 + "]" * 50_000 + "\n"
MAPS = "".join(" " * i + f"k{i}:\n" for i in range(3000)) + " " * 3000 + "v: 1\n"


def started(project) -> None:
    result = project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1")
    assert result.exit_code == 0, result.output


def cli_in_a_process(project, *args):
    """A crash of the interpreter (a segfault) would kill the test runner: run the CLI on its own."""
    return subprocess.run([sys.executable, "-m", "discuss", "--root", str(project.root), *args],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("shape", [BOMB, DEEP, MAPS, "panels:\n  offline: {members: [offline/a]}\n"
                                                         "panels:\n  other: {members: [offline/b]}\n"],
                         ids=["bomb", "deep", "maps", "twice"])  # a test's id is in the environment of its children
def test_a_hostile_panel_file_is_refused_by_name(project, shape):
    (project.root / "discussions" / "panels.yaml").write_text(shape)
    result = cli_in_a_process(project, "run", "swarm-power", "--panel", "offline")
    assert result.returncode == 2, result.stderr
    assert "panels.yaml" in result.stderr and "Traceback" not in result.stderr
    assert not project.folder.exists()


@pytest.mark.parametrize("name,shape", [("bomb", BOMB), ("deep", DEEP), ("maps", MAPS)], ids=["bomb", "deep", "maps"])
def test_hostile_discussion_files_stop_status_show_and_run_with_exit_2(project, name, shape):
    started(project)
    index = project.folder / "discussion.yaml"
    index.write_text(index.read_text() + "extra: " + shape.replace("\n", "\n  ") if name != "deep"
                     else index.read_text() + shape)
    before = project.snapshot()
    for args in (["show", "swarm-power"], ["run", "swarm-power", "--panel", "offline"]):
        result = cli_in_a_process(project, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert "discussion.yaml" in result.stderr and "Traceback" not in result.stderr
    status = cli_in_a_process(project, "status")
    assert "Traceback" not in status.stderr and status.returncode in (0, 2)
    assert project.snapshot() == before


def test_hostile_votes_and_question_front_matter_are_refused(project):
    started(project)
    votes = project.folder / "round-1" / "votes.yaml"
    votes.write_text(BOMB + votes.read_text())
    result = project.cli("show", "swarm-power")
    assert result.exit_code == 2 and "votes.yaml" in result.output and "alias" in result.output
    votes.write_text("votes: []\nvotes: []\n")
    assert "duplicate key" in project.cli("show", "swarm-power").output
    project.question.write_text(project.question.read_text().replace("tags: [power]", "tags: &t [power]\nx: *t"))
    result = project.cli("run", "swarm-power", "--panel", "offline")
    assert result.exit_code == 2 and "swarm-power.md" in result.output and "alias" in result.output


def test_a_lost_index_with_rounds_left_is_not_bought_again(project, fake):
    project.write_panels(fake_panel(fake.url))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 0, result.output
    calls = len(fake.requests)
    (project.folder / "discussion.yaml").unlink()
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 2
    assert "round-1/" in result.output and "no discussion.yaml" in result.output and "git checkout" in result.output
    assert len(fake.requests) == calls and project.snapshot() == before


def test_an_index_that_is_a_folder_is_refused(project):
    project.folder.mkdir()
    (project.folder / "discussion.yaml").mkdir()
    for args in (["run", "swarm-power", "--panel", "offline"], ["show", "swarm-power"]):
        result = project.cli(*args)
        assert result.exit_code == 2 and "discussion.yaml: is not a regular file" in result.output


def test_crlf_and_bom_files_read_as_written(project):
    """git's autocrlf and Windows editors change line ends and add a BOM; the discussion reads the same."""
    started(project)
    shown = project.cli("show", "swarm-power", "--json").stdout
    for path in [project.question, *project.folder.rglob("*")]:
        if path.is_file():
            path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    again = project.cli("show", "swarm-power", "--json")
    assert again.exit_code == 0, again.output
    assert again.stdout == shown
    result = project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: *x\n", "- &x 1\n- *x\n", "[&x 1, *x]\n", '{"a":&x ["y"], "b":[*x,*x]}\n', "? &x k\n: *x\n",
    "--- *x\n", "a: &x [1]\u2028b: *x\n", "a:\n  - &x 1\n  -   *x\n", "{a: &x 1, b:    *x}\n"])
def test_an_alias_wherever_a_node_may_begin_is_refused(text):
    from discuss.store import yamlio

    for written in (False, True):
        with pytest.raises(ValueError, match="alias|anchor|nested"):
            yamlio.load(text, written)


@pytest.mark.parametrize("text", ["k: The *first* point [S1]\n", "k: |\n  *emph* at a line's start\n",
                                  "k: 'a & b'\n", "k: 5 * 3 & more\n"])
def test_stars_and_ampersands_in_text_are_only_text(text):
    from discuss.store import yamlio

    assert "*" in str(yamlio.load(text)) or "&" in str(yamlio.load(text))
