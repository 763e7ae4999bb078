"""Rendered pages kept between builds: a build renders only the pages whose inputs changed, and every page
is, byte for byte, what a clean build makes of the same files."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from discuss.site import cache, collect, plugin
from sitekit import build, sample_site


def settled(root):
    """Every file of the project written a while ago, as files are when a build starts in real use."""
    past = time.time_ns() - 10_000_000_000
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(past, past))
    return root


def built(root):
    """A build as a new process makes it: nothing read or rendered by an earlier build in this one."""
    plugin.forget()
    return build(root)


def question_pages(site):
    return {p.relative_to(site).as_posix(): p.read_text() for p in sorted((site / "questions").rglob("index.html"))}


def clean_build(root, tmp_path):
    """The same files built in another folder, so with nothing kept from before."""
    copy = tmp_path / f"clean-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("site"))
    return question_pages(built(settled(copy)))


@pytest.fixture
def renders(monkeypatch):
    """The pages rendered, by question page, as the build asks for them."""
    made, real = [], plugin.rendered
    monkeypatch.setattr(plugin, "rendered", lambda entry: made.append(entry.src_uri) or real(entry))
    return made


@pytest.fixture
def project(tmp_path):
    root = settled(sample_site(tmp_path / "project"))
    built(root)
    return root


def test_a_second_build_renders_nothing_and_makes_the_same_pages(project, renders):
    first = question_pages(project / "site")
    assert question_pages(built(project)) == first
    assert renders == []


def test_each_change_renders_its_own_page_again_as_a_clean_build_makes_it(project, renders, tmp_path):
    reply = next((project / "content" / "questions" / "first").rglob("round-1/*.md"))
    reply.write_text(reply.read_text() + "\nAn edit made after the first build.\n")
    pages = question_pages(built(settled(project)))
    assert renders == ["questions/first.md"]
    assert "An edit made after the first build." in pages["questions/first/index.html"]
    assert pages == clean_build(project, tmp_path)

    renders.clear()
    question = project / "content" / "questions" / "second.md"
    question.write_text(question.read_text() + "\nMore background, written later.\n")
    pages = question_pages(built(settled(project)))
    assert renders == ["questions/second.md"] and pages == clean_build(project, tmp_path)


def test_a_changed_setting_or_code_renders_every_page_again(project, renders, monkeypatch):
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - discuss\n", "  - discuss:\n      leaderboard: false\n"))
    built(project)
    assert len(renders) == 3
    renders.clear()
    monkeypatch.setattr(cache, "code_digest", lambda protocols: "another version of the templates")
    built(project)
    assert len(renders) == 3


def with_source(root, text):
    """The first question's discussion quoting a source it records, which lies outside its folder."""
    from discuss.store import discussions as store
    from sitekit import first_discussion, question

    d = first_discussion()
    d.sources = [{"label": "S1", "path": "notes.md", "sha256": "0" * 64}]
    reply = next(iter(d.rounds[0].replies.values()))
    reply.text += '\n\nThe notes say "flywheels store the surplus" [S1].'
    store.save(d, question(root, d.question_slug, d.question_title).with_suffix(""))
    notes = root / "content" / "questions" / "notes.md"
    notes.write_text(text)
    return notes


def test_a_source_edited_after_a_build_changes_its_page(tmp_path, renders):
    """The page checks quotes against the sources its discussion records."""
    root = sample_site(tmp_path / "project")
    notes = with_source(root, "Batteries carry the load between eclipses.")
    first = question_pages(built(settled(root)))["questions/first/index.html"]
    assert "0 found, 1 not found" in first
    notes.write_text("Flywheels store the surplus between eclipses.")
    renders.clear()
    again = question_pages(built(settled(root)))["questions/first/index.html"]
    assert renders == ["questions/first.md"] and "1 found, 0 not found" in again


def test_what_is_kept_is_outside_the_project_and_only_what_the_last_build_asked_for(project):
    folder = cache.default_folder(project / "content")
    assert not folder.is_relative_to(project) and len(list(folder.glob("*.json"))) == 3
    reply = next((project / "content" / "questions" / "first").rglob("round-1/*.md"))
    for n in range(3):
        reply.write_text(reply.read_text() + f"\nEdit {n}.\n")
        built(settled(project))
    assert len(list(folder.glob("*.json"))) == 3


def test_a_rebuild_in_the_same_process_keeps_every_page_it_did_not_render_again(project, renders):
    """As `mkdocs serve` rebuilds after an edit: the pages it had in memory are still kept for the next build."""
    reply = next((project / "content" / "questions" / "first").rglob("round-1/*.md"))
    reply.write_text(reply.read_text() + "\nAn edit while serving.\n")
    settled(reply.parent)
    build(project)  # the same process, the other pages' files untouched: they are taken from memory
    assert renders == ["questions/first.md"]
    renders.clear()
    built(project)  # a new process: every page kept, the edited one too
    assert renders == []


def test_a_kept_file_that_is_not_as_written_is_rendered_again(project, renders):
    first = question_pages(project / "site")
    folder = cache.default_folder(project / "content")
    spoilt = sorted(folder.glob("*.json"))
    spoilt[0].write_text("{not json")
    spoilt[1].write_text('{"key": "another", "parts": [["a", "b", "c", "d"]]}')
    spoilt[2].write_text(spoilt[2].read_text().replace('"parts": [[', '"parts": [[1, ', 1))
    assert question_pages(built(project)) == first
    assert len(renders) == 3


def test_a_page_whose_files_change_after_they_were_read_is_not_kept(project, monkeypatch, tmp_path):
    reply = next((project / "content" / "questions" / "first").rglob("round-1/*.md"))
    real = plugin.collect

    def racing(*args):
        found = real(*args)
        if "Written meanwhile" not in reply.read_text():  # a run writes while the site builds
            reply.write_text(reply.read_text() + "\nWritten meanwhile.\n")
        return found

    monkeypatch.setattr(plugin, "collect", racing)
    reply.write_text(reply.read_text() + "\nFirst edit.\n")
    built(settled(project))
    monkeypatch.setattr(plugin, "collect", real)
    built(settled(project))  # the page shows what its files say now, not what was rendered before the write
    assert question_pages(project / "site") == clean_build(project, tmp_path)


def test_a_page_whose_source_changes_while_it_is_rendered_is_not_kept(tmp_path, monkeypatch):
    root = sample_site(tmp_path / "project")
    notes = with_source(root, "Batteries carry the load between eclipses.")
    real = plugin.rendered

    def racing(entry):
        if "Flywheels" not in notes.read_text():  # edited while the page is made, before its quotes are checked
            notes.write_text("Flywheels store the surplus between eclipses.")
        return real(entry)

    monkeypatch.setattr(plugin, "rendered", racing)
    built(settled(root))
    monkeypatch.setattr(plugin, "rendered", real)
    notes.write_text("Batteries carry the load between eclipses.")  # back as it was when the page's key was taken
    assert "0 found, 1 not found" in question_pages(built(settled(root)))["questions/first/index.html"]


def test_with_the_cache_off_nothing_is_kept(tmp_path):
    root = settled(sample_site(tmp_path / "project"))
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - discuss\n", "  - discuss:\n      cache: false\n"))
    before = set(cache.default_folder(tmp_path).parent.iterdir())  # every site's folder in this user's cache
    built(root)
    assert set(cache.default_folder(tmp_path).parent.iterdir()) == before


def test_a_file_written_within_a_tick_of_the_clock_is_not_taken_as_steady(tmp_path):
    """A page is kept only for files whose time would show a later write: older than a tick of the clock
    (50 ms, a second where the file system keeps whole seconds)."""
    reply = tmp_path / "reply.md"
    reply.write_text("text")
    now = time.time_ns()
    second = now // 1_000_000_000 * 1_000_000_000
    for mtime, steady in ((now - 10_000_000, False), (now - 200_000_001, True), (second, False),
                          (second - 3_000_000_000, True)):
        os.utime(reply, ns=(mtime, mtime))
        assert collect.steady(collect._stats([reply])) is steady, mtime
    signature = collect._stats([reply])
    reply.write_text("another text")
    os.utime(reply, ns=(mtime, mtime))
    assert not collect.steady(signature)  # its size changed since the signature was taken


def test_the_code_a_page_is_rendered_with_includes_a_protocol_package_outside_discuss(tmp_path, monkeypatch):
    from importlib import import_module

    from discuss import protocols

    package = tmp_path / "plugins" / "echoing"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from discuss.protocols.council import Council\n\n\n"
                                         "class Echoing(Council):\n    pass\n")
    partial = package / "site.html.j2"
    partial.write_text("{% macro summary(view) %}{% endmacro %}{% macro round(r, view) %}{% endmacro %}\n")
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    protocols.register("echoing", lambda: import_module("echoing").Echoing())
    try:
        before, council = cache.code_digest({"echoing"}), cache.code_digest({"council"})
        partial.write_text(partial.read_text() + "{# its partial edited #}\n")
        assert cache.code_digest({"echoing"}) != before
        assert cache.code_digest({"council"}) == council  # a built-in protocol's pages: the same code
    finally:
        protocols.unregister("echoing")
