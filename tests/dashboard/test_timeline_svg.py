"""The timeline bars built in Python print what the simulation template's loop printed for the same shape."""

from __future__ import annotations

import re
from pathlib import Path

from django.template import engines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.presenters.timeline_svg import timeline_bars_html
from simulator import Bar, Timeline, timeline_shape

# The loop as the simulation template wrote it before it moved to Python: Django's own escaping,
# ``intcomma``, ``add`` and the float printing of ``{% localize off %}`` are the reference.
REFERENCE = (Path(__file__).parent.parent / "fixtures" / "timeline_bars_reference.html").read_text()

MARKS = ("compaction", "image-cleanup", "pruning-inactive", "other-mark")


def _norm(html: str) -> str:
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html)).strip()


@st.composite
def _bars(draw: st.DrawFn) -> tuple[Bar, ...]:
    count = draw(st.integers(1, 30))
    bars, call = [], 1
    for _ in range(count):
        span = draw(st.integers(0, 3))
        bars.append(
            Bar(
                first_call=call,
                last_call=call + span,
                full=draw(st.integers(0, 3_000_000)),
                sent=draw(st.integers(0, 3_000_000)),
                trimmed=draw(st.booleans()),
                overflow=draw(st.sampled_from(["none", "recovered", "failed", "x<\"&'>"])),
                retries=draw(st.integers(0, 3)),
                marks=tuple(draw(st.lists(st.sampled_from(MARKS), unique=True, max_size=4))),
                failed=draw(st.integers(0, 2)),
            )
        )
        call += span + 1
    return tuple(bars)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    bars=_bars(),
    y_max=st.integers(0, 4_000_000),
    selected=st.integers(0, 130),
    query=st.sampled_from(
        ["transcript=1&profile=2", "t=1&x=%3Ca%3E&y=a+b", "transcript=3&profile=4&find=a%3Cb%22&regex=1", ""]
    ),
)
def test_timeline_bars_match_the_template_loop(bars, y_max, selected, query):
    shape = timeline_shape(Timeline(bars, y_max, None, None, bars[-1].last_call), selected=selected)
    reference = engines["django"].from_string(REFERENCE).render({"shape": shape, "base_query": query})
    built = str(timeline_bars_html(shape, base_query=query, page_url="/simulate/"))
    assert _norm(built) == _norm(reference)


def test_many_narrow_bars_print_their_rounded_coordinates():
    """400 bars of 2.5 units: the 4th bar's x is 7.5, its width 2.05, as the template printed them."""
    bars = tuple(Bar(i, i, i * 10, i * 5, False, "none", 0) for i in range(1, 401))
    shape = timeline_shape(Timeline(bars, 4000, None, None, 400), selected=3)
    built = str(timeline_bars_html(shape, base_query="t=1", page_url="/simulate/"))
    assert built.count("<a ") == 400
    assert '<a href="?t=1&call=3" hx-get="/simulate/?t=1&call=3"' in built
    assert 'class="bar selected"><title>call 3: 30 held, 15 sent</title><rect class="hit" x="5.0"' in built
    assert '<rect class="hit" x="7.5" y="0" width="2.05" height="150">' in built
    reference = engines["django"].from_string(REFERENCE).render({"shape": shape, "base_query": "t=1"})
    assert _norm(built) == _norm(reference)
