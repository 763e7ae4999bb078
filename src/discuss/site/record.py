"""The site's track record page: `discuss scores` as tables, with a calibration chart."""

from __future__ import annotations

from pathlib import Path

from markupsafe import Markup

from ..archive.scores import resolved, scores
from .charts import calibration_chart
from .render import ENV, labelled


def track_record_page(content: Path) -> str:
    """The track record of the resolved questions under `content`, as the site's page shows it."""
    items, warnings = resolved(content)
    found = scores(items)
    bins = found["calibration"]["members"]
    chart = Markup(calibration_chart(bins, "Calibration of the members' forecasts")) if any(b["n"] for b in bins) \
        else None
    return labelled(ENV.get_template("record.html.j2").render(s=found, chart=chart, warnings=warnings))
