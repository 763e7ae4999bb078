"""The site's evaluation pages: one per eval of the project (`evals/NAME/report.yaml`), apart from the archive.

An eval's item discussions never reach the archive's index; its page shows the report: accuracy per arm
with its interval, accuracy by round, the paired comparisons, conformity and the panel's diversity. A
report is a file of a pull request like any other: every figure is checked to be a number before it is
drawn, every name is escaped, and a report that cannot be read is a warning, not a failed build.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ..text.naming import is_safe_id
from . import charts

FOLDER = "evals"  # the site's pages, evals/NAME.md; the project's folder of the same name holds the evals


def reports(docs_dir: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Every eval's report by name, read from the project around the docs folder, and warnings."""
    from ..errors import InputError
    from ..store import yamlio
    from ..store.layout import Layout, confined

    try:
        root = Layout.find(docs_dir).root
    except Exception:  # noqa: BLE001 - a docs folder outside any project has no evals
        return {}, []
    found: dict[str, dict[str, Any]] = {}
    warnings = []
    for path in sorted((root / FOLDER).glob("*/report.yaml")):
        name = path.parent.name
        try:
            data = yamlio.load(confined(path, root, what=f"{FOLDER}/{name}/report.yaml").read_text(encoding="utf-8"))
        except InputError as exc:
            warnings.append(f"{exc}: its page is not published")
            continue
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            warnings.append(f"{FOLDER}/{name}/report.yaml cannot be read ({exc}): its page is not published")
            continue
        if name == "index":  # the list of evals has that page
            warnings.append(f"{FOLDER}/index/: an eval cannot be called index on the site: its page is not published")
            continue
        if not is_safe_id(name) or not isinstance(data, dict) or not isinstance(data.get("arms"), dict):
            warnings.append(f"{FOLDER}/{name}/report.yaml is not an eval's report: its page is not published")
            continue
        found[name] = data
    return found, warnings


def number(value: Any) -> float | None:
    """A figure from the file, or None: booleans, text and infinities are no figures."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def share(value: Any) -> dict[str, float] | None:
    """`{estimate, low, high}` as three numbers between 0 and 1, or None."""
    if not isinstance(value, dict):
        return None
    got = [number(value.get(k)) for k in ("estimate", "low", "high")]
    if any(v is None or not 0 <= v <= 1 for v in got):
        return None
    estimate, low, high = (float(v or 0) for v in got)
    return {"estimate": estimate, "low": low, "high": high}


def view(name: str, report: dict[str, Any]) -> dict[str, Any]:
    """What the template shows of a report, each figure checked."""
    arms: list[dict[str, Any]] = []
    for arm, figures in report["arms"].items():
        figures = figures if isinstance(figures, dict) else {}
        arms.append({"name": str(arm), "accuracy": share(figures.get("accuracy")),
                     **{k: number(figures.get(k)) for k in ("items", "correct", "ungradable", "callsPerItem",
                                                            "tokensPerItem", "costPerItem")},
                     "byRound": [r for r in (figures.get("byRound") or []) if isinstance(r, dict)]})
    rounds = {a["name"]: [(int(r["round"]), s["estimate"] * 100) for r in a["byRound"]
                          if number(r.get("round")) is not None and (s := share(r))] for a in arms}
    rounds = {k: v for k, v in rounds.items() if v}
    drawn = [(a["name"], *a["accuracy"].values()) for a in arms if a["accuracy"]]
    paired = {str(k): v for k, v in (report.get("paired") or {}).items() if isinstance(v, dict)}
    conformity = {str(arm): {str(p): row for p, row in rows.items() if isinstance(row, dict)}
                  for arm, rows in (report.get("conformity") or {}).items() if isinstance(rows, dict)}
    found = report.get("diversity")
    diversity: dict[str, Any] = found if isinstance(found, dict) else {}
    return {"name": name, "set": str(report.get("set") or name), "source": str(report.get("source") or ""),
            "licence": str(report.get("licence") or ""), "items": number(report.get("items")), "arms": arms,
            "chart": Markup(charts.interval_chart(drawn, "Accuracy per arm, with its 95% interval")) if drawn else "",
            "byRound": Markup(charts.line_chart(rounds, "Accuracy after each round", 100, "% right")) if rounds else "",
            "paired": paired, "conformity": conformity, "number": number,
            "families": [str(f) for f in diversity.get("families") or []], "oneFamily": diversity.get("oneFamily") is True}
