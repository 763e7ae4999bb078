"""`mkdocs serve` rebuilds: the theme's HTML of a page is reused while everything its template is given is
unchanged, and every page served is what a new process renders from the same files, byte for byte."""

from __future__ import annotations

import jinja2
import pytest
from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config

from discuss.site import plugin, themed
from sitekit import MKDOCS, sample_site
from test_site_cache import settled

PAGES = {"index.md", "notes.md", "questions/second.md", "questions/third.md"}
OTHERS = PAGES | {"404.html"}  # the theme's page for an address not found draws the navigation too


def serve(root, command="serve"):
    """A build as `mkdocs serve` makes each of its builds: this process keeps what it made."""
    config = load_config(str(root / "mkdocs.yml"))
    config.plugins.on_startup(command=command, dirty=False)
    mkdocs_build(config)
    return root / "site"


def pages(site):
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted([*site.rglob("*.html"), site / "sitemap.xml"])}


def fresh(root):
    """Every page as a new process renders it."""
    plugin.forget()
    return pages(serve(root, command="build"))


@pytest.fixture
def project(tmp_path):
    root = sample_site(tmp_path / "project")
    (root / "overrides").mkdir()
    (root / "mkdocs.yml").write_text(MKDOCS.replace("  font: false\n", "  font: false\n  custom_dir: overrides\n")
                                     .replace("plugins:\n", "plugins:\n  - search\n"))
    (root / "content" / "notes.md").write_text("---\ntitle: Notes\n---\n\nPlain notes, no heading.\n")
    plugin.forget()
    serve(settled(root))
    return root


@pytest.fixture
def drawn(monkeypatch):
    """The pages the theme's templates render (not reused), by source."""
    seen, real = [], jinja2.Template.render

    def render(self, *args, **kwargs):
        page = dict(*args, **kwargs).get("page")
        seen.append(page.file.src_uri if page is not None else self.name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(jinja2.Template, "render", render)
    return seen


def edited(root):
    reply = next((root / "content" / "questions" / "first").rglob("round-1/*.md"))
    reply.write_text(reply.read_text() + "\nAn edit made while serving.\n")
    return root


def test_a_rebuild_renders_only_the_pages_that_changed_and_serves_what_a_new_process_does(project, drawn):
    served = pages(serve(settled(edited(project))))
    assert "questions/first.md" in drawn
    assert not OTHERS & set(drawn)  # neither its navigation nor its text changed
    assert b"An edit made while serving." in served["questions/first/index.html"]
    assert served == fresh(project)


@pytest.mark.parametrize("change", ["title", "setting", "override", "override edited", "override removed",
                                    "status"])
def test_what_every_page_shows_renders_every_page_again(project, drawn, change):
    notes, config = project / "content" / "notes.md", project / "mkdocs.yml"
    footer = project / "overrides" / "partials" / "footer.html"
    if change == "override removed":  # a template in front of the theme's, served once, then gone
        footer.parent.mkdir()
        footer.write_text("<footer>Ours</footer>\n")
        serve(settled(project))
        footer.unlink()
    elif change == "override edited":  # the compiled template kept from the first is not used again
        footer.parent.mkdir()
        footer.write_text("<footer>Theirs</footer>\n")
        serve(settled(project))
        footer.write_text("<footer>Ours</footer>\n")
    elif change == "override":
        footer.parent.mkdir()
        footer.write_text("<footer>Ours</footer>\n")
    elif change == "title":  # the navigation shows every page's title
        notes.write_text(notes.read_text().replace("title: Notes", "title: Renamed notes"))
    elif change == "setting":
        config.write_text(config.read_text().replace("site_name: test site", "site_name: another site"))
    else:  # the navigation shows each question's status beside it
        index = project / "content" / "questions" / "second" / "discussion.yaml"
        index.write_text(index.read_text().replace("\nstatus: active\n", "\nstatus: closed\n"))
    drawn.clear()
    served = pages(serve(settled(project)))
    assert OTHERS <= set(drawn)
    assert served == fresh(project)
    assert (b"Ours" in served["index.html"]) == (change in ("override", "override edited"))
    assert b"Theirs" not in served["index.html"]


def test_a_template_that_shows_the_build_time_is_rendered_every_time(project, drawn):
    (project / "overrides" / "main.html").write_text(
        '{% extends "base.html" %}{% block footer %}{{ build_date_utc }}{% endblock %}\n')
    serve(settled(project))
    drawn.clear()
    serve(project)
    assert OTHERS <= set(drawn)


def test_a_value_another_plugin_adds_is_part_of_the_key(project, drawn):
    (project / "hooks.py").write_text(
        "from pathlib import Path\n\n\n"
        "def on_page_context(context, page, config, nav):\n"
        "    context['stamp'] = Path(config.config_file_path).with_name('stamp.txt').read_text()\n"
        "    context['opaque'] = object() if Path(config.config_file_path).with_name('opaque').exists() else 1\n"
        "    return context\n")
    (project / "stamp.txt").write_text("one")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text() + "hooks:\n  - hooks.py\n")
    serve(project)
    drawn.clear()
    serve(project)
    assert not PAGES & set(drawn)  # the same values: reused
    (project / "stamp.txt").write_text("two")
    serve(project)
    assert PAGES <= set(drawn)  # a value changed: rendered
    (project / "opaque").write_text("")
    serve(project)
    drawn.clear()
    serve(project)
    assert PAGES <= set(drawn)  # a value that cannot be written down: rendered every time


@pytest.mark.parametrize("how", ["build", "cache off"])
def test_a_plain_build_and_a_site_without_the_cache_keep_no_html(project, how):
    plugin.forget()
    if how == "cache off":
        config = project / "mkdocs.yml"
        config.write_text(config.read_text().replace("  - discuss\n", "  - discuss:\n      cache: false\n"))
    serve(project, command="build" if how == "build" else "serve")
    assert themed._KEPT == {}


def test_a_value_json_cannot_write_in_order_renders_the_page(project, drawn):
    (project / "hooks.py").write_text("def on_page_context(context, page, config, nav):\n"
                                      "    context['mixed'] = {1: 'one', 'two': 2}\n"
                                      "    return context\n")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text() + "hooks:\n  - hooks.py\n")
    serve(project)
    drawn.clear()
    served = pages(serve(project))
    assert PAGES <= set(drawn)
    assert served == fresh(project)
