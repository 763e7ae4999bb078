"""Adding a protocol as docs/adding-a-protocol.md says: one package and one registry line.

The toy `echo` protocol below has a setting of its own, prompts of its own
(one named like vote's), and no resume rule: the Phase helper owns which
calls are still owed. Everything else (the store, the CLI, the site) must
take it as it takes the built-in protocols.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from conftest import fake_panel
from discuss import protocols
from discuss.store import discussions as store
from fakeserver import Action

ECHO = '''
"""Every member answers in each of `echoRounds` rounds; the chair concludes."""
from discuss.plugin import (CONCLUSION_SCHEMA, CallSpec, Field, Phase, Protocol, ProtocolSettings, Round, Step,
                            messages, parse_conclusion, record_reply)


class EchoSettings(ProtocolSettings):
    moved = {"echoCount": "echoRounds"}  # its name in discussions written before the rename
    echo_rounds: int = Field(1, ge=1, le=5)


class Echo(Protocol):
    summary = "everyone answers, a set number of rounds; the chair concludes"
    settings_model = EchoSettings

    def new_round(self, d):
        rnd = Round(number=len(d.rounds) + 1, seed=0, stage="echo")
        d.rounds.append(rnd)
        return rnd

    def finished_rounds(self, d):
        return len(d.rounds) >= EchoSettings.of(d.settings).echo_rounds and d.rounds[-1].complete

    def round_step(self, d, rnd, ctx):
        def spec(p):
            user = ctx.prompts.render("answer", question=ctx.q, round=rnd.number)
            return CallSpec(p.id, p, messages(p, ctx.prompts, user), "respond", 200,
                            context={"title": ctx.q.title, "round": rnd.number})

        def apply(result):
            record_reply(rnd, result.spec.panelist, result, result.spec.key, "respondent", result.text, ctx.clock())

        step = Phase(rnd, "echo", list(d.panel.members)).step(f"round {rnd.number}: echo", spec, apply)
        return step or Step("", after=lambda: setattr(rnd, "completed_at", ctx.clock()))

    def conclusion_spec(self, d, ctx):
        chair = d.panel.chair
        user = ctx.prompts.render("conclude", question=ctx.q, rounds=len(d.rounds))
        return CallSpec(chair.id, chair, messages(chair, ctx.prompts, user), "conclude", 800,
                        validate=parse_conclusion, schema=CONCLUSION_SCHEMA, context={"title": ctx.q.title})
'''
ANSWER = "Echo round {{ round }}: answer the question.\n\n{{ question.title }}\n"
# Named like the vote protocol's own conclusion prompt: each protocol sees its own.
CONCLUDE = """# Write the panel's conclusion

Echo conclusion over {{ rounds }} rounds of {{ question.title }}. Reply in JSON: {"summary": "..."}
"""


def write_package(folder, name, source, prompts):
    package = folder / name
    (package / "prompts").mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(source))
    for file, text in prompts.items():
        (package / "prompts" / file).write_text(text)


@pytest.fixture
def echo(tmp_path, monkeypatch):
    """The one registry line; the package lives outside discuss, as a plugin's would."""
    write_package(tmp_path / "plugins", "echoproto", ECHO, {"answer.j2": ANSWER, "conclude.j2": CONCLUDE})
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    protocols.register("echo", lambda: __import__("echoproto").Echo())
    yield
    protocols.unregister("echo")
    sys.modules.pop("echoproto", None)


def echo_panel(url, settings="{echoRounds: 2, retryBaseDelay: 0.0, attempts: 1, timeoutSeconds: 5}"):
    return fake_panel(url, settings=settings)


def test_its_own_setting_is_read_from_the_panel_and_recorded_only_in_its_discussions(project, fake, echo):
    project.write_panels(echo_panel(fake.url))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "echo", "--auto")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.protocol == "echo" and d.concluded and len(d.rounds) == 2  # echoRounds: 2, not the default 1
    text = (project.folder / "discussion.yaml").read_text()
    assert "  echoRounds: 2\n" in text
    assert all("Echo round" in r["messages"][-1]["content"] for r in fake.requests_for("alpha", "respond"))
    conclusion = fake.requests_for("alpha", "conclude")[0]["messages"][-1]["content"]
    assert "Echo conclusion over 2 rounds" in conclusion  # its own conclude.j2, not vote's

    other = type(project)(project.root.parent / "vote-project")
    other.write_panels(echo_panel(fake.url))
    assert other.cli("run", "swarm-power", "--panel", "fake", "--auto").exit_code == 0
    vote_text = (other.folder / "discussion.yaml").read_text()
    assert "echoRounds" not in vote_text  # a vote discussion records none of echo's settings
    concluded = [r["messages"][-1]["content"] for pid in ("alpha", "beta", "gamma")
                 for r in fake.requests_for(pid, "conclude")]
    assert len(concluded) == 2 and sum("Echo conclusion" in c for c in concluded) == 1  # vote's is vote's


def test_a_bad_value_of_its_setting_is_refused_before_any_call(project, fake, echo):
    project.write_panels(echo_panel(fake.url, settings="{echoRounds: 9}"))
    before = project.snapshot()
    result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "echo")
    assert result.exit_code == 2 and "echoRounds" in result.stderr and "5" in result.stderr
    assert fake.requests == [] and project.snapshot() == before


def test_a_setting_no_protocol_has_is_still_refused(project, fake, echo):
    project.write_panels(echo_panel(fake.url, settings="{echoRoundz: 2}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "echo")
    assert result.exit_code == 2 and "unknown setting 'echoRoundz'" in result.stderr
    assert fake.requests == []


def test_a_renamed_setting_still_loads_from_an_archive(project, fake, echo):
    project.write_panels(echo_panel(fake.url))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "echo", "--auto").exit_code == 0
    index = project.folder / "discussion.yaml"
    index.write_text(index.read_text().replace("echoRounds: 2", "echoCount: 3"))  # as an older version wrote it
    d = store.load(project.folder)
    assert d.settings.own == {"echoRounds": 3}
    assert type(protocols.get_protocol("echo")).__module__ == "echoproto"
    assert sys.modules["echoproto"].EchoSettings.of(d.settings).echo_rounds == 3


def test_resume_after_a_failed_call_without_a_rule_of_its_own(project, fake, echo):
    """One member fails: the round goes on without it. Everyone fails: the run stops; the next asks again."""
    project.write_panels(echo_panel(fake.url, settings="{echoRounds: 1, retryBaseDelay: 0.0, attempts: 1}"))
    fake.script("beta", Action(status=500))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "echo")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert sorted(d.rounds[0].replies) == ["alpha", "gamma"] and d.rounds[0].failed("echo") == {"beta"}
    assert len(fake.requests_for("beta", "respond")) == 1  # not asked again in the same round

    fresh = type(project)(project.root.parent / "second")
    fresh.write_panels(echo_panel(fake.url, settings="{echoRounds: 1, retryBaseDelay: 0.0, attempts: 1}"))
    for pid in ("alpha", "beta", "gamma"):
        fake.script(pid, Action(status=500))
    failed = fresh.cli("run", "swarm-power", "--panel", "fake", "--protocol", "echo")
    assert failed.exit_code == 1 and "run again to retry" in failed.stderr
    asked = len(fake.requests)
    again = fresh.cli("run", "swarm-power", "--protocol", "echo")
    assert again.exit_code == 0, again.output
    d = store.load(fresh.folder)
    assert sorted(d.rounds[0].replies) == ["alpha", "beta", "gamma"] and d.concluded
    assert len(fake.requests) - asked == 4  # three answers asked again, then the conclusion
    assert len(d.rounds[0].failures) == 3  # the failed first attempts stay on record, with what they cost


def test_a_missing_prompt_names_the_file_and_costs_nothing(project, fake, tmp_path, monkeypatch):
    write_package(tmp_path / "bare", "bareproto", ECHO.replace("Echo", "Bare"), {})
    monkeypatch.syspath_prepend(str(tmp_path / "bare"))
    protocols.register("bare", lambda: __import__("bareproto").Bare())
    try:
        project.write_panels(echo_panel(fake.url))
        result = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "bare")
    finally:
        protocols.unregister("bare")
    assert result.exit_code == 2 and "answer.j2 not found" in result.stderr and "bareproto" in result.stderr
    assert fake.requests == []



def test_a_registered_protocols_prompt_can_be_overridden_for_it_alone(project, fake, echo):
    folder = project.root / "discussions" / "prompts" / "echo"
    folder.mkdir(parents=True)
    (folder / "answer.j2").write_text("Overridden echo answer for round {{ round }}.\n")
    project.write_panels(echo_panel(fake.url, settings="{echoRounds: 1, retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "echo").exit_code == 0
    asked = [r["messages"][-1]["content"] for r in fake.requests_for("alpha", "respond")]
    assert asked and all(text.startswith("Overridden echo answer for round 1.") for text in asked)
