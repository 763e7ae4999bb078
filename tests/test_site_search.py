"""The copy of a question page the search plugin reads: the page without what the index leaves out."""

from __future__ import annotations

import json

from discuss.site import plugin
from discuss.site.searchable import flattened, searchable, without_excluded
from sitekit import MKDOCS, build, sample_site


def searched_site(root):
    """The sample project with the theme's search plugin before discuss's, as a site with search has it."""
    sample_site(root)
    (root / "mkdocs.yml").write_text(MKDOCS.replace("plugins:\n", "plugins:\n  - search\n"))
    return root


def test_marked_elements_are_cut_whole_with_whatever_they_nest():
    html = ('<h2>Round 1</h2><div class="x" data-search-exclude><div><div>matrix</div></div><p>more</p></div>'
            '<p>kept <em>text</em></p><details class="d" data-search-exclude><summary>s</summary>'
            '<details><summary>inner</summary></details></details><p>end</p>')
    assert without_excluded(html) == "<h2>Round 1</h2><p>kept <em>text</em></p><p>end</p>"
    assert without_excluded("<p>nothing marked</p>") == "<p>nothing marked</p>"
    assert without_excluded('<p>a</p><div data-search-exclude><div>never closed') == "<p>a</p>"
    assert searchable(html) == flattened(without_excluded(html))


def test_the_search_index_is_what_it_was_when_search_read_the_whole_page(tmp_path, monkeypatch):
    lean_site = build(searched_site(tmp_path / "lean"))
    monkeypatch.setattr(plugin, "searchable", lambda html: html)
    whole_site = build(searched_site(tmp_path / "whole"))

    def index(site):
        return json.loads((site / "search" / "search_index.json").read_text())["docs"]

    assert index(lean_site) == index(whole_site)
    page = (lean_site / "questions" / "first" / "index.html").read_text()
    assert page == (whole_site / "questions" / "first" / "index.html").read_text()
    assert 'class="discuss-matrix" data-search-exclude' in page  # the theme still shows every part


def test_a_plugin_that_changes_the_copy_search_reads_keeps_its_change(tmp_path, caplog):
    from mkdocs.plugins import event_priority

    class Stamping:
        @event_priority(50)  # between the copy for search and the whole page
        def on_page_context(self, context, page, config, nav):
            page.content += "<p>stamped</p>"
            return context

    root = searched_site(tmp_path)
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    config = load_config(str(root / "mkdocs.yml"))
    config.plugins["stamping"] = Stamping()
    mkdocs_build(config)
    page = (root / "site" / "questions" / "first" / "index.html").read_text()
    assert "<p>stamped</p>" in page and "a plugin changed the page while search read it" in caplog.text
