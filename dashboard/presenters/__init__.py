"""Presenters: how read values are shown (view models, SVG geometry, wording), as pure functions.

What lives here: ``fleet`` (feed rows, sparkline bars, a session's events linked to the simulation),
``fleet_alerts`` (a grouped fleet alert's title and sentence),
``charts`` (the evaluation and tune pages' SVG histograms, CDF and Pareto scatter) and ``evaluations``
(an evaluation's profiles side by side). Presenters take rows and numbers and return frozen view models
or markup; they make no query and write nothing. What may import them: selectors (to build a screen),
views, consumers and the API. They import models only as values, and never selectors, services or
forms (an import-linter contract says so).
"""

from __future__ import annotations

from dashboard.presenters.fleet import (
    FeedRow,
    RuntimeRow,
    SessionCount,
    SessionEventRow,
    SessionScreen,
    SparkBar,
    feed_row,
    feed_row_from_message,
    fleet_session_url,
)
from dashboard.presenters.fleet_alerts import AlertRow, alert_message, alert_row

__all__ = [
    "AlertRow",
    "FeedRow",
    "RuntimeRow",
    "SessionCount",
    "SessionEventRow",
    "SessionScreen",
    "SparkBar",
    "alert_message",
    "alert_row",
    "feed_row",
    "feed_row_from_message",
    "fleet_session_url",
]
