"""The simulation timeline's bars (one ``<a>`` with its rectangles per bar), built in Python.

The timeline draws up to 400 bars, each a link with a tooltip and three to eight rectangles: in Django's
template engine that was about 6,000 variable lookups and filters, the largest part of drawing a
simulation page (about a quarter of a 100,000-message session's first view, and most of "another call").
:func:`timeline_bars_html` writes the same markup with plain string formatting and the standard library's
escaping (the same five characters Django escapes, the same entities);
``tests/dashboard/test_timeline_svg.py`` pins it to what the template printed for the same shapes.

Coordinates are printed as the template printed them inside ``{% localize off %}``: ``str()`` of the
rounded float. Token counts are grouped as ``intcomma`` groups them in this project's only locale.
"""

from __future__ import annotations

from html import escape

from django.utils.safestring import SafeString, mark_safe

from simulator import BarShape, TimelineShape

_MARKS = (
    # (mark, the rectangle's class, how far below the chart's axis its 5-unit strip sits)
    ("image-cleanup", "mark-images", 18),
    ("pruning-inactive", "mark-inactive", 25),
)


def _title(shape: BarShape) -> str:
    bar = shape.bar
    calls = f"{bar.first_call}" if bar.last_call == bar.first_call else f"{bar.first_call}–{bar.last_call}"
    parts = [f"call {calls}: {bar.full:,} held, {bar.sent:,} sent"]
    if bar.trimmed:
        parts.append(" — trimmed")
    if bar.overflow != "none":
        parts.append(f" — overflow {escape(bar.overflow)}")
    if bar.failed:
        parts.append(f" — {bar.failed} failed")
    if "compaction" in bar.marks:
        parts.append(" — provider-side compaction")
    if "image-cleanup" in bar.marks:
        parts.append(" — history image cleanup")
    if "pruning-inactive" in bar.marks:
        parts.append(" — pruning not active for this provider")
    return "".join(parts)


def _bar(shape: BarShape, height: int, query: str, page: str) -> str:
    bar, x, w = shape.bar, shape.x, shape.width
    classes = "bar"
    if shape.selected:
        classes += " selected"
    if bar.trimmed:
        classes += " trimmed"
    if bar.failed:
        classes += " failed"
    out = [
        f'<a href="?{query}&call={bar.first_call}" hx-get="{page}?{query}&call={bar.first_call}" '
        f'hx-target="#sim-body" hx-swap="outerHTML" hx-push-url="true" class="{classes}">'
        f"<title>{_title(shape)}</title>"
        f'<rect class="hit" x="{x}" y="0" width="{w}" height="{height}"></rect>'
        f'<rect class="full" x="{x}" y="{shape.y_full}" width="{w}" height="{shape.h_full}"></rect>'
        f'<rect class="sent" x="{x}" y="{shape.y_sent}" width="{w}" height="{shape.h_sent}"></rect>'
    ]
    if bar.trimmed:
        out.append(f'<rect class="mark-trim" x="{x}" y="{height + 4}" width="{w}" height="5"></rect>')
    if bar.failed:
        out.append(f'<rect class="mark-failed" x="{x}" y="0" width="{w}" height="4"></rect>')
    if bar.overflow != "none":
        out.append(
            f'<rect class="mark-overflow {escape(bar.overflow)}" x="{x}" y="{height + 11}" '
            f'width="{w}" height="5"></rect>'
        )
    for mark, css, below in _MARKS:
        if mark in bar.marks:
            out.append(f'<rect class="{css}" x="{x}" y="{height + below}" width="{w}" height="5"></rect>')
    if "compaction" in bar.marks:
        out.append(
            f'<rect class="mark-compaction" data-call="{bar.first_call}" x="{x}" y="0" '
            f'width="{w}" height="{height}"></rect>'
        )
    out.append("</a>\n")
    return "".join(out)


def timeline_bars_html(shape: TimelineShape, *, base_query: str, page_url: str) -> SafeString:
    """Every bar of ``shape`` as the timeline's SVG shows it, linking to ``page_url?base_query&call=N``."""
    query, page = escape(base_query), escape(page_url)
    return mark_safe("".join(_bar(b, shape.height, query, page) for b in shape.bars))  # noqa: S308  # escaped above
