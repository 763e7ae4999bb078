"""A dirty build (`mkdocs serve --dirty`) rebuilds every page whose discussion changed, and only those: a
page whose own file is older than what it shows is never left stale, and a changed template or setting
rebuilds every page. Compared byte for byte with a clean build."""

from __future__ import annotations

import shutil

import pytest
from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config

from sitekit import sample_site


def built(root, dirty: bool = False):
    config = load_config(str(root / "mkdocs.yml"))
    config.plugins.on_startup(command="build", dirty=dirty)
    mkdocs_build(config, dirty=dirty)
    return root / "site"


def article(html: str) -> str:
    return html[html.index("<article"):html.index("</article>")]


def pages(site):
    return {p.relative_to(site).as_posix(): p for p in site.rglob("index.html") if "questions" in p.parts}


@pytest.fixture
def archive(tmp_path):
    root = sample_site(tmp_path / "project")
    built(root)
    return root


def test_an_edited_reply_rebuilds_its_page_alone_and_as_a_clean_build_would(archive, tmp_path):
    site = archive / "site"
    before = {uri: p.stat().st_mtime_ns for uri, p in pages(site).items()}
    reply = next((archive / "content" / "questions").rglob("round-1/*.md"))
    reply.write_text(reply.read_text() + "\nAn edit made after the first build.\n")
    built(archive, dirty=True)
    after = {uri: p.stat().st_mtime_ns for uri, p in pages(site).items()}
    changed = sorted(uri for uri in after if after[uri] != before[uri])
    slug = reply.parent.parent.name
    assert changed == [f"questions/{slug}/index.html"]
    clean = tmp_path / "clean"
    shutil.copytree(archive, clean, ignore=shutil.ignore_patterns("site"))
    fresh = built(clean)
    page = (site / "questions" / slug / "index.html").read_text()
    assert "An edit made after the first build." in page
    # What the page shows, as a clean build shows it (MkDocs' own dirty navigation aside: it names pages
    # it did not read, a known limit of --dirty).
    assert article(page) == article((fresh / "questions" / slug / "index.html").read_text())


def test_a_changed_setting_or_template_rebuilds_every_page(archive, monkeypatch):
    site = archive / "site"
    before = {uri: p.stat().st_mtime_ns for uri, p in pages(site).items()}
    config = archive / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - discuss\n", "  - discuss:\n      leaderboard: false\n"))
    built(archive, dirty=True)
    after = {uri: p.stat().st_mtime_ns for uri, p in pages(site).items()}
    assert all(after[uri] != before[uri] for uri in before)
    from discuss.site import cache

    monkeypatch.setattr(cache, "code_digest", lambda protocols: "another version")
    built(archive, dirty=True)
    again = {uri: p.stat().st_mtime_ns for uri, p in pages(site).items()}
    assert all(again[uri] != after[uri] for uri in after)
    built(archive, dirty=True)  # nothing changed since: nothing rebuilt
    assert {uri: p.stat().st_mtime_ns for uri, p in pages(site).items()} == again
