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

from ..errors import InputError
from ..store import yamlio
from ..store.layout import Layout, confined
from ..text.naming import is_safe_id
from . import charts

FOLDER = "evals"  # the site's pages, evals/NAME.md; the project's folder of the same name holds the evals


def reports(docs_dir: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Every eval's report by name, read from the project around the docs folder, and warnings."""
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
        data["published"] = _published(root, name, warnings)  # whatever the file said under that key: ours
        found[name] = data
    return found, warnings


TABLES = ("items.csv", "arms.csv")  # published beside the eval's page, linked from it
MAX_TABLE = 8 << 20  # a table larger than this is not published (a report's table of 10,000 items is ~1 MB)


def _published(root: Path, name: str, warnings: list[str]) -> dict[str, Any]:
    """The eval's tables as the site publishes them (name -> text) and its items table's rows, each read only
    where it lies inside the project and is not too large; where the item discussions are, from the root."""
    import csv
    import io


    tables: dict[str, str] = {}
    for table in TABLES:
        path = root / FOLDER / name / table
        if not path.is_file():
            continue
        try:
            confined(path, root, what=f"{FOLDER}/{name}/{table}")
            if path.stat().st_size > MAX_TABLE:
                raise ValueError(f"larger than {MAX_TABLE >> 20} MB")
            tables[table] = path.read_text(encoding="utf-8")
        except (InputError, OSError, ValueError, UnicodeDecodeError) as exc:
            warnings.append(f"{FOLDER}/{name}/{table} is not published ({exc})")
    rows = [r for r in csv.DictReader(io.StringIO(tables.get("items.csv", "")))][:10_000]
    return {"tables": tables, "items": rows, "record": f"{FOLDER}/{name}"}


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


def view(name: str, report: dict[str, Any], repository: str | None = None) -> dict[str, Any]:
    """What the template shows of a report, each figure checked; `repository`, the address item records are
    linked at (the site's repo_url), if any."""
    arms: list[dict[str, Any]] = []
    for arm, figures in report["arms"].items():
        figures = figures if isinstance(figures, dict) else {}
        arms.append({"name": str(arm), "accuracy": share(figures.get("accuracy")),
                     **{k: number(figures.get(k)) for k in ("items", "correct", "ungradable", "ungradableShare",
                                                            "callsPerItem", "tokensPerItem", "costPerItem",
                                                            "computeRatio")},
                     "equalCompute": figures.get("equalCompute") is not False,
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
    published: dict[str, Any] = report["published"] if isinstance(report.get("published"), dict) else {}
    return {"name": name, "set": str(report.get("set") or name), "source": str(report.get("source") or ""),
            "provenance": _provenance(report.get("provenance")), "rule": str(report.get("rule") or ""),
            "tables": [t for t in TABLES if t in (published.get("tables") or {})],
            "independence": {k: number(v) for k, v in (report["independence"].items() if isinstance(
                report.get("independence"), dict) else ()) if k in ("members", "errorCorrelation", "effectiveVoters")},
            "items_table": _items(published, arms, repository),
            "licence": str(report.get("licence") or ""), "items": number(report.get("items")), "arms": arms,
            "chart": Markup(charts.interval_chart(drawn, "Accuracy per arm, with its 95% interval")) if drawn else "",
            "byRound": Markup(charts.line_chart(rounds, "Accuracy after each round", 100, "% right")) if rounds else "",
            "paired": paired, "conformity": conformity, "number": number,
            "families": [str(f) for f in diversity.get("families") or []], "oneFamily": diversity.get("oneFamily") is True}


def _provenance(found: Any) -> dict[str, Any]:
    """The report's provenance as plain text fields (each escaped by the template): who, what, when, how."""
    p: dict[str, Any] = found if isinstance(found, dict) else {}
    members = [m for m in p.get("members") or [] if isinstance(m, dict)]
    grader: dict[str, Any] = p["grader"] if isinstance(p.get("grader"), dict) else {}
    statistics: dict[str, Any] = p["statistics"] if isinstance(p.get("statistics"), dict) else {}
    return {"panel": str(p.get("panel") or ""), "date": str(p.get("date") or ""),
            "version": str(p.get("discussVersion") or ""), "command": str(p.get("command") or ""),
            "setDigest": str(p.get("setDigest") or ""), "seed": str(p.get("seed") if p.get("seed") is not None else ""),
            "settingsDigest": str(p.get("settingsDigest") or ""), "rule": str(grader.get("rule") or ""),
            "members": [(str(m.get("id") or ""), str(m.get("model") or "")) for m in members],
            "statistics": [(str(k), str(v)) for k, v in statistics.items()]}


def _items(published: dict[str, Any], arms: list[dict[str, Any]], repository: str | None) -> list[dict[str, Any]]:
    """A row per item: its expected answer and, per arm, what was read and whether it was right, with where its
    record is (a protocol arm's discussion folder, a baseline's answers file) and its address in the
    repository where the site names one."""
    names = [a["name"] for a in arms]
    rows: dict[str, dict[str, Any]] = {}
    for r in published.get("items") or []:
        item, arm = str(r.get("item") or ""), str(r.get("arm") or "")
        if not is_safe_id(item) or arm not in names:
            continue
        row = rows.setdefault(item, {"item": item, "answer": str(r.get("answer") or ""), "arms": {}})
        folder = arm.replace(":", "-")
        kind = "baseline" if arm == "majority" or arm.startswith(("single:", "self-consistency:")) else "protocol"
        record = f"{published.get('record')}/{folder}/{item}" + ("/" if kind == "protocol" else ".yaml")
        row["arms"][arm] = {"read": str(r.get("read") or ""), "right": {"True": True, "False": False}.get(
            str(r.get("correct"))), "record": record, "href": _address(repository, record)}
    return list(rows.values())


def _address(repository: str | None, path: str) -> str | None:
    """A file of the project in the repository's web view (GitHub's and GitLab's form), at its default branch;
    None where the site names no repository, or a scheme a link may not have."""
    if not repository or not repository.startswith(("https://", "http://")):
        return None
    base = repository.rstrip("/")
    return f"{base}/-/tree/HEAD/{path}" if "gitlab" in base else f"{base}/tree/HEAD/{path}"
