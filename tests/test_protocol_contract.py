"""What every registered protocol owes, checked over `protocols.names()`.

A protocol added to the registry is in these tests the day it is added:
it runs to an end on the fake server, writes the same files twice over,
stays within what `--estimate` promised, resumes after failed calls with
every paid call on record, and `show --json` and the site read it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import QUESTION, Project, fake_panel
from discuss import protocols
from discuss.store import discussions as store
from fakeserver import Action
from sitekit import MKDOCS, build

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|latencyMs: \d+|\b[0-9a-f]{64}\b")  # times differ, nothing else may
SETTINGS = "{retryBaseDelay: 0.0, attempts: 1, timeoutSeconds: 5}"


def ready(project: Project, url: str) -> Project:
    project.write_panels(fake_panel(url, settings=SETTINGS))
    return project


def files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): STAMP.sub("<time>", p.read_text()) for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def run_to_end(project: Project, protocol: str, runs: int = 4):
    """`run --auto` until the discussion has ended; a failed run is run again, as a person would."""
    results = []
    for _ in range(runs):
        results.append(project.cli("run", "swarm-power", "--panel", "fake", "--protocol", protocol, "--auto"))
        d = store.load(project.folder)
        if d is not None and d.concluded:
            return d, results
    raise AssertionError(f"{protocol} did not end in {runs} runs: " + results[-1].output)


@pytest.mark.parametrize("protocol", protocols.names())
def test_it_ends_the_same_way_twice_within_its_estimate(project, fake, tmp_path, protocol):
    ready(project, fake.url)
    estimate = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", protocol, "--auto", "--estimate")
    assert estimate.exit_code == 0, estimate.output
    promised = int(re.search(r"calls:\s+(\d+)", estimate.stdout).group(1))
    d, results = run_to_end(project, protocol, runs=1)
    assert results[-1].exit_code == 0 and d.protocol == protocol and d.termination_reason
    assert len(fake.requests) <= promised

    shown = json.loads(project.cli("show", "swarm-power", "--json").stdout)
    assert shown["protocol"] == protocol and shown["status"] == d.status

    other = ready(Project(tmp_path / "again"), fake.url)
    run_to_end(other, protocol, runs=1)
    assert files(other.folder) == files(project.folder)


@pytest.mark.parametrize("protocol", protocols.names())
def test_it_resumes_after_failed_calls_with_every_answered_call_on_record(project, fake, protocol):
    ready(project, fake.url)
    for pid in ("alpha", "beta", "gamma"):
        fake.script(pid, Action(status=500))  # everyone's first call fails
    d, results = run_to_end(project, protocol)
    assert all(r.exit_code in (0, 1) for r in results), results[-1].output
    assert any(f.error for r in d.rounds for f in r.failures)  # the failures are on record
    # Every call that was answered is on record (the three refused with a 500 cost nothing), and no
    # answered call was asked twice: a resumed run asks only what is still owed.
    assert d.usage.calls == len(fake.requests) - 3


def test_the_site_renders_a_discussion_of_every_protocol(tmp_path):
    root = tmp_path / "site"
    (root / "content" / "questions").mkdir(parents=True)
    (root / "discussions").mkdir()
    members = "".join(f"        - {{id: {i}, model: offline/{i}, name: {i.title()}}}\n"
                      for i in ("pragmatist", "skeptic", "visionary"))
    (root / "discussions" / "panels.yaml").write_text(f"panels:\n    offline:\n      members:\n{members}")
    (root / "mkdocs.yml").write_text(MKDOCS)
    for name in protocols.names():
        slug = f"q-{name}"
        text = QUESTION.replace("slug: swarm-power", f"slug: {slug}").replace("rq-9-1", f"rq-{name}")
        (root / "content" / "questions" / f"{slug}.md").write_text(text)
        result = Project.cli(type("P", (), {"root": root})(), "run", slug, "--panel", "offline",
                             "--protocol", name, "--auto")
        assert result.exit_code == 0, (name, result.output)
    site = build(root)
    for name in protocols.names():
        page = (site / "questions" / f"q-{name}" / "index.html").read_text()
        assert "How should swarm power be distributed?" in page and "<script>alert" not in page
