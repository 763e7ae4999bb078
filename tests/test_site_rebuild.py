"""A rebuild in the same process (as `mkdocs serve` makes after an edit) reuses what it made of unchanged
pages: the search's entries, the archive's data. Everything it publishes is what a new process makes of
the same files, byte for byte, and only what changed is made again."""

from __future__ import annotations

import shutil

import pytest

from discuss.site import plugin
from sitekit import MKDOCS, build, sample_site
from test_site_cache import settled

PUBLISHED = ("search/search_index.json", "discussions.json", "data/discussions.csv", "data/rounds.csv",
             "data/votes.csv", "data/divergent_views.yaml")


def fresh(root):
    """A build as a new process makes it."""
    plugin.forget()
    return build(root)


def published(site):
    return {name: (site / name).read_text() for name in PUBLISHED}


@pytest.fixture
def project(tmp_path):
    root = sample_site(tmp_path / "project")
    (root / "mkdocs.yml").write_text(MKDOCS.replace("plugins:\n", "plugins:\n  - search\n"))
    (root / "content" / "notes.md").write_text("---\ntitle: Notes\n---\n\nPlain notes, no heading.\n")
    fresh(settled(root))
    return root


@pytest.fixture
def parsed(monkeypatch):
    """The pages the theme's search parses, as it parses them."""
    from material.plugins.search.plugin import SearchIndex

    seen, real = [], SearchIndex.add_entry_from_context
    monkeypatch.setattr(SearchIndex, "add_entry_from_context",
                        lambda self, page: seen.append(page.file.src_uri) or real(self, page))
    return seen


def clean(root, tmp_path):
    copy = tmp_path / "clean"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("site"))
    return published(fresh(settled(copy)))


def test_a_rebuild_after_edits_publishes_what_a_new_process_does(project, parsed, tmp_path):
    build(project)
    assert parsed == []  # nothing changed: every page's entries reused
    reply = next((project / "content" / "questions" / "first").rglob("round-1/*.md"))
    reply.write_text(reply.read_text() + "\nAn edit made while serving.\n")
    notes = project / "content" / "notes.md"  # the same text under a new title: only its metadata changed
    notes.write_text(notes.read_text().replace("title: Notes", "title: Renamed notes"))
    site = build(settled(project))
    # The edited pages, and the archive's pages that show the edited discussion (home, index, figures); no other.
    assert {"notes.md", "questions/first.md"} <= set(parsed)
    assert not {"questions/second.md", "questions/third.md"} & set(parsed)
    now = published(site)
    assert "An edit made while serving." in now["search/search_index.json"]
    assert '"title":"Renamed notes"' in now["search/search_index.json"]
    assert "An edit made while serving." in now["discussions.json"]
    assert now == clean(project, tmp_path)


def test_a_changed_search_setting_parses_every_page_again(project, parsed, tmp_path):
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - search\n", "  - search:\n      separator: '[\\s.]+'\n"))
    site = build(project)
    assert {"index.md", "notes.md", "questions/first.md"} <= set(parsed)
    assert published(site) == clean(project, tmp_path)


def test_with_the_cache_off_every_page_is_parsed(project, parsed):
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - discuss\n", "  - discuss:\n      cache: false\n"))
    build(project)
    assert {"index.md", "notes.md", "questions/first.md"} <= set(parsed)
