"""How a vote round is run: anonymised or named ballots, the winner shown or hidden, Dyson's temperature.

Each new round records its method; a Project Dyson thread continued with
`--method dyson` shows the answers under their authors' ids in the panel's
order, and every reader (show, export, the bias report) keeps rounds of
different methods apart. A thread Dyson's tool started goes on at its
temperature where a member sets none, and a model that refuses that
temperature is asked without it.
"""

from __future__ import annotations

import csv
import json
import re

from conftest import fake_panel
from discuss.protocols import get_protocol
from discuss.protocols.vote.protocol import vote_specs
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from discuss.store.questions import read_question
from discuss.text.prompting import Prompts
from fakeserver import FakeLLM
from test_dyson import IDS, THREAD, cli, folder, raw, repo  # noqa: F401  (repo is a fixture)

MODELS = {"claude-opus-4-6": ("openai/claude-opus-4-6", ""), "gemini-3-pro": ("openai/gemini-3-pro",
          "options: {temperature: 0.2}, "), "gpt-5-2": ("openai/gpt-5", "")}


def http_panel(root, url: str) -> None:
    members = "".join(f"        - {{id: {i}, model: {MODELS[i][0]}, name: {i}, {MODELS[i][1]}api_base: '{url}', "
                      f"api_key_env: FAKE_KEY}}\n" for i in IDS)
    (root / "discussions" / "panels.yaml").write_text(
        f"panels:\n    default:\n      members:\n{members}      settings: {{retryBaseDelay: 0.01}}\n")


def test_a_dyson_thread_goes_on_with_named_ballots_at_dysons_temperature(repo, fake):  # noqa: F811
    http_panel(repo, fake.url)
    result = cli(repo, "run", THREAD, "--rounds", "1", "--method", "dyson")
    assert result.exit_code == 0, result.output
    ballot = fake.requests_for("claude-opus-4-6", "vote")[0]["messages"][-1]["content"]
    assert re.findall(r"^## Answer (\S+)", ballot, re.MULTILINE) == list(IDS)  # the panel's order, by name
    assert "The one labelled claude-opus-4-6 is yours" in ballot and "shuffled" not in ballot
    # Dyson's 0.7 where the member sets none; the member's own where it does; none for a model that refuses it.
    assert {r["body"].get("temperature") for r in fake.requests_for("claude-opus-4-6")} == {0.7}
    assert {r["body"].get("temperature") for r in fake.requests_for("gemini-3-pro")} == {0.2}
    assert fake.requests_for("gpt-5") and all("temperature" not in r["body"] for r in fake.requests_for("gpt-5"))
    assert raw(repo)["rounds"][2]["method"] == "named"
    shown = json.loads(cli(repo, "show", THREAD, "--json").stdout)
    assert [r["method"] for r in shown["rounds"]] == ["dyson-reference", "dyson-reference", "named"]
    assert set(shown["bias"]["byMethod"]) == {"dyson-reference", "named"}
    named = shown["bias"]["byMethod"]["named"]
    assert sum(named["winningPositions"].values()) == len(IDS)  # one per ballot of the new round, and only those
    text = cli(repo, "show", THREAD).stdout
    assert "rounds run as named alone" in text and "rounds run as dyson-reference alone" in text
    assert "answers under their authors' names" in text.split("## Round 3")[1]


def test_the_export_and_the_page_keep_the_methods_apart(repo, fake, tmp_path):  # noqa: F811
    http_panel(repo, fake.url)
    assert cli(repo, "run", THREAD, "--rounds", "1", "--method", "dyson").exit_code == 0
    out = tmp_path / "tables"
    assert cli(repo, "export", "--csv", str(out), THREAD).exit_code == 0
    rounds = list(csv.DictReader((out / "rounds.csv").open()))
    assert [x["method"] for x in rounds] == ["dyson-reference", "dyson-reference", "named"]
    from discuss.site.collect import collect
    from discuss.site.render import question_section

    entries, _ = collect(repo / "content")
    html = question_section(next(e for e in entries if e.discussion and e.discussion.question_slug == THREAD))
    assert 'data-bias-method="named"' in html and 'data-bias-method="dyson-reference"' in html


def test_a_panel_that_sets_a_temperature_a_model_refuses_is_told_so(repo, fake):  # noqa: F811
    MODELS["gpt-5-2"] = ("openai/gpt-5", "options: {temperature: 0.7}, ")
    try:
        http_panel(repo, fake.url)
        cli(repo, "run", THREAD, "--rounds", "1")
    finally:
        MODELS["gpt-5-2"] = ("openai/gpt-5", "")
    assert not fake.requests_for("gpt-5")  # refused before sending: an explicit option is never dropped
    failures = store.load(folder(repo)).rounds[2].failures
    assert any(f.model_id == "gpt-5-2" and "temperature" in f.error for f in failures)


def second_round_prompts(project, *flags: str) -> list[str]:
    """The answer prompts of round 2, from a panel that always asks to go on."""
    with FakeLLM(termination="CONTINUE") as fake:
        project.write_panels(fake_panel(fake.url))
        result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "2", *flags)
        assert result.exit_code == 0, result.output
        later = [r["messages"][-1]["content"] for r in fake.requests if r["task"] == "respond"][3:]
    assert len(later) == 3
    return later


def test_a_hidden_winner_is_not_shown_to_the_panel_and_is_recorded(project):
    later = second_round_prompts(project, "--hide-winner")
    assert all("(the round's winner)" not in p and "weighted score" not in p for p in later)
    assert all("Which answer each round's vote chose is not shown" in p for p in later)
    assert "showWinner: false" in (project.folder / "discussion.yaml").read_text()


def test_settings_at_their_defaults_leave_the_record_as_it_was(project):
    later = second_round_prompts(project)
    assert all("(the round's winner)" in p and "weighted score" in p for p in later)
    index = (project.folder / "discussion.yaml").read_text()
    assert "showWinner" not in index and "ballots:" not in index and "method" not in index


def test_a_named_round_stays_named_when_its_vote_is_resumed(repo):  # noqa: F811
    assert cli(repo, "run", THREAD, "--rounds", "1", "--method", "dyson").exit_code == 0
    d = store.load(folder(repo))
    rnd, box = d.rounds[-1], ballot_box(d.rounds[-1])
    # As a run stopped after one ballot leaves it (Dyson's index keeps only finished rounds); the next
    # run is given no --method.
    first = box.ballots[0].voter_id
    box.ballots, box.abstentions = box.ballots[:1], []
    box.votes = [v for v in box.votes if v.voter_id == first]
    box.termination_votes = [t for t in box.termination_votes if t.model_id == first]
    box.results, box.winner_id, box.method, rnd.completed_at = [], None, None, None
    d.status, d.termination_reason, d.concluded_at, d.conclusion = "active", None, None, None  # not concluded yet
    store.save(d, folder(repo))
    d = store.load(folder(repo))
    assert ballot_box(d.rounds[-1]).method == "named"  # read back from the ballots themselves
    d.settings.own = {}
    q = read_question(next(folder(repo).parent.glob(f"*{THREAD}.md")))
    prompts = Prompts(repo / "discussions" / "prompts").scoped(get_protocol("vote"))
    specs = vote_specs(d, q, d.rounds[-1], prompts)
    assert len(specs) == 2 and all(s.context["order"] == {pid: pid for pid in IDS} for s in specs)


def test_a_method_is_refused_where_it_means_nothing(project, fake):
    project.write_panels(fake_panel(fake.url))
    bad = project.cli("run", "swarm-power", "--panel", "fake", "--method", "shuffled")
    assert bad.exit_code == 2 and "anonymised, dyson" in bad.output
    council = project.cli("run", "swarm-power", "--panel", "fake", "--protocol", "council", "--method", "dyson")
    assert council.exit_code == 2 and "--method is not an option of the council protocol" in council.output
    for wrong, said in ((("--set", "ballots"), "give KEY=VALUE"), (("--set", "rounds=2"), "not a setting of the vote"),
                        (("--set", "maxRounds=2"), "maxRounds: a setting every protocol shares"),
                        (("--protocol", "council", "--set", "ballots=named"), "not a setting of the council")):
        refused = project.cli("run", "swarm-power", "--panel", "fake", *wrong)
        assert refused.exit_code == 2 and said in refused.output, refused.output
    assert not fake.requests and not project.folder.exists()


def test_a_protocols_own_setting_goes_through_set_as_through_its_flag(project):
    listed = {row["name"]: row["settings"] for row in json.loads(project.cli("protocols", "--json").stdout)}
    assert {"ballots", "showWinner", "quorum"} <= set(listed["vote"]) and listed["council"] == []
    assert listed["critique"] == ["critiqueRounds", "convergenceTest", "convergenceThreshold"]
    critique = next(row for row in json.loads(project.cli("protocols", "--json").stdout) if row["name"] == "critique")
    assert critique["defaults"] == {"critiqueRounds": 4, "convergenceTest": "judge", "convergenceThreshold": 0.85}
    assert "its own settings (--set KEY=VALUE): selfVoteWeight," in project.cli("protocols").stdout
    later = second_round_prompts(project, "--set", "showWinner=false")
    assert all("Which answer each round's vote chose is not shown" in p for p in later)
    assert "showWinner: false" in (project.folder / "discussion.yaml").read_text()
