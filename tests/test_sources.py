"""Grounding sources: every panelist reads them, labelled; hashes recorded; changes warned; bad ones refused."""

from __future__ import annotations

import hashlib
import re

from conftest import fake_panel
from discuss.store import discussions as store
from fakeserver import DEFAULT, Action

QUESTION = """---
title: How should swarm power be distributed?
slug: swarm-power
sources: [notes.md, data/*.csv, paper.pdf, "https://example.org/report"]
---

Which architecture should carry power between units?
"""


def make_pdf(text: str) -> bytes:
    """A one-page PDF with one line of text, written by hand: objects, then the cross-reference table."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (n, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def grounded(project):
    project.question.write_text(QUESTION)
    base = project.question.parent
    (base / "notes.md").write_text("# Notes\n\nBus voltage is 48 V.\n")
    (base / "data").mkdir()
    (base / "data" / "a.csv").write_text("unit,watts\nalpha,120\n")
    (base / "data" / "b.csv").write_text("unit,watts\nbeta,80\n")
    (base / "paper.pdf").write_bytes(make_pdf("Solar flux is 1361 W per square metre"))
    return base


def test_every_panelist_reads_every_source_labelled(project, fake):
    base = grounded(project)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q")
    assert result.exit_code == 0, result.output
    answers = [r["messages"][-1]["content"] for r in fake.requests if r["task"] == "respond"]
    assert len(answers) == 3
    for prompt in answers:
        for label, ref, text in (("S1", "notes.md", "Bus voltage is 48 V."), ("S2", "data/a.csv", "alpha,120"),
                                 ("S3", "data/b.csv", "beta,80"), ("S4", "paper.pdf", "Solar flux is 1361"),
                                 ("S5", "https://example.org/report", "not fetched")):
            assert f"### [{label}] {ref}" in prompt and text in prompt, (label, prompt[-1500:])
        assert "Cite a source as [S1]" in prompt
    recorded = store.load(project.folder).sources
    assert [s["label"] for s in recorded] == ["S1", "S2", "S3", "S4", "S5"]
    assert recorded[0] == {"label": "S1", "path": "notes.md", "characters": len("# Notes\n\nBus voltage is 48 V.\n"),
                           "sha256": hashlib.sha256((base / "notes.md").read_bytes()).hexdigest()}
    assert recorded[4] == {"label": "S5", "url": "https://example.org/report"}
    shown = project.cli("show", "swarm-power")
    assert "source S4: paper.pdf sha256 " in shown.output


def test_a_changed_source_is_named_on_the_next_run(project, fake):
    fake.termination = "CONTINUE"  # so there is a next run
    base = grounded(project)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    first = store.load(project.folder).sources
    (base / "data" / "b.csv").write_text("unit,watts\nbeta,95\n")
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q")
    assert result.exit_code == 0, result.output
    assert "source S3 (data/b.csv) changed since the discussion started" in result.stderr
    assert "S1" not in result.stderr.replace("S3", "")
    assert store.load(project.folder).sources == first  # what round 1 read stays on record
    latest = [r["messages"][-1]["content"] for r in fake.requests if r["task"] == "respond"][-1]
    assert "beta,95" in latest  # the panel reads the source as it is now


def test_a_missing_or_outside_source_stops_before_any_call(project, fake):
    grounded(project)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    (project.question.parent / "paper.pdf").unlink()
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 2 and "source 'paper.pdf' names no readable file" in result.stderr, result.output
    project.question.write_text(QUESTION.replace("paper.pdf", "../../../etc/hostname"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 2 and ("outside the project" in result.stderr or "no readable" in result.stderr)
    project.question.write_text(QUESTION.replace("paper.pdf", "data/*.pdf"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 2 and "data/*.pdf" in result.stderr
    (project.question.parent / "paper.pdf").write_bytes(b"%PDF-1.4 broken")
    project.question.write_text(QUESTION)
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 2 and "not a readable PDF" in result.stderr, result.output
    assert fake.requests == [] and not project.folder.exists()


def test_a_long_source_is_cut_to_its_share_with_a_note(project, fake):
    grounded(project)
    (project.question.parent / "notes.md").write_text("word " * 5000)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, sourceTokens: 1000}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    prompt = next(r["messages"][-1]["content"] for r in fake.requests if r["task"] == "respond")
    from discuss.text.tokens import count

    kept = int(re.search(r"\[cut: the first (\d+) of 25000 characters\]", prompt).group(1))
    text = "word " * 5000
    assert count(text[:kept]) <= 1000 // 5 < count(text[:kept + 5])  # as much as its share of tokens holds
    assert "alpha,120" in prompt  # the other sources keep their share


def test_the_page_lists_sources_and_who_cites_them(project, fake):
    grounded(project)
    fake.script("beta", Action(text="Per [S4] and [S2], distribute at 48 V."), DEFAULT)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    from sitekit import build

    (project.root / "mkdocs.yml").write_text("site_name: t\ndocs_dir: content\ntheme:\n  name: material\n"
                                              "plugins:\n  - discuss\n")
    html = (build(project.root) / "questions" / "swarm-power" / "index.html").read_text()
    rows = dict(__import__("re").findall(r'<tr data-source="(S\d)" id="source-S\d">(.*?)</tr>', html))
    assert set(rows) == {"S1", "S2", "S3", "S4", "S5"}
    assert "<bdi>Beta</bdi> (round 1)" in rows["S4"] and "<bdi>Beta</bdi> (round 1)" in rows["S2"]
    assert "none" in rows["S1"]
    assert "<code>paper.pdf</code>" in rows["S4"]
    assert '<a href="https://example.org/report" rel="noopener noreferrer nofollow">https://example.org/report</a> ' \
        "(not fetched)" in rows["S5"]


def test_citations_link_to_their_source_and_bad_ones_are_marked_where_they_are_made(project, fake):
    grounded(project)
    fake.script("beta", Action(text='As [S1] puts it, "Bus voltage is 48 V" [S1]; yet "the bus runs at nine '
                                    'hundred volts" [S1], and [S9] agrees.'), DEFAULT)
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    from sitekit import build

    (project.root / "mkdocs.yml").write_text("site_name: t\ndocs_dir: content\ntheme:\n  name: material\n"
                                              "plugins:\n  - discuss\n")
    html = (build(project.root) / "questions" / "swarm-power" / "index.html").read_text()
    marks = re.findall(r'<(a|span) class="discuss-cite([^"]*)" data-cite="(S\d)"(?: href="([^"]*)")? title="([^"]*)">'
                       r'\[S\d\]([^<]*)</\1>', html)
    assert [(kind.strip(), label, href, sign) for _, kind, label, href, _, sign in marks] == [
        ("", "S1", "#source-S1", ""), ("", "S1", "#source-S1", ""),
        ("discuss-cite-unfound", "S1", "#source-S1", "\u26a0"), ("discuss-cite-unknown", "S9", "", "\u26a0")]
    assert "not found in it" in marks[2][4] and "is not a source" in marks[3][4]
    assert 'id="source-S1"' in html and 'id="source-S9"' not in html


def test_a_frozen_page_is_listed_by_its_address_and_title_not_its_path(project, fake):
    frozen = project.root / "sources" / "swarm-power" / "bus-notes.md"
    frozen.parent.mkdir(parents=True, exist_ok=True)
    frozen.write_text("---\nurl: https://example.org/bus\nfinalUrl: https://example.org/bus\n"
                      "fetchedAt: '2026-11-01T00:00:00Z'\ntitle: Notes on the bus\n---\n\nBus voltage is 48 V.\n")
    question_with_sources(project, "../../sources/swarm-power/bus-notes.md")
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q").exit_code == 0
    from sitekit import build

    (project.root / "mkdocs.yml").write_text("site_name: t\ndocs_dir: content\ntheme:\n  name: material\n"
                                              "plugins:\n  - discuss\n")
    html = (build(project.root) / "questions" / "swarm-power" / "index.html").read_text()
    row = re.search(r'<tr data-source="S1" id="source-S1">(.*?)</tr>', html).group(1)
    assert 'Notes on the bus<br><a href="https://example.org/bus"' in row
    assert "frozen as <code>sources/swarm-power/bus-notes.md</code>" in row and "../" not in row


ENV_KEY = "sk-proj-Zq8X2mL4vB7nR1tY6wK3pF9s"  # a key kept in the project's .env, not in the environment


def question_with_sources(project, *sources: str) -> None:
    listed = ", ".join(f"'{s}'" for s in sources)
    project.question.write_text(QUESTION.replace(
        "[notes.md, data/*.csv, paper.pdf, \"https://example.org/report\"]", f"[{listed}]"))


def test_settings_hidden_and_key_files_are_never_sources(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    (project.root / ".env").write_text(f"OPENAI_API_KEY={ENV_KEY}\n")
    (project.root / ".git").mkdir()
    (project.root / ".git" / "config").write_text("[remote]\n")
    (project.question.parent / ".notes.md").write_text("hidden\n")
    (project.question.parent / "id_rsa").write_text("key\n")
    (project.question.parent / "api-credentials.md").write_text("key\n")
    (project.root / "notes").mkdir()
    (project.root / "notes" / "study.md").write_text("A study.\n")
    for source in ("../../.env", "../../.git/config", "../../discussions/panels.yaml", ".notes.md", "id_rsa",
                   "api-credentials.md", "../../notes/study.md", "../../**/*.yaml"):
        question_with_sources(project, source)
        result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
        assert result.exit_code == 2, (source, result.output)
        assert "refused" in result.stderr or "outside the project" in result.stderr, (source, result.stderr)
    assert fake.requests == [] and not project.folder.exists()
    # a folder beside content/ is a source once panels.yaml says so
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    panels = project.root / "discussions" / "panels.yaml"
    panels.write_text(panels.read_text() + "sourceFolders: [notes]\n")
    question_with_sources(project, "../../notes/study.md")
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 0, result.output
    assert "A study." in fake.requests[0]["messages"][-1]["content"]


def test_a_key_from_the_projects_env_file_is_scrubbed_and_a_key_format_is_not(project, fake):
    (project.root / ".env").write_text(f"export LOCAL_SERVER_TOKEN='{ENV_KEY}'\n")
    fake.script("alpha", Action(text=f"The server took {ENV_KEY[8:24]} as its key."))
    fake.script("beta", Action(text="Project keys start with sk-proj- and are long."))
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
    assert result.exit_code == 0, result.output
    d = store.load(project.folder)
    assert d.rounds[0].replies["alpha"].text == "The server took [redacted] as its key."
    assert d.rounds[0].replies["beta"].text == "Project keys start with sk-proj- and are long."


def test_a_trial_and_a_follow_up_read_the_sources_the_question_names(project, fake):
    """Their question files live deeper than the original (a folder a trial writes only later):
    a relative source still names the same file, in every shape (a path through `..`, a glob)."""
    (project.root / "sources").mkdir()
    (project.root / "sources" / "volts.md").write_text("Bus voltage is 48 V.\n")
    (project.root / "sources" / "a.csv").write_text("unit,watts\nalpha,120\n")
    question_with_sources(project, "../../sources/volts.md", "../../sources/*.csv")
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    trials = project.cli("trials", "swarm-power", "--runs", "1", "--panel", "fake")
    assert trials.exit_code == 0, trials.output
    asked = [r["messages"][-1]["content"] for r in fake.requests if r["task"] == "respond"]
    assert asked and all("Bus voltage is 48 V." in p and "alpha,120" in p for p in asked)
    ran = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "-q", "--conclude")
    assert ran.exit_code == 0, ran.output
    fake.requests.clear()
    follow = project.cli("follow-up", "swarm-power", "And in eclipse?", "--rounds", "1", "-q")
    assert follow.exit_code == 0, follow.output
    asked = [r["messages"][-1]["content"] for r in fake.requests if r["task"] == "respond"]
    assert asked and all("Bus voltage is 48 V." in p for p in asked)
