"""`discuss status` answered before the CLI framework loads: one function for both ways, the same output."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discuss.cli import quick
from discuss.store import statuses, yamlio
from discuss.store.summary import from_head

DYSON = Path(__file__).parent / "data" / "dyson"


def both(project, capsys, *args: str) -> tuple[str, str]:
    """What the quick path prints, and what the full CLI prints, for the same arguments."""
    assert quick.status(["--root", str(project.root), *args]) == 0
    fast = capsys.readouterr().out
    full = project.cli(*args)
    assert full.exit_code == 0, full.output
    return fast, full.stdout


@pytest.fixture
def archive(project):
    """A concluded vote, a critique under way, a Dyson thread, a question never discussed."""
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    (project.content / "questions" / "crit.md").write_text("---\ntitle: Crit?\ntags: [a, b]\n---\n\nBody.\n")
    assert project.cli("run", "crit", "--panel", "offline", "--protocol", "critique", "-q").exit_code == 0
    (project.content / "questions" / "later.md").write_text("---\ntitle: Later?\nslug: later-on\n---\n\nBody.\n")
    shutil.copytree(DYSON, project.content / "research-questions")
    return project


def test_status_prints_what_the_cli_prints(archive, capsys):
    fast, full = both(archive, capsys, "status")
    assert fast == full and "later-on" in fast and "not started" in fast and "(Dyson)" in fast
    fast, full = both(archive, capsys, "status", "--json")
    assert json.loads(fast) == json.loads(full) and fast == full


@pytest.mark.parametrize("args", [["status", "swarm-power"], ["status", "--help"], ["show", "swarm-power"],
                                  ["--root", "/no/such/folder", "status"], ["status", "--jsn"]])
def test_anything_else_is_left_to_the_cli(archive, args):
    argv = args if args[0] == "--root" else ["--root", str(archive.root), *args]
    assert quick.status(argv) is None


def test_a_file_it_cannot_read_quickly_is_read_fully_and_a_broken_one_is_a_warning(archive, capsys):
    """Per file, not all or nothing: a plain file read quickly, another by the full reader; the output and the
    warnings are the CLI's, since it is the same function."""
    broken = archive.content / "questions" / "broken.md"
    broken.write_text("---\ntitle: [unclosed\n---\n")
    fast, full = both(archive, capsys, "status")
    assert fast == full and "later-on" in fast and "broken" not in fast
    broken.write_text("---\ntitle: Fine?\nslug: 'on'\n---\n")  # quoted: read by the full reader, kept as text
    fast, full = both(archive, capsys, "status")
    assert fast == full and "\non " in fast
    broken.unlink()
    (archive.folder / "discussion.yaml").write_bytes(b"\xff\xfe not text")
    assert quick.status(["--root", str(archive.root), "status"]) == 0
    out = capsys.readouterr()
    assert "\nswarm-power " not in out.out and "left out" in out.err and "later-on" in out.out


HEADS = [
    "status: active\ncompletedRounds: 2\nleader: ann\nterminationReason: null\nusage:\n  calls: 3\n"
    "  promptTokens: 10\n  completionTokens: 5\n  totalTokens: 15\n  cost: 1.5e-05\n",
    "questionTitle: |-\n  Two lines\n  calls: 99\nstatus: closed\ncompletedRounds: 0\nterminationReason: "
    "gate-failed\nusage:\n  calls: 0\n  cost: null\n",
    "status: concluded\ncompletedRounds: 1\nleader: 'true'\nusage:\n  calls: 1\n",  # an id YAML reads as a word
    "status: active\ncompletedRounds: 1\nleader: true\nusage:\n  calls: 1\n",  # not an id: the full reader decides
    "status: active # hand-edited\ncompletedRounds: 1\n",
    "completedRounds: 1\nleader: ann\n",  # no status: an older layout
]


@pytest.mark.parametrize("head", HEADS)
def test_the_head_reader_never_disagrees_with_the_yaml_reader(head):
    text = head + "panel:\n  name: p\n"
    fast = from_head(text)
    if fast is None:
        assert "'true'" not in head and "gate-failed" not in head and "ann\nterminationReason: null" not in head
        return  # the store reads the whole file: our own writer's heads never get here (above)
    data = yamlio.load(text)
    assert (fast.status, fast.rounds, fast.leader, fast.termination_reason) == (
        data["status"], data["completedRounds"], data.get("leader"), data.get("terminationReason"))
    usage = data.get("usage") or {}
    assert (fast.usage.calls, fast.usage.prompt_tokens, fast.usage.cost) == (
        usage.get("calls", 0), usage.get("promptTokens", 0), usage.get("cost"))


def test_status_imports_nothing_it_does_not_use(archive):
    # The first status checks each record it reads (the protocols' recomputations load their code); the next
    # reads only what changed, and what it reads it reads lightly.
    assert archive.cli("status").exit_code == 0
    code = ("import os, sys\nfrom discuss.cli.entry import main\n"
            "def leaving(code):\n    raise SystemExit(code)\nos._exit = leaving\n"
            f"sys.argv = ['discuss', '--root', {str(archive.root)!r}, 'status']\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n"
            "heavy = {'typer', 'click', 'pydantic', 'ruamel', 'litellm', 'frontmatter', 'jinja2', 'mkdocs'}\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "swarm-power" in done.stdout and done.stdout.rstrip().endswith("[]"), done.stdout[-500:]


PIECES = ["word", "yes please", "No", "on", "null", "True", "~", "1", "0x1", "2026-11-24", ".inf", "é", "日本",
          "x_y-z", "A.B", ": ", ":", " #", "#", "[", "]", ", ", ",", "{", "}", "'", '"', " ", "  ", "\t", "\r",
          "\x0c", "\x85", "\u2028", "\ufeff", "\ufffe", "-", "?", "!", "&a", "*a", "%", "@", "`", "|", ">",
          "1.0e-05", "'q''s'"]
KEYS = ["title", "slug", "tags", "on", "No", "y", "2", "a b", "_x", "É"]
LINE = st.tuples(st.sampled_from(KEYS), st.sampled_from([": ", ":", " : ", ":  "]),
                 st.lists(st.sampled_from(PIECES), max_size=5)).map(lambda t: t[0] + t[1] + "".join(t[2]))


def readings(block: str) -> list:
    """The block as each parser reads it (libyaml's YAML 1.1, our YAML 1.2 node builder, ruamel), or an error."""
    import yaml

    out = []
    for read in (lambda: yaml.load(block, Loader=yaml.CSafeLoader), lambda: yamlio._native_document(block),
                 lambda: yamlio.plain(yamlio._reader().load(block))):
        try:
            out.append(read())
        except Exception:
            out.append("an error")
    return out


@settings(max_examples=600)
@given(st.lists(LINE, max_size=4).map("\n".join))
def test_the_line_reader_never_disagrees_with_a_parser(block):
    fast = yamlio._plain(block)
    if fast is None:
        return  # a parser reads it
    assert readings(block) == [fast] * 3


def test_every_short_line_is_read_as_the_parsers_read_it():
    """Each value of up to two tricky pieces between words, and each key and separator, tried exhaustively."""
    import itertools

    def agree(block: str) -> bool:
        fast = yamlio._plain(block)
        return fast is None or readings(block) == [fast] * 3

    values = ("".join(parts) for parts in itertools.product(["", "word", "é"], PIECES, PIECES, ["", "b"]))
    assert [v for v in values if not agree("title: " + v)] == []
    for key, sep, tail in itertools.product(KEYS, [": ", ":", " : ", ":  "], ["word", "[a, b]", "[]", "[a,]"]):
        assert agree(key + sep + tail), key + sep + tail


@pytest.mark.parametrize("block", ["title: Where should power go first?\nslug: swarm-power\ntags: [power, orbit]\n",
                                   "title: It's Ann's [draft] & more\nquestionType: research\ntags: []\n",
                                   "title: 日本語の質問\nslug: q-1\n",
                                   "modelId: ann\nroundNumber: 2\ngenerated: '2026-01-01T00:00:00Z'\nusage:\n"
                                   "  calls: 1\n  cost: 1.5e-05\nnote: 'it''s: quoted'\nwaitingFor:\n- ann\n- bob\n"])
def test_the_front_matter_people_and_our_writer_write_is_read_line_by_line(block):
    fast = yamlio._plain(block)
    assert fast is not None and readings(block) == [fast] * 3


@given(st.text(alphabet="ab\r\n\u2028é", max_size=40))
def test_files_are_read_as_path_read_text_reads_them(text):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "q.md")
        path.write_bytes(text.encode("utf-8"))
        assert statuses.read_text(path) == path.read_text(encoding="utf-8")


def test_status_keeps_the_rows_of_one_status_and_refuses_another_word(archive):
    every = json.loads(archive.cli("status", "--json").stdout)
    for wanted in ("concluded", "active", "not started"):
        shown = archive.cli("status", "--json", "--status", wanted)
        assert shown.exit_code == 0, shown.output
        assert json.loads(shown.stdout) == [r for r in every if r["status"] == wanted] != []
    wrong = archive.cli("status", "--status", "done")
    assert wrong.exit_code == 2 and "give one of not started, active, concluded, closed" in wrong.output
