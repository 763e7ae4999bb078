"""A person on the panel: the run stops at their form (exit 3), and goes on once it is filled in."""

from __future__ import annotations

import re
import sys

from conftest import fake_panel
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from discuss.store import documents

PERSON = "        - {id: ann, name: Ann, human: true}\n"
ANSWER = "My answer: run the bus at 48 V and keep a battery per unit."


def with_person(project, fake, settings="{retryBaseDelay: 0.0}"):
    panel = fake_panel(fake.url, ids=("alpha", "beta"), settings=settings)
    project.write_panels(panel.replace("      settings:", PERSON + "      settings:"))


def forms(project):
    return sorted((project.folder / "for-people").glob("*.md"))


def ballot_yaml(labels, vote="APPROVE"):
    votes = "".join(f"  {label}: {{vote: {vote}, reasoning: reads well}}\n" for label in labels)
    return f"votes:\n{votes}termination: {{vote: CONTINUE, reasoning: more to do}}\n"


def test_a_round_waits_for_the_person_and_goes_on_with_their_answer(project, fake):
    with_person(project, fake)
    first = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q")
    assert first.exit_code == 3, first.output
    (form,) = forms(project)
    assert form.name == "round-1-respond-ann.md" and str(form) in first.stderr
    assert "Research question" in form.read_text()  # the prompt a model would see
    d = store.load(project.folder)
    assert sorted(d.rounds[0].replies) == ["alpha", "beta"] and d.rounds[0].failures == []
    answered = len(fake.requests)
    # a second run before the form is filled asks nobody again and still waits
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    assert len(fake.requests) == answered

    filled = project.cli("reply", "swarm-power", "--as", "ann", input=ANSWER)
    assert filled.exit_code == 0, filled.output
    ballot_wait = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q")
    assert ballot_wait.exit_code == 3, ballot_wait.output
    assert store.load(project.folder).rounds[0].replies["ann"].text.strip() == ANSWER
    ballots = [r["messages"][-1]["content"] for r in fake.requests if r["task"] == "vote"]
    assert len(ballots) == 2 and all(ANSWER in b and not re.search(r"\b[Aa]nn\b", b) for b in ballots)

    vote_form = project.folder / "for-people" / "round-1-vote-ann.md"
    meta, body = documents.read(vote_form)
    from discuss.protocols.vote import label_order

    order = label_order(store.load(project.folder).rounds[0], "ann")
    assert meta["labels"] == list(order)  # the same shuffled order a model would see
    assert ANSWER in body
    bad = project.cli("vote", "swarm-power", "--as", "ann", input=ballot_yaml(meta["labels"][:-1]))
    assert bad.exit_code == 2 and "refused" in bad.stderr, bad.output
    assert vote_form.with_suffix(".draft.md").is_file()  # nothing typed is lost
    good = project.cli("vote", "swarm-power", "--as", "ann", input=ballot_yaml(meta["labels"]))
    assert good.exit_code == 0, good.output
    done = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q")
    assert done.exit_code == 0, done.output
    r = store.load(project.folder).rounds[0]
    assert r.complete and len([v for v in ballot_box(r).votes if v.voter_id == "ann"]) == 3
    assert {t.model_id: t.vote for t in ballot_box(r).termination_votes}["ann"] == "CONTINUE"
    from sitekit import build

    (project.root / "mkdocs.yml").write_text("site_name: t\ndocs_dir: content\ntheme:\n  name: material\n"
                                              "plugins:\n  - discuss\n")
    html = (build(project.root) / "questions" / "swarm-power" / "index.html").read_text()
    heads = re.findall(r'<p class="discuss-reply-head"><strong><bdi>(\w+)</bdi></strong>( <span class="discuss-badge '
                       r'discuss-badge-person">a person</span>)?', html)
    assert sorted(heads) == [("Alpha", ""), ("Ann", ' <span class="discuss-badge discuss-badge-person">a person'
                                                    '</span>'), ("Beta", "")]
    assert not (project.root / "site" / "questions" / "swarm-power" / "for-people").exists()  # forms stay private


def test_a_form_filled_in_a_file_and_an_editor_both_count(project, fake, monkeypatch, tmp_path):
    with_person(project, fake)
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\np = sys.argv[1]\nopen(p, 'a').write('Written in the editor.\\n')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    result = project.cli("reply", "swarm-power", "--as", "ann", "--edit")
    assert result.exit_code == 0, result.output
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    assert "Written in the editor." in store.load(project.folder).rounds[0].replies["ann"].text


def test_a_person_who_does_not_answer_in_time_is_an_abstention(project, fake):
    with_person(project, fake, settings="{retryBaseDelay: 0.0, personWaitHours: 1}")

    def overdue(form):
        form.write_text(re.sub(r"asked: '?[^\n']+'?", "asked: '2020-01-01T00:00:00Z'", form.read_text()))

    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    overdue(project.folder / "for-people" / "round-1-respond-ann.md")
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q")
    assert result.exit_code == 3 and "round-1-vote-ann.md" in result.stderr  # no answer, but still a voter
    overdue(project.folder / "for-people" / "round-1-vote-ann.md")
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q")
    assert result.exit_code == 0, result.output
    r = store.load(project.folder).rounds[0]
    assert "ann" not in r.replies and any(f.model_id == "ann" and "within 1 hours" in f.error for f in r.failures)
    assert not any(v.voter_id == "ann" for v in ballot_box(r).votes)  # never invented
    assert any(a.voter_id == "ann" for a in ballot_box(r).abstentions) and r.complete


def test_nothing_waits_and_nothing_is_written(project, fake):
    with_person(project, fake)
    result = project.cli("reply", "swarm-power", "--as", "ann", input="x")
    assert result.exit_code == 2 and "no reply waits for 'ann'" in result.stderr


def test_a_form_filled_by_hand_as_in_a_pull_request_counts(project, fake):
    with_person(project, fake)
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    form = project.folder / "for-people" / "round-1-respond-ann.md"
    form.write_text(form.read_text() + "Answered by editing the file itself.\n")
    result = project.cli("run", "--all", "-q")  # as CI would, after the commit is merged
    assert result.exit_code == 3 and "round-1-vote-ann.md" in result.stderr, result.output
    assert store.load(project.folder).rounds[0].replies["ann"].text.strip() == "Answered by editing the file itself."


def test_a_reason_may_hold_a_bar_and_another_persons_form_is_never_filled(project, fake):
    with_person(project, fake)
    panels = project.root / "discussions" / "panels.yaml"
    panels.write_text(panels.read_text().replace(PERSON, PERSON + "        - {id: bob, name: Bob, human: true}\n"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    assert project.cli("reply", "swarm-power", "--as", "ann", input=ANSWER).exit_code == 0
    for pattern in ("*", "b*", "?ob", "[b]ob"):
        wild = project.cli("reply", "swarm-power", "--as", pattern, input="not mine")
        assert wild.exit_code == 2, (pattern, wild.output)
    assert project.cli("reply", "swarm-power", "--as", "bob", input="Bob's own answer.").exit_code == 0
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    meta, _ = documents.read(project.folder / "for-people" / "round-1-vote-ann.md")
    ballot = ballot_yaml(meta["labels"]).replace("reads well", "'either | or: both read well'")
    result = project.cli("vote", "swarm-power", "--as", "ann", input=ballot)
    assert result.exit_code == 0, result.output


def test_a_person_in_the_chair_writes_the_conclusion_in_sections(project, fake):
    panel = fake_panel(fake.url, ids=("alpha", "beta"), settings="{retryBaseDelay: 0.0}")
    project.write_panels(panel.replace("      settings:", "      chairman: {id: ann, name: Ann, human: true}\n"
                                       "      protocol: council\n      settings:"))
    first = project.cli("run", "swarm-power", "--panel", "fake", "--auto", "-q")
    assert first.exit_code == 3, first.output
    (form,) = forms(project)
    assert "## Summary" in form.read_text()
    # the form as written is still blank: a run keeps waiting, and `reply` opens it
    assert project.cli("run", "swarm-power", "--panel", "fake", "--auto", "-q").exit_code == 3
    refused = project.cli("reply", "swarm-power", "--as", "ann", input="Just words, no sections.")
    assert refused.exit_code == 0  # saved: a reply is free text; the run says what is missing
    waiting = project.cli("run", "swarm-power", "--panel", "fake", "--auto", "-q")
    assert waiting.exit_code == 3 and "summary" in waiting.stderr
    again = project.cli("reply", "swarm-power", "--as", "ann", input="## Summary\n\nWe agree on 48 V.\n")
    assert again.exit_code == 0, again.output  # the refused form can be filled again
    done = project.cli("run", "swarm-power", "--panel", "fake", "--auto", "-q")
    assert done.exit_code == 0, done.output
    d = store.load(project.folder)
    assert d.status == "concluded" and d.conclusion.summary == "We agree on 48 V." and d.conclusion.generated_by == "ann"


def test_status_says_who_a_discussion_waits_for(project, fake):
    import contextlib
    import io
    import json

    from discuss.cli.quick import status as quick_status

    def fast() -> list[dict]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert quick_status(["--root", str(project.root), "status", "--json"]) == 0
        return json.loads(out.getvalue())

    with_person(project, fake)
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3
    assert (project.folder / "discussion.yaml").read_text().split("\npanel:\n")[0].endswith("\nwaitingFor:\n- ann")
    table = project.cli("status").stdout.splitlines()
    assert table[0].split()[-2:] == ["waiting", "for"] and table[2].split()[-1] == "ann"
    assert json.loads(project.cli("status", "--json").stdout)[0]["waitingFor"] == ["ann"] == fast()[0]["waitingFor"]
    from discuss.site.collect import collect
    from discuss.site.render import question_section

    page = question_section(collect(project.content)[0][0])
    assert 'data-waiting-for="ann"' in page and "Waiting for <bdi>Ann</bdi>: the run stopped at their form" in page
    assert project.cli("reply", "swarm-power", "--as", "ann", input=ANSWER).exit_code == 0
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 3  # her ballot
    assert fast()[0]["waitingFor"] == ["ann"]
    meta, _ = documents.read(project.folder / "for-people" / "round-1-vote-ann.md")
    assert project.cli("vote", "swarm-power", "--as", "ann", input=ballot_yaml(meta["labels"])).exit_code == 0
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    assert fast()[0]["waitingFor"] == [] and project.cli("status").stdout.splitlines()[2].split()[-1] == "-"
