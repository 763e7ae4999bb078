"""A first build's helper process renders question pages ahead into the render cache: what it keeps is what
the build renders, and a build with it, without it, or with a helper that fails publishes the same pages."""

from __future__ import annotations

import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from discuss import pools
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
    assert helper is not None and helper.wait() == [True] * 7
    helper.stop()
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


def failing_pool(workers):  # a pool whose worker dies before it takes a page
    return ProcessPoolExecutor(workers, mp_context=pools.context(), initializer=os._exit, initargs=(3,))


def no_pool(workers):
    raise OSError("no process can be started")


@pytest.mark.parametrize("helper", [no_pool, failing_pool])
def test_a_helper_that_cannot_start_or_fails_leaves_the_pages_to_the_build(project, tmp_path, monkeypatch, helper):
    alone = first_build(project, tmp_path, monkeypatch, pages_for_helper=10**6)
    made = []
    real = prerender.start
    monkeypatch.setattr(prerender, "start", lambda jobs, folder: made.append(real(jobs, folder)) or made[-1])
    monkeypatch.setattr(prerender, "pool", helper)
    assert first_build(project, tmp_path, monkeypatch, pages_for_helper=1) == alone
    assert made == [None] if helper is no_pool else made[0] is not None


def test_the_build_shows_what_the_helper_kept(project, tmp_path, monkeypatch):
    alone = first_build(project, tmp_path, monkeypatch, pages_for_helper=10**6)
    real, made = prerender.start, []

    def first(jobs, folder):  # the helper done before the build reads its first page
        helper = real(jobs, folder)
        assert helper is not None and all(helper.wait())
        return helper

    monkeypatch.setattr(prerender, "start", first)
    monkeypatch.setattr(plugin, "rendered", lambda entry: made.append(entry) or [])
    assert first_build(project, tmp_path, monkeypatch, pages_for_helper=1) == alone
    assert made == []  # every question page came from the helper


def slow_pool(workers):  # a worker that begins a second late: the build reads every page before it renders one
    return ProcessPoolExecutor(workers, mp_context=pools.context(), initializer=time.sleep, initargs=(1,))


def test_the_helper_is_stopped_once_every_page_is_read(project, tmp_path, monkeypatch):
    alone = first_build(project, tmp_path, monkeypatch, pages_for_helper=10**6)
    made = []
    real = prerender.start
    monkeypatch.setattr(prerender, "start", lambda jobs, folder: made.append(real(jobs, folder)) or made[-1])
    monkeypatch.setattr(prerender, "pool", slow_pool)
    assert first_build(project, tmp_path, monkeypatch, pages_for_helper=1) == alone
    pages = made[0].pages
    assert all(page.done() for page in pages)  # stopped when the build had read its pages: nothing left running
    assert sum(page.cancelled() for page in pages) >= len(pages) - 3  # at most those handed over were begun
