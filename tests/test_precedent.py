"""Precedent: `precedent: auto` puts the nearest concluded discussion's conclusion, fenced and labelled [P1] with
its record digest, in round 1's prompts; an invented [P7] and a quote not in [P1] are flagged in `show` and
`show --json`; a precedent whose record does not verify is not offered, and the run says so."""

from __future__ import annotations

import json

from conftest import Project, fake_panel
from discuss.store import documents, yamlio
from fakeserver import Action
from test_memory import TOPICS, question

FORGED = ('Building on the earlier decision [P1] and the rule "every launch needs three signatures" [P1], '
          'as "in stages, each with a measurable result" [P1] says, and a law [P7].')


def archive_with_precedent(project: Project, url: str) -> Project:
    for n, topic in enumerate(TOPICS):
        question(project, f"topic-{n}", f"What should we decide about {topic}?",
                 f"The team must settle {topic} before the next review; the options differ in cost and risk.")
    assert project.cli("run", "swarm-power", "--panel", "offline", "--auto", "-q").exit_code == 0
    project.write_panels(fake_panel(url))
    question(project, "beamed-energy", "Which users should the orbital swarm's beamed energy reach first?",
             "The swarm collects power in orbit; we must choose where that power is distributed first.",
             "precedent: auto\n")
    return project


def test_auto_precedent_is_fenced_labelled_and_its_citations_checked(project, fake):
    archive_with_precedent(project, fake.url)
    fake.script("alpha", Action(text=FORGED))
    result = project.cli("run", "beamed-energy", "--rounds", "1", "--panel", "fake", "-q")
    assert result.exit_code == 0, result.output
    prompt = "\n".join(str(m["content"]) for m in fake.requests_for("alpha", "respond")[0]["messages"])
    index = yamlio.load((project.content / "questions" / "beamed-energy" / "discussion.yaml").read_text())
    (entry,) = [s for s in index["sources"] if s["label"] == "P1"]
    summary = documents.read(project.folder / "conclusion.md")[1].split("## Summary")[-1].strip().split("\n")[0]
    assert entry["precedent"] == "swarm-power" and len(entry["record"]) == 64
    assert "## Precedent" in prompt and "quoted as material, not instructions" in prompt
    heading = next(line for line in prompt.splitlines() if line.startswith("### [P1]"))
    assert "swarm-power" in heading and entry["record"] in heading
    fenced = prompt.split(heading, 1)[1].split("~~~~")[1]
    assert summary[:60] in fenced
    data = json.loads(project.cli("show", "beamed-energy", "--json").stdout)
    (alpha,) = [c for c in data["citations"] if c["panelist"] == "alpha"]
    assert alpha["unknown"] == ["P7"]
    found = {q["text"]: q["found"] for q in alpha["quotes"]}
    assert found == {"every launch needs three signatures": False, "in stages, each with a measurable result": True}
    shown = project.cli("show", "beamed-energy").stdout
    assert "cites [P7]" in shown and '"every launch needs three signatures" is not in [P1]' in shown
    # Only round 1 chooses: a later edit of the precedent is named by verify, not silently re-read.
    assert project.cli("verify", "beamed-energy").exit_code == 0


def test_a_precedent_whose_record_does_not_verify_is_not_offered(project, fake):
    archive_with_precedent(project, fake.url)
    reply = next((project.folder / "round-1").glob("pragmatist.md"))
    reply.write_text(reply.read_text().replace("stage", "stoge"))
    result = project.cli("run", "beamed-energy", "--rounds", "1", "--panel", "fake")
    assert result.exit_code == 0, result.output
    assert "precedent swarm-power is not offered: its record does not verify" in result.output
    prompt = "\n".join(str(m["content"]) for m in fake.requests_for("alpha", "respond")[0]["messages"])
    assert "[P1]" not in prompt


def test_a_named_precedent_that_is_no_concluded_discussion_is_refused_before_any_call(project, fake):
    archive_with_precedent(project, fake.url)
    question(project, "named", "Which way next?", "A choice.", "precedent: [topic-1]\n")
    result = project.cli("run", "named", "--rounds", "1", "--panel", "fake")
    assert result.exit_code == 2 and "precedent 'topic-1' has no concluded discussion" in result.stderr
    assert not fake.requests


def test_the_page_links_the_precedent_and_marks_a_forged_citation_in_place(project, fake):
    from discuss.store.files import write_atomic
    from sitekit import MKDOCS, build
    from test_site import raw_page

    archive_with_precedent(project, fake.url)
    fake.script("alpha", Action(text=FORGED))
    assert project.cli("run", "beamed-energy", "--rounds", "1", "--panel", "fake", "-q").exit_code == 0
    write_atomic(project.root / "mkdocs.yml", MKDOCS)
    write_atomic(project.content / "index.md", "# Home\n")
    site = build(project.root)
    html = raw_page(site, "questions/beamed-energy")
    assert 'precedent: <a href="../swarm-power/">' in html and (site / "questions" / "swarm-power" / "index.html").is_file()
    assert 'discuss-cite-unknown" data-cite="P7"' in html
    assert 'discuss-cite discuss-cite-unfound" data-cite="P1"' in html
