"""The cost strip's bars (one ``<a>`` with its rectangles per bar), built in Python.

The strip stands under the timeline, one bar per timeline bar: up to 400 links, each with a tooltip and up
to six rectangles. In Django's template engine that was about 11,000 variable lookups, most of drawing a
cost panel whose numbers are kept (about 0.5 s of a 100,000-message session's panel on 2 cores).
:func:`cost_bars_html` writes the same markup with string formatting, printing each number through the
very functions the template used (``localize`` with localisation off, as ``{% localize off %}`` does, and
the ``floatformat`` filter); ``tests/dashboard/test_cost_strip_svg.py`` pins it to what the template printed.
"""

from __future__ import annotations

from html import escape

from django.template.defaultfilters import floatformat
from django.utils.formats import localize
from django.utils.safestring import SafeString, mark_safe

from simulator import CostStrip, StripBar


def _n(value: float) -> str:
    """A number as ``{{ value }}`` printed it inside ``{% localize off %}``."""
    return localize(value, use_l10n=False)


def _bar(bar: StripBar, height: int, query: str, page: str) -> str:
    x, w, first = _n(bar.x), _n(bar.width), _n(bar.first_call)
    classes = "cbar"
    if bar.selected:
        classes += " selected"
    if bar.cache_break:
        classes += " broke"
    calls = first if bar.last_call == bar.first_call else f"{first}–{_n(bar.last_call)}"
    broke = " — cache break" if bar.cache_break else ""
    out = [
        f'<a href="?{query}&call={first}" hx-get="{page}?{query}&call={first}" hx-target="#sim-body" '
        f'hx-swap="outerHTML" hx-push-url="true" class="{classes}">'
        f"<title>call {calls}: ${floatformat(bar.usd, 6)}{broke}</title>"
        f'<rect class="hit" x="{x}" y="0" width="{w}" height="{_n(height)}"></rect>'
    ]
    for s in bar.segments:
        if s.height > 0:
            y, h = _n(s.y), _n(s.height)
            out.append(
                f'<rect class="part {escape(s.part)}" x="{x}" y="{y}" width="{w}" height="{h}"></rect>'
            )
    if bar.cache_break:
        out.append(f'<rect class="mark-break" x="{x}" y="{_n(height + 3)}" width="{w}" height="5"></rect>')
    out.append("</a>\n")
    return "".join(out)


def cost_bars_html(strip: CostStrip, *, base_query: str, page_url: str) -> SafeString:
    """Every bar of ``strip`` as the cost strip's SVG shows it, linking to ``page_url?base_query&call=N``."""
    query, page = escape(base_query), escape(page_url)
    return mark_safe("".join(_bar(b, strip.height, query, page) for b in strip.bars))  # noqa: S308  # escaped above
