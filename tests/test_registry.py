"""Protocols are found through the registry alone: a toy protocol in a package of its own runs end to end."""

from __future__ import annotations

import sys
import textwrap

import pytest
from typer.testing import CliRunner

from conftest import OFFLINE_PANEL, QUESTION, fake_panel
from discuss import protocols
from discuss.cli.app import app
from discuss.store import discussions as store
from sitekit import MKDOCS, build

TOY = '''
"""A one-round toy: everyone answers; the chair writes the conclusion."""
from discuss.plugin import CallSpec, Presentation, Protocol, Round, Step, messages, parse_conclusion, record_failure, record_reply


class ToyPresentation(Presentation):
    def show_round(self, r, names):
        return super().show_round(r, names) + [f"  toy answers counted: {r.notes.get('toyCount', 0)}"]


class Toy(Protocol):
    summary = "everyone answers once; the chair concludes"
    runs_to_end = True
    presentation = ToyPresentation()  # its site partial is found by convention: site.html.j2 beside it

    def new_round(self, d):
        rnd = Round(number=len(d.rounds) + 1, seed=0, stage="toy")
        d.rounds.append(rnd)
        return rnd

    def finished_rounds(self, d):
        return len(d.rounds) >= 1

    def round_step(self, d, rnd, ctx):
        pending = [p for p in d.panel.members if p.id not in rnd.replies]
        if not pending:
            return Step("", after=lambda: setattr(rnd, "completed_at", ctx.clock()))
        user = ctx.prompts.render("respond", question=ctx.q, earlier=[], omitted=0, round=1, max_words=50)

        def apply(result):
            if not result.ok:
                return record_failure(rnd, "toy", result)
            rnd.notes["toyCount"] = rnd.notes.get("toyCount", 0) + 1
            record_reply(rnd, result.spec.panelist, result, result.spec.panelist.id, "respondent",
                         result.text, ctx.clock())

        specs = [CallSpec(p.id, p, messages(p, ctx.prompts, user), "respond", 100,
                          context={"title": ctx.q.title, "round": 1}) for p in pending]
        return Step("toy answers", specs, apply)

    def conclusion_spec(self, d, ctx):
        chair = d.panel.chair
        user = "Conclude in JSON with a summary."
        return CallSpec(chair.id, chair, messages(chair, ctx.prompts, user), "conclude", 500,
                        validate=parse_conclusion, context={"title": ctx.q.title})
'''
PARTIAL = """\
{% macro summary(view) %}<p class="toy-summary">A toy discussion of {{ view.d.rounds | length }} round.</p>{% endmacro %}
{% macro round(r, view) %}<p class="toy-round">Toy answers: {{ r.notes.toyCount }}</p>{% endmacro %}
"""


@pytest.fixture
def toy(tmp_path, monkeypatch):
    package = tmp_path / "plugins" / "toyproto"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(TOY))
    (package / "site.html.j2").write_text(PARTIAL)
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    protocols.register("toy", lambda: sys.modules.setdefault("toyproto", __import__("toyproto")).Toy())
    yield
    protocols.unregister("toy")


def test_a_protocol_added_through_the_registry_runs_shows_and_publishes(tmp_path, toy):
    root = tmp_path / "site"
    (root / "content" / "questions").mkdir(parents=True)
    (root / "discussions").mkdir()
    (root / "discussions" / "panels.yaml").write_text("panels:\n" + OFFLINE_PANEL)
    (root / "content" / "questions" / "swarm-power.md").write_text(QUESTION)
    (root / "mkdocs.yml").write_text(MKDOCS)
    cli = lambda *a: CliRunner().invoke(app, ["--root", str(root), *a])  # noqa: E731

    assert "toy" in cli("protocols").stdout
    result = cli("run", "swarm-power", "--panel", "offline", "--protocol", "toy", "-q")
    assert result.exit_code == 0, result.output
    d = store.load(root / "content" / "questions" / "swarm-power")
    assert d.protocol == "toy" and d.concluded and d.termination_reason == "completed"
    assert sorted(d.rounds[0].replies) == ["pragmatist", "skeptic", "visionary"]
    assert d.rounds[0].notes["toyCount"] == 3 and d.conclusion.summary
    assert "toy answers counted: 3" in cli("show", "swarm-power").stdout
    html = (build(root) / "questions" / "swarm-power" / "index.html").read_text()
    assert 'class="toy-summary">A toy discussion of 1 round.' in html
    assert 'class="toy-round">Toy answers: 3' in html


def test_vote_checks_its_agreement_measure_before_any_call(project, fake, monkeypatch):
    import discuss.rules.agreement as agreement

    def missing(name):
        raise ValueError("the embedding measure needs the 'embeddings' extra")

    monkeypatch.setattr(agreement, "measure", missing)
    settings = "{convergenceTest: agreement, agreementMeasure: embedding, retryBaseDelay: 0.0}"
    project.write_panels(fake_panel(fake.url, settings=settings))
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "fake", "--auto")
    assert result.exit_code == 2, result.output
    assert "agreementMeasure" in result.stderr and "embeddings" in result.stderr
    assert fake.requests == [] and project.snapshot() == before


def test_the_nine_built_in_protocols_are_registered_through_the_entry_point_group():
    from importlib.metadata import entry_points

    declared = {ep.name: ep.value for ep in entry_points(group=protocols.GROUP)}
    assert declared == protocols.BUILT_IN and len(declared) == 9


def test_a_package_installed_beside_discuss_adds_a_protocol_through_its_entry_point(tmp_path, monkeypatch):
    """No register() call: a distribution on the path that names its protocol in `discuss.protocols`."""
    plugins = tmp_path / "plugins"
    (plugins / "toyproto").mkdir(parents=True)
    (plugins / "toyproto" / "__init__.py").write_text(textwrap.dedent(TOY))
    (plugins / "toyproto" / "site.html.j2").write_text(PARTIAL)
    info = plugins / "discuss_toy-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: discuss-toy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[discuss.protocols]\ntoy = toyproto:Toy\n")
    monkeypatch.syspath_prepend(str(plugins))
    protocols.plugins.cache_clear()
    try:
        assert protocols.names()[:9] == list(protocols.BUILT_IN) and "toy" in protocols.names()
        root = tmp_path / "site"
        (root / "content" / "questions").mkdir(parents=True)
        (root / "discussions").mkdir()
        (root / "discussions" / "panels.yaml").write_text("panels:\n" + OFFLINE_PANEL)
        (root / "content" / "questions" / "swarm-power.md").write_text(QUESTION)
        result = CliRunner().invoke(app, ["--root", str(root), "run", "swarm-power", "--panel", "offline",
                                          "--protocol", "toy", "-q"])
        assert result.exit_code == 0, result.output
        assert store.load(root / "content" / "questions" / "swarm-power").protocol == "toy"
        typo = CliRunner().invoke(app, ["--root", str(root), "run", "swarm-power", "--protocol", "tyo"])
        assert typo.exit_code == 2 and "did you mean toy" in typo.stderr
    finally:
        protocols.plugins.cache_clear()
