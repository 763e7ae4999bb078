"""Figures as text for a terminal: a plain table in aligned columns, dollars to four places (or "-")."""

from __future__ import annotations


def money(cost: float | None) -> str:
    return "-" if cost is None else f"${cost:.4f}"


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    fmt = lambda row: "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])
