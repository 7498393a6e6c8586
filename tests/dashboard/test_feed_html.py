"""The feed row built in Python prints what the fleet template's filters printed for the same row."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from django.template import engines

from dashboard.presenters.feed_html import feed_row_html
from dashboard.presenters.fleet import FeedRow

# The row as the fleet template wrote it before it moved to Python: Django's own escaping, ``date``,
# ``intcomma`` and ``pluralize`` are the reference.
REFERENCE = (Path(__file__).parent.parent / "fixtures" / "feed_row_reference.html").read_text()


def _norm(html: str) -> str:
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html)).strip()


def _rows():
    at = datetime(2026, 11, 30, 18, 1, 2, 345678, tzinfo=UTC)
    for recovery in ("failed", "recovered", "retried <x>", ""):
        for session in ("s-1", "", "a b<&>\"'", "line\nbreak"):
            for before, after in ((33_000, 31_000), (None, 5), (None, None), (1_234_567, 0)):
                for dropped, kept in ((1, 1), (0, 2), (12_345, 1)):
                    yield FeedRow(
                        id=123_456,
                        at=at,
                        runtime="rt<1>&",
                        session_id=session,
                        reason="ctx <b>x</b> & 'q'",
                        dropped_messages=dropped,
                        kept_turns=kept,
                        tokens_before=before,
                        tokens_after=after,
                        overflow_recovery=recovery,
                    )
    # A time given in another zone is shown in the site's zone (UTC), as the date filter shows it.
    yield FeedRow(
        id=1,
        at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=5))),
        runtime="r",
        session_id="s",
        reason="r",
        dropped_messages=2,
        kept_turns=3,
        tokens_before=None,
        tokens_after=None,
        overflow_recovery="",
    )


@pytest.mark.parametrize("row", list(_rows()))
def test_feed_row_html_matches_the_template_filters(row):
    reference = engines["django"].from_string(REFERENCE).render({"row": row})
    assert _norm(str(feed_row_html(row))) == _norm(reference)


def test_feed_row_html_escapes_every_text_it_shows():
    row = next(r for r in _rows() if r.session_id.startswith("a b"))
    html = str(feed_row_html(row))
    assert "<b>" not in html and "rt<1>" not in html
    assert "ctx &lt;b&gt;x&lt;/b&gt; &amp; &#x27;q&#x27;" in html
