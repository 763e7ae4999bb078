"""Links a pull request carries: git keeps them, and one may lead out of the project to a file of the
machine's (a key in /proc/self/environ, say). Whatever file of the project it replaces, discuss reads
nothing through it: no prompt, output, page or error carries the file's text, and the command says which
link it refused. A link that stays inside the project is followed."""

from __future__ import annotations

import json

import pytest

from conftest import fake_panel

MARK = "LEAKED-7f3a"


@pytest.fixture
def machine(project):
    """A folder beside the project, standing for the rest of the machine."""
    folder = project.root.parent / "machine"
    folder.mkdir()
    return folder


def sent(fake) -> str:
    return json.dumps(fake.requests)


def said(result) -> str:
    return result.output + (result.stderr or "")


def test_a_prompt_template_that_links_out_is_refused_before_any_request(project, fake, machine):
    project.write_panels(fake_panel(fake.url))
    (machine / "respond.j2").write_text(f"Answer this: {MARK}\n")
    prompts = project.root / "discussions" / "prompts"
    prompts.mkdir()
    (prompts / "respond.j2").symlink_to(machine / "respond.j2")
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code != 0 and "a link out of the project" in said(result)
    assert MARK not in sent(fake) and MARK not in said(result).replace(str(machine), "")
    (prompts / "respond.j2").unlink()
    (project.root / "discussions" / "inside.j2").write_text("Answer this, from inside: {{ question }}\n")
    (prompts / "respond.j2").symlink_to(project.root / "discussions" / "inside.j2")  # a link inside: followed
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    assert "from inside" in sent(fake)


def test_a_recorded_reply_that_links_out_is_never_shown_or_exported(project, fake, machine):
    project.write_panels(fake_panel(fake.url))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    reply = next((project.folder / "round-1").glob("alpha*.md"))
    (machine / "reply.md").write_text(reply.read_text().replace("\n\n", f"\n\n{MARK}\n\n", 1))
    reply.unlink()
    reply.symlink_to(machine / "reply.md")
    before = len(fake.requests)
    for args in (["show", "swarm-power"], ["status"], ["run", "swarm-power", "--rounds", "1"],
                 ["export", "swarm-power"]):
        result = project.cli(*args)
        assert MARK not in said(result).replace(str(machine), ""), args
    assert MARK not in json.dumps(fake.requests[before:])
    assert "a link out of the project" in said(project.cli("show", "swarm-power"))


def test_a_question_file_or_index_that_links_out_is_left_out_of_status_and_refused_by_run(project, fake, machine):
    project.write_panels(fake_panel(fake.url))
    (machine / "evil.md").write_text(f"---\ntitle: Evil?\nslug: evil\n---\n\n{MARK}\n")
    (project.content / "questions" / "evil.md").symlink_to(machine / "evil.md")
    (machine / "discussion.yaml").write_text(f"status: concluded\ncompletedRounds: 1\nleader: {MARK.lower()}\n"
                                             "usage:\n  calls: 1\npanel:\n  name: x\n")
    project.folder.mkdir()
    (project.folder / "discussion.yaml").symlink_to(machine / "discussion.yaml")
    status = project.cli("status")
    assert MARK.lower() not in said(status).lower().replace(str(machine).lower(), "")
    assert status.stderr.count("a link out of the project") == 2
    run = project.cli("run", "evil", "--panel", "fake", "--rounds", "1")
    assert run.exit_code != 0 and "a link out of the project" in said(run)
    assert MARK not in sent(fake)


def test_a_linked_discussion_folder_is_followed_inside_and_refused_outside(project, machine):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    kept = project.root / "elsewhere-in-the-project"
    project.folder.rename(kept)
    project.folder.symlink_to(kept)
    first = project.cli("status", "--json")
    assert json.loads(first.stdout)[0]["status"] == "concluded" and first.stderr == ""
    # A follow-up part added in the linked folder changes none of the link's times: its row is read again.
    (kept / "part-2.md").write_text("---\ntitle: And in eclipse?\nslug: swarm-power-part-2\n---\n")
    assert [r["slug"] for r in json.loads(project.cli("status", "--json").stdout)] == [
        "swarm-power", "swarm-power-part-2"]
    project.folder.unlink()
    kept.rename(machine / "swarm-power")
    project.folder.symlink_to(machine / "swarm-power")
    result = project.cli("status", "--json")
    assert json.loads(result.stdout) == [] and "a link out of the project" in result.stderr


def test_a_form_that_links_out_is_not_read(project, machine):
    from discuss.errors import InputError
    from discuss.providers.human import form_text

    (machine / "form.md").write_text(MARK)
    form = project.root / "form.md"
    form.symlink_to(machine / "form.md")
    with pytest.raises(InputError, match="a link out of the project"):
        form_text(form)


def test_the_replies_checks_read_no_template_through_a_link_out(project, machine):
    from discuss.text import placeholders

    (machine / "respond.j2").write_text('{"reason": "an example from ' + MARK + ' here"}\n')
    prompts = project.root / "discussions" / "prompts"
    prompts.mkdir()
    (prompts / "respond.j2").symlink_to(machine / "respond.j2")
    (prompts / "vote.j2").write_text('{"reason": "an example of the project here"}\n')
    long, _, anywhere = placeholders.patterns(prompts)
    assert "project" in anywhere.pattern and "leaked" not in anywhere.pattern.lower()


def test_a_panel_file_that_links_out_is_refused(project, machine):
    settings = project.root / "discussions" / "panels.yaml"
    (machine / "panels.yaml").write_text(settings.read_text().replace("offline", "offline-" + MARK.lower()))
    settings.unlink()
    settings.symlink_to(machine / "panels.yaml")
    for args in (["panels"], ["run", "swarm-power", "--panel", "offline", "--rounds", "1"]):
        result = project.cli(*args)
        assert result.exit_code != 0 and "a link out of the project" in said(result), args
        assert MARK.lower() not in said(result).lower().replace(str(machine).lower(), ""), args
    status = project.cli("status")  # which needs nothing of the panel file but where the questions are
    assert "swarm-power" in status.stdout and MARK.lower() not in said(status).lower()


def test_a_keys_file_that_links_out_is_not_read(project, machine, monkeypatch):
    from discuss.text import secrets

    monkeypatch.setattr(secrets, "_project", [])
    (machine / "keys").write_text("OPENAI_API_KEY=sk-machine-0123456789abcdef\n")
    (project.root / ".env").symlink_to(machine / "keys")
    (project.root / "discussions" / ".env").symlink_to("/dev/zero")
    (project.root / ".env.local").write_text("OPENAI_API_KEY=sk-project-0123456789abcdef\n")
    secrets.remember_project(project.root)
    assert secrets._project == ["sk-project-0123456789abcdef"]


@pytest.mark.parametrize("folder,args", [("round-2", ["run", "swarm-power", "--rounds", "1"]),
                                         ("audit", ["audit", "swarm-power", "--orders", "1"])])
def test_a_folder_of_a_discussion_that_links_out_is_never_written_through(project, machine, folder, args):
    assert project.cli("run", "swarm-power", "--panel", "offline", "--rounds", "1", "-q").exit_code == 0
    (project.folder / folder).symlink_to(machine)
    result = project.cli(*args)
    assert result.exit_code != 0 and "out" in said(result) and folder in said(result), said(result)
    assert list(machine.iterdir()) == []
    assert folder != "audit" or "the panel was not asked" in said(result)  # a round's folder: before the run


def test_the_kernels_name_of_a_file_is_the_resolved_path(tmp_path):
    import os

    from discuss.text.naming import _resolved

    (tmp_path / "real" / "inner").mkdir(parents=True)
    (tmp_path / "real" / "inner" / "file.md").write_text("x")
    (tmp_path / "folder-link").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "file-link.md").symlink_to(tmp_path / "real" / "inner" / "file.md")
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    paths = [tmp_path / "real" / "inner" / "file.md", tmp_path / "folder-link" / "inner" / "file.md",
             tmp_path / "folder-link" / "file-link.md", tmp_path / "folder-link" / "inner",
             tmp_path / "dangling.md", tmp_path / "folder-link" / "not-yet" / "file.md"]
    assert [_resolved(str(p)) for p in paths] == [os.path.realpath(p) for p in paths]


def test_where_the_questions_are_is_never_read_from_a_panel_file_that_links_out(project, machine):
    settings = project.root / "discussions" / "panels.yaml"
    (machine / "panels.yaml").write_text("content: elsewhere\n" + settings.read_text())
    settings.unlink()
    settings.symlink_to(machine / "panels.yaml")
    (project.root / "elsewhere").mkdir()
    (project.root / "elsewhere" / "decoy.md").write_text("---\ntitle: Decoy?\n---\n")
    status = project.cli("status")
    assert "swarm-power" in status.stdout and "decoy" not in status.stdout


def swapped_on_open(monkeypatch, target: str, swap) -> None:
    """`swap()` runs once the first open of `target` is done: the file (or folder) is replaced by a link out of
    the project between the first look at it and whatever comes after, as a second process could."""
    import os

    real_open, done = os.open, []

    def opening(path, *args, **kwargs):
        fd = real_open(path, *args, **kwargs)
        if os.fspath(path) == target and not done:
            done.append(swap())
        return fd

    monkeypatch.setattr(os, "open", opening)


def test_a_file_swapped_for_a_link_out_after_a_look_is_never_read(project, machine, monkeypatch):
    from discuss.store.documents import read_text

    (machine / "secret.md").write_text(f"---\ntitle: {MARK}\n---\n")
    path = project.question
    before = path.read_text()

    def swap():
        path.rename(path.with_name("moved.md"))  # still there, inside: the descriptor names it
        path.symlink_to(machine / "secret.md")

    swapped_on_open(monkeypatch, str(path), swap)
    assert read_text(path) == before  # what was opened is what is read: never the file the link leads to


def test_a_folder_swapped_for_a_link_out_before_a_write_is_never_written_through(project, machine, monkeypatch):
    from discuss.store.files import write_atomic

    folder = project.root / "content" / "notes"
    folder.mkdir()

    def swap():
        folder.rmdir()
        folder.symlink_to(machine, target_is_directory=True)

    swapped_on_open(monkeypatch, str(folder), swap)
    with pytest.raises(PermissionError, match="a link out of the project"):
        write_atomic(folder / "note.md", f"{MARK}\n")
    assert list(machine.iterdir()) == []
