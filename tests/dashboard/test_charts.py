"""The server-rendered SVG charts: bars, steps and dots where the data puts them, every label escaped."""

from __future__ import annotations

from dashboard.presenters.charts import cdf_svg, histogram_svg, pareto_svg
from dashboard.services.evaluations import _chunks
from simulator.evaluate import Histogram


def test_a_histogram_draws_one_bar_per_bin_scaled_to_the_fullest():
    svg = str(histogram_svg(Histogram((0.0, 1.0, 2.0), (4, 2)), title="trims"))
    assert svg.count("<rect") == 2
    assert 'height="84.0"' in svg and 'height="42.0"' in svg  # (140 - 2 × 28) × 4/4 and × 2/4
    assert "tallest bar: 4 sessions" in svg


def test_labels_are_escaped_everywhere():
    evil = '<script>alert("x")</script>'
    pieces = [
        histogram_svg(Histogram((0.0, 1.0), (1,)), title=evil),
        cdf_svg([(evil, [(1.0, 0.5), (2.0, 1.0)])], title=evil),
        pareto_svg([(evil, 1.0, 0.5, True, True)]),
    ]
    for svg in map(str, pieces):
        assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_the_pareto_chart_rings_the_recommendation_and_marks_the_front():
    svg = str(pareto_svg([("a", 1.0, 0.9, True, True), ("b", 2.0, 0.5, False, False)]))
    assert svg.count('class="front"') == 1 and svg.count('class="candidate"') == 1
    assert 'r="5"' in svg and 'stroke="#111"' in svg


def test_chunks_hold_about_the_target_work_and_cover_every_transcript():
    rows = [(pk, 100) for pk in range(1, 11)]
    chunks = _chunks(rows, profiles=2, target=500)
    assert chunks == [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10]]
    assert _chunks(rows, profiles=1, target=10**9) == [list(range(1, 11))]
