"""The site's evaluation pages: one per eval with its figures, a list of them, and the eval's item discussions
kept out of the archive's index; a report from a pull request is drawn only where its figures are numbers."""

from __future__ import annotations

import re

from sitekit import MKDOCS, build


def site_of(project):
    (project.root / "mkdocs.yml").write_text(MKDOCS)
    (project.content / "index.md").write_text("# Home\n")
    return build(project.root)


def test_an_eval_has_its_page_and_its_items_stay_out_of_the_archive(project):
    ran = project.cli("eval", "arithmetic", "--panel", "offline", "--items", "2", "--arms", "vote,majority", "-q")
    assert ran.exit_code == 0, ran.output
    site = site_of(project)
    page = (site / "evals" / "arithmetic" / "index.html").read_text()
    assert 'data-arm="vote"' in page and 'data-arm="majority"' in page
    assert "Accuracy per arm, with its 95% interval" in page and "Accuracy after each round" in page
    assert "the same 2 labelled items" in page and "one model family (offline)" in page
    assert re.search(r"<td[^>]*>vote vs majority</td><td[^>]*>\+0\.00</td>", page)
    listed = (site / "evals" / "index.html").read_text()
    assert "arithmetic" in listed and "vote 0%" in listed
    index = (site / "discussions" / "index.html").read_text()
    assert "swarm-power" in index and "a0001" not in index and "What is the result" not in index


def test_a_hostile_report_is_escaped_and_drawn_only_from_numbers(project):
    folder = project.root / "evals" / "tampered"
    folder.mkdir(parents=True)
    (folder / "report.yaml").write_text(
        "set: '<img src=x onerror=alert(1)>'\nitems: 4\narms:\n"
        "  '<script>alert(1)</script>':\n    accuracy: {estimate: 0.5, low: 0.2, high: 0.8}\n    items: 4\n"
        "  wrong:\n    accuracy: {estimate: '1', low: .nan, high: 7}\n    items: yes\n    byRound: [1, {round: x}]\n"
        "paired: {a vs b: {difference: '<b>', pValue: .inf}}\nconformity: {wrong: [1, 2]}\ndiversity: 3\n")
    broken = project.root / "evals" / "broken"
    broken.mkdir()
    (broken / "report.yaml").write_text("- not a report\n")
    site = site_of(project)
    page = (site / "evals" / "tampered" / "index.html").read_text()
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "50% (20-80)" in page
    row = re.search(r'<tr data-arm="wrong">(.*?)</tr>', page, re.S)
    assert row and '<td data-label="Accuracy">-</td>' in row.group(1) and "100%" not in row.group(1)
    assert not (site / "evals" / "broken").exists()


def test_an_eval_file_that_links_outside_the_project_is_never_read(project, tmp_path):
    """A pull request may bring links: a report, an items table or a baseline answer that resolves outside the
    project is refused in words, and its text reaches no page, table or report."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "report.yaml").write_text("set: SECRET-REPORT\narms: {x: {accuracy: {estimate: 1, low: 1, high: 1}}}\n")
    (outside / "items.csv").write_text("set,arm\nSECRET-TABLE,x\n")
    (outside / "a0001.yaml").write_text("item: a0001\nanswers: [{member: pragmatist, sample: 0, text: 'SECRET'}]\n")
    linked = project.root / "evals" / "linked"
    linked.mkdir(parents=True)
    (linked / "report.yaml").symlink_to(outside / "report.yaml")
    (linked / "items.csv").symlink_to(outside / "items.csv")
    site = site_of(project)
    assert not (site / "evals" / "linked").exists()
    assert "SECRET-REPORT" not in "".join(p.read_text() for p in site.rglob("*.html"))
    exported = project.cli("export", "--csv", str(project.root / "out"))
    assert exported.exit_code == 2 and "outside the project" in exported.stderr
    single = project.root / "evals" / "arithmetic" / "single-pragmatist"
    single.mkdir(parents=True)
    (single / "a0001.yaml").symlink_to(outside / "a0001.yaml")
    ran = project.cli("eval", "arithmetic", "--panel", "offline", "--items", "1", "--arms", "single:pragmatist")
    assert ran.exit_code == 2 and "outside the project" in ran.stderr and "SECRET" not in ran.output


def test_an_eval_page_cites_its_provenance_marks_unequal_compute_and_links_its_items_and_tables(project):
    ran = project.cli("eval", "arithmetic", "--panel", "offline", "--items", "2", "--arms",
                      "vote,majority,self-consistency:skeptic", "--max-samples", "1", "-q")
    assert ran.exit_code == 0, ran.output
    (project.root / "mkdocs.yml").write_text(MKDOCS + "repo_url: https://github.com/example/research\n")
    (project.content / "index.md").write_text("# Home\n")
    site = build(project.root)
    page = (site / "evals" / "arithmetic" / "index.html").read_text()
    # The site's navigation stays (the page hides only its own table of contents).
    assert re.search(r'data-md-type="navigation"\s*>', page) and "Eval: arithmetic" in page
    # The one rule for a difference, the statistics by name, and where the figures come from.
    assert "interval clears zero" not in page and "McNemar's exact test over the items both answered" in page
    assert "Wilson score interval, 95%" in page and "2000 draws seeded by the eval&#39;s seed" in page
    assert "offline/skeptic" in page and "arithmetic-v1" in page and "<dt>Run</dt><dd>discuss " in page
    # Self-consistency capped at one sample is not at equal compute: marked on its arm and on every row it enters.
    arm = re.search(r'<tr data-arm="self-consistency:skeptic"([^>]*)>(.*?)</tr>', page, re.S)
    assert 'class="discuss-unequal"' in arm.group(1) and "not at equal compute" in arm.group(2)
    rows = re.findall(r'<tr data-pair="([^"]+)"([^>]*)>(.*?)</tr>', page, re.S)
    assert rows and all(("not at equal compute" in body) == ("self-consistency" in name) for name, _, body in rows)
    assert not re.search(r'data-arm="vote"[^>]*discuss-unequal', page)
    # Each item links to its record in the repository; the tables are published beside the page and linked.
    assert 'href="https://github.com/example/research/tree/HEAD/evals/arithmetic/vote/a0001/"' in page
    assert 'href="https://github.com/example/research/tree/HEAD/evals/arithmetic/majority/a0002.yaml"' in page
    for table in ("items.csv", "arms.csv"):
        assert f'href="{table}" download' in page
        assert (site / "evals" / "arithmetic" / table).read_text() == \
            (project.root / "evals" / "arithmetic" / table).read_text()
    listed = (site / "evals" / "index.html").read_text()
    assert "<th>Set</th>" not in listed and re.search(r'data-md-type="navigation"\s*>', listed)
