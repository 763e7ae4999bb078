"""The bias experiments (`discuss audit`) kept beside a discussion, read back: figures and lines by round.

One reading for `show`, `show --json`, the page and `export`: the re-asked
ballots on disk (`store.audits`) through the discussion protocol's
experiment. A protocol with no experiment, or a discussion never audited,
has none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..domain import Discussion
from ..protocols import get_protocol
from ..store.audits import ballots


def figures_by_round(folder: Path, d: Discussion) -> dict[int, dict[str, Any]]:
    """Each audited round's figures (panel and voters), with its number of ballots."""
    experiment = get_protocol(d.protocol).figures.bias_experiment()
    if experiment is None:
        return {}
    return {n: {**experiment.figures(kept), "ballots": len(kept)} for n, kept in ballots(folder).items()}


def lines(folder: Path, d: Discussion) -> list[str]:
    """Each audited round under a line of its own, as `show` and the page give them."""
    experiment = get_protocol(d.protocol).figures.bias_experiment()
    found = figures_by_round(folder, d)
    if experiment is None or not found:
        return []
    names = {m.id: m.name for m in d.panel.members}
    out = []
    for number, figures in found.items():
        out.append(f"round {number}, its voters asked again ({figures['ballots']} ballots):")
        out += experiment.lines(figures, names)
    return out


def by_round_json(folder: Path, d: Discussion) -> dict[str, dict[str, Any]]:
    """The figures of every experiment run on a discussion's rounds, by round number (as text, for JSON)."""
    return {str(n): found for n, found in figures_by_round(folder, d).items()}


def shown_lines(folder: Path, d: Discussion) -> list[str]:
    """What `show` prints of the experiments run on a discussion's rounds: none where none was."""
    found = lines(folder, d)
    return ["", "Bias experiment (`discuss audit`): approval of the answer shown first minus the one shown last, "
            "and of a padded copy minus the original", *found] if found else []
