"""The site once the world answered: a resolved question's page shows its outcome first (what happened, the
decision borne out or not, the panel's and each member's probability), its forecasts by round; the track record
page grades the panels with a calibration chart."""

from __future__ import annotations

from discuss.store.files import write_atomic
from sitekit import MKDOCS, build
from test_forecasts import CASES, forecasting  # noqa: F401 - the fixture
from test_site import page


def resolved_site(project) -> object:
    for slug, (_, answer) in CASES.items():
        assert project.cli("resolve", slug, "--outcome", f"It **turned out** {answer}.", "--answer", answer).exit_code == 0
    write_atomic(project.root / "mkdocs.yml", MKDOCS)
    write_atomic(project.content / "index.md", "# Home\n")
    return build(project.root)


def test_the_outcome_comes_first_on_a_resolved_questions_page(forecasting):  # noqa: F811
    site = resolved_site(forecasting)
    html = page(site, "questions/q-three")
    outcome, conclusion = html.index("discuss-outcome"), html.index("discuss-conclusion")
    assert outcome < conclusion and html.index("What happened: yes") < conclusion
    box = html[outcome:html.index("</div>", outcome)]
    assert "<strong>turned out</strong>" in box and "the panel's probability of yes was 0.30" in box
    assert "Ann 0.60, Bob 0.00, Cy -" in box
    rows = html[html.index("discuss-forecasts"):]
    assert "<td>Round 1</td><td>0.50</td><td>0.50</td><td>0.50</td>" in rows
    assert "<td>Round 2</td><td>0.60</td><td>0.00</td><td>-</td>" in rows


def test_the_track_record_page_has_the_scores_and_a_calibration_chart(forecasting):  # noqa: F811
    site = resolved_site(forecasting)
    html = page(site, "track-record")
    assert "4 resolved questions, 4 with forecasts graded" in html
    assert 'data-member="ann"' in html and "0.07" in html  # ann's Brier, 0.075, to two places
    assert "discuss-calibration" in html and "<circle" in html
