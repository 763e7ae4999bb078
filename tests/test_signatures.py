"""An answer that names its author or another panelist is found, and said so in show, the JSON, the bias
report and on the page; one that names nobody is not."""

from __future__ import annotations

import json

from conftest import fake_panel
from discuss.domain import Discussion, Panel, Panelist, Reply, Round, Settings
from discuss.rules.signatures import lines, named_in, names_in
from discuss.store import discussions as store
from fakeserver import Action

PANEL = {"skeptic": ("skeptic", "The Skeptic"), "gpt-4o": ("gpt-4o", "GPT"), "ai": ("ai", "Ai")}


def test_whole_words_only_any_case_and_short_names_never():
    assert names_in("As THE SKEPTIC, I doubt it.", PANEL) == ("skeptic",)
    assert names_in("gpt-4o's answer is wrong", PANEL) == ("gpt-4o",)
    assert names_in("skeptical readers and gpt-4omni", PANEL) == ()  # parts of words are not names
    assert names_in("AI will do it", PANEL) == ()  # two letters: labels and words, never a name


def discussion(*texts_by_author: dict[str, str]) -> Discussion:
    members = [Panelist(id="skeptic", model="m1", name="The Skeptic"), Panelist(id="visionary", model="m2",
                                                                           name="Visionary")]
    rounds = [Round(number=k, seed=k, replies={pid: Reply(pid, pid, k, text, "t") for pid, text in texts.items()})
              for k, texts in enumerate(texts_by_author, start=1)]
    return Discussion(question_id="q", question_slug="q", question_title="Q", panel=Panel(name="p", members=members),
                      settings=Settings(), rounds=rounds)


def test_a_signature_and_a_named_rival_are_told_apart():
    d = discussion({"skeptic": "I am the skeptic here.", "visionary": "Plain prose."},
                   {"skeptic": "Nothing to see.", "visionary": "Unlike the skeptic, I think so."})
    found = named_in(d)
    assert [(n.round_number, n.author, n.named, n.signed) for n in found] == [
        (1, "skeptic", ("skeptic",), True), (2, "visionary", ("skeptic",), False)]
    names = {"skeptic": "The Skeptic", "visionary": "Visionary"}
    assert lines(found, names) == ["round 1: The Skeptic's answer signs itself",
                                   "round 2: Visionary's answer names The Skeptic"]


def test_a_signed_answer_is_in_show_the_json_the_bias_report_and_the_page(project, fake):
    fake.script("alpha", Action(text="Speaking as Alpha: solar first, and Beta will disagree."))
    for other in ("beta", "gamma"):
        fake.script(other, Action(text="Solar first: the collectors pay for the rest."))
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    shown = project.cli("show", "swarm-power").stdout
    assert "round 1: Alpha's answer signs itself and names Beta" in shown
    data = json.loads(project.cli("show", "swarm-power", "--json").stdout)
    assert data["namedPanelists"] == [{"round": 1, "author": "alpha", "named": ["alpha", "beta"]}]
    counts = {p["panelist"]: p["answersNamingAPanelist"] for p in data["bias"]["panelists"]}
    assert counts == {"alpha": 1, "beta": 0, "gamma": 0}
    from sitekit import build

    (project.root / "mkdocs.yml").write_text("site_name: t\ndocs_dir: content\ntheme:\n  name: material\n"
                                              "plugins:\n  - discuss\n")
    html = (build(project.root) / "questions" / "swarm-power" / "index.html").read_text()
    assert "Answers that name a panelist" in html and "Alpha&#39;s answer signs itself" in html
    assert store.load(project.folder).rounds[0].replies["alpha"].text.startswith("Speaking as Alpha")  # kept as given
