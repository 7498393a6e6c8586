"""Server-rendered SVG charts for the evaluation and tune pages: histograms, a CDF, a Pareto scatter.

Plain SVG text sized by ``viewBox`` so it scales with the page; no JavaScript, so the charts print and are
tested like any other HTML. Numbers are formatted here; every label goes through ``escape``.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from simulator import Histogram

W, H, PAD = 320, 140, 28
PALETTE = ("#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed")


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _svg(title: str, body: str, css: str = "chart") -> SafeString:
    t = escape(title)
    return mark_safe(  # noqa: S308 - every label in body was escaped where it was made
        f'<svg class="{css}" viewBox="0 0 {W} {H}" role="img" aria-label="{t}"><title>{t}</title>{body}</svg>'
    )


def _axis(label: str, low: str, high: str) -> str:
    return (
        f'<line x1="{PAD}" y1="{H - PAD}" x2="{W - 4}" y2="{H - PAD}" stroke="#888"/>'
        f'<text x="{PAD}" y="{H - PAD + 11}" font-size="9">{escape(low)}</text>'
        f'<text x="{W - 4}" y="{H - PAD + 11}" font-size="9" text-anchor="end">{escape(high)}</text>'
        f'<text x="{(W + PAD) // 2}" y="{H - 4}" font-size="9" text-anchor="middle">{escape(label)}</text>'
    )


def histogram_svg(histogram: Histogram, *, title: str, color: str = PALETTE[0]) -> SafeString:
    """One bar per bin, heights relative to the fullest bin."""
    counts, edges = histogram.counts, histogram.edges
    if not counts:
        return _svg(f"{title}: no data", "")
    top = max(counts) or 1
    width = (W - PAD - 4) / len(counts)
    bars = []
    for i, c in enumerate(counts):
        height = (H - 2 * PAD) * c / top
        label = escape(f"{_fmt(edges[i])}–{_fmt(edges[min(i + 1, len(edges) - 1)])}: {c} sessions")
        bars.append(
            f'<rect x="{PAD + i * width + 1:.1f}" y="{H - PAD - height:.1f}" width="{max(width - 2, 1):.1f}" '
            f'height="{height:.1f}" fill="{color}"><title>{label}</title></rect>'
        )
    head = f'<text x="{PAD}" y="12" font-size="10">{escape(title)} (tallest bar: {top} sessions)</text>'
    return _svg(title, "".join(bars) + _axis(title, _fmt(edges[0]), _fmt(edges[-1])) + head)


def cdf_svg(series: Sequence[tuple[str, Sequence[tuple[float, float]]]], *, title: str) -> SafeString:
    """One step line per profile: the share of sessions at or below each value."""
    values = [v for _, points in series for v, _ in points]
    if not values:
        return _svg(f"{title}: no data", "")
    low, high = min(values), max(values)
    span = (high - low) or 1.0

    def x(v: float) -> float:
        return PAD + (W - PAD - 4) * (v - low) / span

    def y(share: float) -> float:
        return H - PAD - (H - 2 * PAD) * share

    parts = []
    for index, (name, points) in enumerate(series):
        color = PALETTE[index % len(PALETTE)]
        path = [f"M{x(low):.1f},{y(0):.1f}"]
        previous = 0.0
        for v, share in points:
            path.append(f"L{x(v):.1f},{y(previous):.1f} L{x(v):.1f},{y(share):.1f}")
            previous = share
        parts.append(
            f'<path d="{" ".join(path)}" fill="none" stroke="{color}" stroke-width="1.5">'
            f"<title>{escape(name)}</title></path>"
            f'<text x="{W - 150}" y="{26 + 10 * index}" font-size="9" fill="{color}">{escape(name)}</text>'
        )
    head = f'<text x="{PAD}" y="12" font-size="10">{escape(title)} (CDF)</text>'
    return _svg(title, "".join(parts) + _axis(title, _fmt(low), _fmt(high)) + head)


def pareto_svg(points: Sequence[tuple[str, float, float, bool, bool]]) -> SafeString:
    """Candidates as dots, cost (x) against mean share of turns kept (y); the front joined by a line and
    the recommended one ringed. ``points``: (name, cost, kept, on_front, recommended)."""
    if not points:
        return _svg("no candidates", "", "chart pareto")
    costs = [p[1] for p in points]
    low, high = min(costs), max(costs)
    span = (high - low) or 1.0

    def x(v: float) -> float:
        return PAD + (W - PAD - 8) * (v - low) / span

    def y(kept: float) -> float:
        return H - PAD - (H - 2 * PAD) * kept

    dots = []
    for name, cost, kept, on_front, recommended in points:
        fill = PALETTE[0] if on_front else "#bbb"
        ring = ' stroke="#111" stroke-width="2"' if recommended else ""
        label = escape(f"{name}: ${cost:.4f}, {kept:.1%} of turns kept")
        dots.append(
            f'<circle cx="{x(cost):.1f}" cy="{y(kept):.1f}" r="{5 if recommended else 3}" fill="{fill}"{ring}'
            f' class="{"front" if on_front else "candidate"}"><title>{label}</title></circle>'
        )
    front = sorted((c, k) for _, c, k, on, _ in points if on)
    line = " ".join(f"{'M' if i == 0 else 'L'}{x(c):.1f},{y(k):.1f}" for i, (c, k) in enumerate(front))
    body = (
        f'<path d="{line}" fill="none" stroke="{PALETTE[0]}" stroke-dasharray="3 2"/>'
        + "".join(dots)
        + _axis("cost (USD)", f"${low:.4f}", f"${high:.4f}")
        + f'<text x="{PAD}" y="12" font-size="10">mean share of turns kept (0–100 %) against cost</text>'
    )
    return _svg("Pareto front: cost against history kept", body, "chart pareto")
