"""A first build's helper process renders question pages ahead into the render cache: what it keeps is what
the build renders, and a build with it, without it, or with a helper that fails publishes the same pages."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from discuss.site import cache, plugin, prerender
from discuss.site.collect import collect
from sitekit import build, question, sample_site
from test_site_cache import question_pages, settled


@pytest.fixture
def project(tmp_path):
    root = sample_site(tmp_path / "project")
    for n in range(4):  # and questions nobody discussed yet: pages of their own all the same
        question(root, f"later-{n}", f"Later question {n}?")
    return settled(root)


def first_build(root, tmp_path, monkeypatch, pages_for_helper):
    """A first build (nothing kept anywhere) of a copy of `root`, the helper started from that many pages."""
    monkeypatch.setattr(prerender, "MIN_PAGES", pages_for_helper)
    copy = tmp_path / f"copy-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("site"))
    plugin.forget()
    return question_pages(build(settled(copy)))


def test_the_helper_keeps_each_page_as_the_build_renders_it(project, tmp_path, monkeypatch):
    monkeypatch.setattr(prerender, "MIN_PAGES", 1)
    entries, _ = collect(project / "content", "")
    kept = cache.RenderCache(tmp_path / "kept", "common")
    jobs = [(kept.key(e.src_uri, [Path(p) for p, _, _ in e.signature]), e) for e in entries]
    helper = prerender.start(jobs, kept.folder)
    assert helper is not None and helper.wait() == 0
    assert len(jobs) == 7
    for key, entry in jobs:
        assert kept.get(key) == [list(x) for x in plugin.rendered(entry)]


def test_too_few_pages_start_no_helper(tmp_path):
    assert prerender.start([("key", None)] * (prerender.MIN_PAGES - 1), tmp_path) is None


def test_a_build_with_the_helper_publishes_the_pages_one_without_it_does(project, tmp_path, monkeypatch):
    started = []
    real = prerender.Helper.__init__
    monkeypatch.setattr(prerender.Helper, "__init__", lambda self, *a: started.append(a) or real(self, *a))
    alone = first_build(project, tmp_path, monkeypatch, pages_for_helper=10**6)
    assert started == []
    helped = first_build(project, tmp_path, monkeypatch, pages_for_helper=1)
    assert len(started[0][0]) == 7  # every question page, the last first
    assert helped == alone


@pytest.mark.parametrize("helper", ["/nonexistent/python", "/bin/false"])
def test_a_helper_that_cannot_start_or_fails_leaves_the_pages_to_the_build(project, tmp_path, monkeypatch, helper):
    alone = first_build(project, tmp_path, monkeypatch, pages_for_helper=10**6)
    monkeypatch.setattr(sys, "executable", helper)
    assert first_build(project, tmp_path, monkeypatch, pages_for_helper=1) == alone


def test_the_build_shows_what_the_helper_kept(project, tmp_path, monkeypatch):
    alone = first_build(project, tmp_path, monkeypatch, pages_for_helper=10**6)
    real, made = prerender.start, []

    def first(jobs, folder):  # the helper done before the build reads its first page
        helper = real(jobs, folder)
        assert helper is not None and helper.wait() == 0
        return helper

    monkeypatch.setattr(prerender, "start", first)
    monkeypatch.setattr(plugin, "rendered", lambda entry: made.append(entry) or [])
    assert first_build(project, tmp_path, monkeypatch, pages_for_helper=1) == alone
    assert made == []  # every question page came from the helper


def test_the_helper_is_stopped_once_every_page_is_read(project, tmp_path, monkeypatch):
    slow = tmp_path / "slow-python"  # a helper that would outlive the build if nobody stopped it
    slow.write_text("#!/bin/sh\nexec sleep 60\n")
    slow.chmod(0o755)
    made = []
    real = prerender.start
    monkeypatch.setattr(prerender, "start", lambda jobs, folder: made.append(real(jobs, folder)) or made[-1])
    monkeypatch.setattr(sys, "executable", str(slow))
    first_build(project, tmp_path, monkeypatch, pages_for_helper=1)
    assert made and made[0].process.returncode is not None  # killed before the build wrote a page
