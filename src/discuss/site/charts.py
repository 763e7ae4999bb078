"""Charts as inline SVG strings: no script, no CDN, readable offline.

Every label passes through html.escape; numbers are formatted by us.
"""

from __future__ import annotations

from html import escape

PALETTE = ["#3f51b5", "#e91e63", "#009688", "#ff9800", "#9c27b0", "#607d8b", "#795548", "#4caf50"]


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


DASHES = ["", "6 3", "2 3", "8 3 2 3"]  # series told apart without colour too
FEW = 5  # a bar over fewer cases than this is drawn pale: its length says little


def bar_chart(items: list[tuple[str, float]], title: str, unit: str = "%", top: float = 100.0,
              samples: list[int] | None = None) -> str:
    """Horizontal bars, one per (label, value); with `samples`, each value says how many cases it is of, and a
    bar over fewer than FEW is pale, so 100% of one round never reads as the panel's best."""
    row, label_w, bar_w = 26, 180, 320
    height = row * len(items) + 36
    parts = [f'<svg class="discuss-chart" role="img" viewBox="0 0 {label_w + bar_w + 70} {height}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
             f'<text x="0" y="16" class="discuss-chart-title">{escape(title)}</text>']
    for i, (label, value) in enumerate(items):
        y = 30 + i * row
        width = 0 if top <= 0 else max(0.0, min(value / top, 1.0)) * bar_w
        n = samples[i] if samples else None
        pale = ' fill-opacity="0.35"' if n is not None and n < FEW else ""
        of = f" of {n}" if n is not None else ""
        parts.append(f'<text x="0" y="{y + 14}">{escape(label)}</text>'
                     f'<rect x="{label_w}" y="{y}" width="{width:.1f}" height="18" fill="{color(i)}"{pale}/>'
                     f'<text x="{label_w + width + 6:.1f}" y="{y + 14}">{value:g}{escape(unit)}{of}</text>')
    parts.append("</svg>")
    return "".join(parts)


def line_chart(series: dict[str, list[tuple[int, float]]], title: str, top: float, y_title: str = "") -> str:
    """One polyline per series over rounds 1..n, with axis titles and a legend; none for a single round."""
    xs = sorted({x for points in series.values() for x, _ in points})
    if len(xs) < 2 or top <= 0:
        return ""  # one point is no trend: the figure is on the page already
    left, width, plot_h, legend_h = 56, 400, 160, 20 * len(series)
    span = max(xs[-1] - xs[0], 1)
    px = lambda x: left + (x - xs[0]) / span * width  # noqa: E731
    py = lambda y: 30 + plot_h - max(0.0, min(y / top, 1.0)) * plot_h  # noqa: E731
    height = 30 + plot_h + 46 + legend_h
    parts = [f'<svg class="discuss-chart" role="img" viewBox="0 0 {left + width + 20} {height}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
             f'<text x="0" y="16" class="discuss-chart-title">{escape(title)}</text>',
             f'<line x1="{left}" y1="{30 + plot_h}" x2="{left + width}" y2="{30 + plot_h}" stroke="#999"/>',
             *(f'<line x1="{left}" y1="{py(t):.1f}" x2="{left + width}" y2="{py(t):.1f}" stroke="#999" '
               f'stroke-opacity="0.3"/><text x="{left - 8}" y="{py(t) + 4:.1f}" text-anchor="end">{t:g}</text>'
               for t in ticks(top)),
             f'<text x="{left + width / 2:.1f}" y="{30 + plot_h + 36}" text-anchor="middle" '
             f'class="discuss-axis-title">round</text>']
    if y_title:
        parts.append(f'<text transform="translate(14 {30 + plot_h / 2:.1f}) rotate(-90)" text-anchor="middle" '
                     f'class="discuss-axis-title">{escape(y_title)}</text>')
    for x in xs:
        parts.append(f'<text x="{px(x) - 4:.1f}" y="{30 + plot_h + 16}">{x}</text>')
    seen: dict[tuple[tuple[int, float], ...], str] = {}
    for i, (name, points) in enumerate(series.items()):
        coords = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(points))
        dash = f' stroke-dasharray="{DASHES[i % len(DASHES)]}"' if DASHES[i % len(DASHES)] else ""
        parts.append(f'<polyline fill="none" stroke="{color(i)}" stroke-width="2"{dash} points="{coords}"/>')
        parts += [f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color(i)}"/>' for x, y in points]
        # A series drawn exactly over another is said to be so, or its legend entry names a line nobody sees.
        same = seen.setdefault(tuple(sorted(points)), name)
        label = name if same == name else f"{name} (the same as {same})"
        ly = 30 + plot_h + 58 + i * 20
        parts.append(f'<rect x="{left}" y="{ly - 10}" width="12" height="12" fill="{color(i)}"/>'
                     f'<text x="{left + 18}" y="{ly}">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def ticks(top: float) -> list[float]:
    """0, the quarters and the top of a value axis, as round numbers."""
    return [round(top * k / 4, 3) for k in range(5)]


def bracket(rounds: list[dict], names: dict[str, str], title: str = "Bracket") -> str:
    """A knockout bracket: one column per match round, the champion last.

    `rounds` holds each match round's notes: {"matches": [{a, b, winner}], "byes": [...]}.
    """
    columns = [[*(x for m in r["matches"] for x in (m["a"], m["b"])), *r.get("byes", [])] for r in rounds]
    if not columns:
        return ""
    last = rounds[-1]
    champion = [m["winner"] for m in last["matches"] if m["winner"]] + last.get("byes", [])
    columns.append(champion[:1] if len(champion) == 1 else champion)
    box_w, box_h, gap_x, gap_y = 150, 24, 50, 12
    rows = max(len(c) for c in columns)
    height = 30 + rows * (box_h + gap_y)
    width = len(columns) * (box_w + gap_x)
    ys: list[dict[str, float]] = [{} for _ in columns]
    parts = [f'<svg class="discuss-chart discuss-bracket" role="img" viewBox="0 0 {width} {height}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>']
    for c, column in enumerate(columns):
        offset = (rows - len(column)) * (box_h + gap_y) / 2
        for i, pid in enumerate(column):
            x, y = c * (box_w + gap_x), 30 + offset + i * (box_h + gap_y)
            ys[c][pid] = y + box_h / 2
            won = c == len(columns) - 1
            parts.append(f'<rect x="{x}" y="{y:.1f}" width="{box_w}" height="{box_h}" rx="4" '
                         f'fill="{"#ffe082" if won else "none"}" stroke="#999"/>'
                         f'<text x="{x + 6}" y="{y + 16:.1f}">{escape(names.get(pid, pid))}</text>')
    for c, r in enumerate(rounds):
        x1, x2 = c * (box_w + gap_x) + box_w, (c + 1) * (box_w + gap_x)
        for m in r["matches"]:
            if m["winner"] in ys[c + 1]:
                for side in (m["a"], m["b"]):
                    dash = "" if side == m["winner"] else ' stroke-dasharray="4 3"'
                    parts.append(f'<line x1="{x1}" y1="{ys[c][side]:.1f}" x2="{x2}" '
                                 f'y2="{ys[c + 1][m["winner"]]:.1f}" stroke="#999"{dash}/>')
        for pid in r.get("byes", []):
            if pid in ys[c + 1]:
                parts.append(f'<line x1="{x1}" y1="{ys[c][pid]:.1f}" x2="{x2}" y2="{ys[c + 1][pid]:.1f}" '
                             f'stroke="#999"/>')
    parts.append("</svg>")
    return "".join(parts)


def interval_chart(rows: list[tuple[str, float, float, float]], title: str) -> str:
    """Horizontal bars of shares (0 to 1) with their intervals as whiskers: (label, estimate, low, high)."""
    row, label_w, bar_w = 28, 200, 320
    height = row * len(rows) + 40
    x = lambda v: label_w + max(0.0, min(v, 1.0)) * bar_w  # noqa: E731
    parts = [f'<svg class="discuss-chart" role="img" viewBox="0 0 {label_w + bar_w + 90} {height}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
             f'<text x="0" y="16" class="discuss-chart-title">{escape(title)}</text>']
    for i, (label, estimate, low, high) in enumerate(rows):
        y = 30 + i * row
        parts.append(f'<text x="0" y="{y + 14}">{escape(label)}</text>'
                     f'<rect x="{label_w}" y="{y}" width="{x(estimate) - label_w:.1f}" height="18" fill="{color(i)}" '
                     f'fill-opacity="0.6"/><line x1="{x(low):.1f}" y1="{y + 9}" x2="{x(high):.1f}" y2="{y + 9}" '
                     f'stroke="#222" stroke-width="2"/><line x1="{x(low):.1f}" y1="{y + 3}" x2="{x(low):.1f}" '
                     f'y2="{y + 15}" stroke="#222"/><line x1="{x(high):.1f}" y1="{y + 3}" x2="{x(high):.1f}" '
                     f'y2="{y + 15}" stroke="#222"/><text x="{x(high) + 6:.1f}" y="{y + 14}">'
                     f'{estimate * 100:.0f}% ({low * 100:.0f}-{high * 100:.0f})</text>')
    parts.append("</svg>")
    return "".join(parts)


def calibration_chart(bins: list[dict], title: str) -> str:
    """Stated probability (x) against the share that came true (y), a point per bin with cases, its area by how
    many; the diagonal is perfect calibration. `bins`: {low, high, n, stated, cameTrue}."""
    side, pad = 260, 40
    at = lambda v: pad + max(0.0, min(v, 1.0)) * side  # noqa: E731
    up = lambda v: pad + side - max(0.0, min(v, 1.0)) * side  # noqa: E731
    parts = [f'<svg class="discuss-chart discuss-calibration" role="img" viewBox="0 0 {side + 2 * pad + 140} '
             f'{side + 2 * pad}" xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
             f'<text x="0" y="16" class="discuss-chart-title">{escape(title)}</text>',
             f'<rect x="{pad}" y="{pad}" width="{side}" height="{side}" fill="none" stroke="#bbb"/>',
             f'<line x1="{at(0)}" y1="{up(0)}" x2="{at(1)}" y2="{up(1)}" stroke="#999" stroke-dasharray="4 3"/>',
             f'<text x="{pad}" y="{side + pad + 28}">stated probability of yes</text>',
             f'<text x="{side + pad + 8}" y="{pad + 10}">came true</text>']
    for v in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{at(v) - 8:.1f}" y="{side + pad + 14}">{v:g}</text>'
                     f'<text x="{pad - 24}" y="{up(v) + 4:.1f}">{v:g}</text>')
    most = max((b["n"] for b in bins), default=0) or 1
    for b in bins:
        if not b["n"] or b["stated"] is None or b["cameTrue"] is None:
            continue
        radius = 3 + 9 * (b["n"] / most) ** 0.5
        parts.append(f'<circle cx="{at(b["stated"]):.1f}" cy="{up(b["cameTrue"]):.1f}" r="{radius:.1f}" '
                     f'fill="{color(0)}" fill-opacity="0.6"><title>{b["low"]:g} to {b["high"]:g}: {b["n"]} stated, '
                     f'{b["cameTrue"] * 100:.0f}% came true</title></circle>')
    parts.append("</svg>")
    return "".join(parts)
