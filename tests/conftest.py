"""Shared fixtures: a sample project in a temporary folder, the CLI, the fake server."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
# Before any test module imports litellm while being collected: else it fetches its price table from the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# A built site keeps its rendered pages in this user's cache folder: the suite's go to a folder of its own.
_CACHE = tempfile.mkdtemp(prefix="discuss-suite-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)

from fakeserver import FakeLLM  # noqa: E402

# Property tests are derandomized by default (the same examples on every run and in CI, so the suite
# cannot fail at random); HYPOTHESIS_PROFILE=explore draws new examples each run, for hunting locally.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

QUESTION = """\
---
title: How should swarm power be distributed?
slug: swarm-power
questionId: rq-9-1
tags: [power]
---

Where should the power of an orbital swarm go first?
"""

OFFLINE_PANEL = """\
    offline:
      members:
        - {id: pragmatist, model: offline/pragmatist, name: Pragmatist}
        - {id: skeptic, model: offline/skeptic, name: Skeptic}
        - {id: visionary, model: offline/visionary, name: Visionary}
      settings: {retryBaseDelay: 0.0}
"""


def fake_panel(url: str, ids=("alpha", "beta", "gamma"), settings: str = "") -> str:
    members = "\n".join(
        f"        - {{id: {i}, model: openai/{i}, name: {i.title()}, api_base: '{url}', api_key_env: FAKE_KEY}}"
        for i in ids
    )
    extra = settings or "{timeoutSeconds: 5, attempts: 3, retryBaseDelay: 0.01}"
    return f"    fake:\n      members:\n{members}\n      settings: {extra}\n"


class Project:
    def __init__(self, root: Path):
        self.root = root
        self.content = root / "content"
        self.question = self.content / "questions" / "swarm-power.md"
        self.folder = self.question.with_suffix("")
        self.question.parent.mkdir(parents=True)
        self.question.write_text(QUESTION)
        (root / "discussions").mkdir()
        self.write_panels(OFFLINE_PANEL)

    def write_panels(self, *panels: str) -> None:
        """The panel file; a fake server on this machine takes many requests at once (the default is one)."""
        text = "panels:\n" + "".join(panels)
        if urls := sorted(set(re.findall(r"api_base: '(http://127\.0\.0\.1:\d+/v1)'", text))):
            text += "limits:\n" + "".join(f"  '{url}': 64\n" for url in urls)
        (self.root / "discussions" / "panels.yaml").write_text(text)

    def cli(self, *args: str, input: str | None = None):
        from discuss.cli.app import app

        return CliRunner().invoke(app, ["--root", str(self.root), *args], input=input)

    def snapshot(self) -> dict[str, bytes]:
        return {
            str(p.relative_to(self.root)): p.read_bytes()
            for p in sorted(self.root.rglob("*")) if p.is_file()
        }


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path / "project")


@pytest.fixture
def fake():
    with FakeLLM() as server:
        yield server


@pytest.fixture(params=["http", "httpx", "litellm"])
def client(request, monkeypatch):
    """Each OpenAI-compatible server reached every way: the light client on its own HTTP/1.1 connections (a
    plain `http` server's path), the light client through httpx (an `https` or proxied server's), litellm."""
    if request.param != "http":
        monkeypatch.setenv("DISCUSS_CLIENT", request.param)
    return request.param


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-fake-test-key-123456")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")


def dedent(text: str) -> str:
    return textwrap.dedent(text)
