"""The architecture chart as an SVG drawn here, so the docs need no script from a CDN to show it.

Layers are bands from the core at the bottom up to the interfaces; each package is a box in its band,
and an arrow goes from a package to each package it imports from.
"""

from __future__ import annotations

from html import escape

WIDTH, BAND, BOX_W, BOX_H, LEFT = 820, 64, 118, 30, 130


def svg(ranks: list[tuple[str, list[str]]], edges: list[tuple[str, str]]) -> str:
    """`ranks`: (layer name, its packages) from the bottom up; `edges`: (importer, imported)."""
    height = BAND * len(ranks) + 20
    where: dict[str, tuple[float, float]] = {}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
           f'height="{height}" font-family="sans-serif" font-size="13" role="img" '
           'aria-label="The layers of discuss and the imports between their packages">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
           f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>']
    for rank, (name, packages) in enumerate(ranks):
        top = 10 + BAND * (len(ranks) - 1 - rank)
        shade = "#eef2f7" if rank % 2 else "#f7f9fb"
        out.append(f'<rect x="4" y="{top}" width="{WIDTH - 8}" height="{BAND - 4}" rx="6" fill="{shade}"/>')
        out.append(f'<text x="14" y="{top + BAND / 2 + 2}" fill="#333" font-weight="bold">{escape(name)}</text>')
        step = (WIDTH - LEFT - 10) / max(len(packages), 1)
        for i, package in enumerate(packages):
            x, y = LEFT + step * i + (step - BOX_W) / 2, top + (BAND - 4 - BOX_H) / 2
            where[package] = (x + BOX_W / 2, y)
            label = "domain, calls, errors" if package == "core" else package
            out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{BOX_W}" height="{BOX_H}" rx="4" fill="#fff" '
                       'stroke="#3f51b5"/>')
            out.append(f'<text x="{x + BOX_W / 2:.1f}" y="{y + BOX_H / 2 + 4:.1f}" text-anchor="middle" '
                       f'fill="#111" font-size="{11 if len(label) > 14 else 13}">{escape(label)}</text>')
    for a, b in edges:
        if a in where and b in where:
            out.append(_arrow(where[a], where[b]))
    return "\n".join([*out, "</svg>"]) + "\n"


def _arrow(start: tuple[float, float], end: tuple[float, float]) -> str:
    (x1, top1), (x2, top2) = start, end
    if abs(top1 - top2) < 1:  # the same layer: an arc above the boxes
        return (f'<path d="M{x1:.1f},{top1:.1f} C{x1:.1f},{top1 - 18:.1f} {x2:.1f},{top2 - 18:.1f} {x2:.1f},'
                f'{top2:.1f}" fill="none" stroke="#555" stroke-opacity="0.7" marker-end="url(#arrow)"/>')
    y1, y2 = (top1 + BOX_H, top2) if top1 < top2 else (top1, top2 + BOX_H)
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#555" stroke-opacity="0.6" '
            'marker-end="url(#arrow)"/>')
