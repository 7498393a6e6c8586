"""The cost strip's bars built in Python print what the cost template's loop printed for the same strip."""

from __future__ import annotations

import re
from pathlib import Path

from django.template import engines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.presenters.cost_strip_svg import cost_bars_html
from simulator import CostStrip
from simulator.cost.strip import PARTS, StripBar, StripSegment

# The loop as the cost template wrote it before it moved to Python: Django's own escaping, ``floatformat``,
# ``add`` and the number printing of ``{% localize off %}`` are the reference.
REFERENCE = (Path(__file__).parent.parent / "fixtures" / "cost_bars_reference.html").read_text()

# Coordinates as the strip computes them, and the floats Python prints in exponent notation (which
# ``{% localize off %}`` prints in full).
_coordinates = st.one_of(
    st.floats(0, 2_000, allow_nan=False),
    st.floats(1e-12, 1e-4),
    st.sampled_from([0.0, 5e-324, 1e16, 1.5e22, 60.0, 7.000000000000001]),
)
_usd = st.one_of(
    st.floats(0, 10_000, allow_nan=False), st.floats(1e-12, 1e-5), st.sampled_from([0.0, 5e-7, 1e21])
)


@st.composite
def _strip(draw: st.DrawFn) -> CostStrip:
    bars, call = [], draw(st.integers(1, 2_000_000))
    for _ in range(draw(st.integers(1, 20))):
        span = draw(st.integers(0, 3))
        segments = tuple(
            StripSegment(part, draw(_coordinates), draw(st.one_of(_coordinates, st.just(0.0))), draw(_usd))
            for part in PARTS
        )
        bars.append(
            StripBar(
                first_call=call,
                last_call=call + span,
                x=draw(_coordinates),
                width=draw(_coordinates),
                usd=draw(_usd),
                segments=segments,
                selected=draw(st.booleans()),
                cache_break=draw(st.booleans()),
            )
        )
        call += span + 1
    return CostStrip(
        width=draw(st.integers(1, 2_000)), height=draw(st.integers(1, 200)), bars=tuple(bars), usd_max=1.0
    )


def _norm(html: str) -> str:
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html)).strip()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    strip=_strip(),
    query=st.sampled_from(
        [
            "transcript=1&profile=2",
            "t=1&x=%3Ca%3E&y=a+b",
            "transcript=3&profile=4&find=a%3Cb%22&regex=1",
            "",
            "<'\">&",
        ]
    ),
)
def test_cost_bars_match_the_template_loop(strip, query):
    reference = engines["django"].from_string(REFERENCE).render({"cost_strip": strip, "base_query": query})
    built = cost_bars_html(strip, base_query=query, page_url="/simulate/")
    assert _norm(built) == _norm(reference)
    assert built.count("<a ") == len(strip.bars)
