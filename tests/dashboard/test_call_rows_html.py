"""A page of a call's rows built in Python prints, byte for byte, what the template's loop printed."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.template import engines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.presenters import call_rows
from dashboard.presenters.call_rows import call_rows_html
from dashboard.templatetags.transcript_pages import message_href
from simulator import Fate, Row, call_view, parse_transcript, profile_from_document, simulate
from simulator.presets import PRESETS_BY_KEY
from simulator.synthetic import synthetic_openclaw_session

# The loop as the simulation template wrote it before it moved to Python: Django's own escaping,
# ``intcomma``, ``pluralize``, ``slugify``, ``default``, ``ifchanged`` and ``message_href`` are the reference.
REFERENCE = (Path(__file__).parent.parent / "fixtures" / "call_rows_reference.html").read_text()

TEXT = st.text(alphabet=st.sampled_from(["a", " ", "<", ">", "&", '"', "'", "é", "✂", "\n"]), max_size=12)
SIZE = st.integers(0, 3_000_000)


def _reference(rows: list[Row], detail_url: str) -> str:
    return engines["django"].from_string(REFERENCE).render({"rows_page": rows, "detail_url": detail_url})


def _built(rows: list[Row], detail_url: str) -> str:
    return str(call_rows_html(rows, detail_url, message_href)) + "\n"


@st.composite
def _row(draw: st.DrawFn) -> Row:
    kind = draw(st.sampled_from(["message", "message", "message", "dropped-run", "breadcrumb"]))
    turn = draw(st.one_of(st.none(), st.integers(1, 3), st.integers(1, 40_000)))
    index = draw(st.integers(0, 200_000))
    if kind == "dropped-run":
        last = draw(st.sampled_from([index, index + draw(st.integers(1, 5000))]))
        count = draw(st.integers(1, 3))
        return Row(kind, Fate.DROPPED, draw(TEXT), turn, index, last, count=count, tokens_before=draw(SIZE))
    if kind == "breadcrumb":
        return Row(kind, Fate.BREADCRUMB, draw(TEXT), turn, preview=draw(TEXT))
    before = draw(SIZE)
    return Row(
        kind,
        draw(st.sampled_from(list(Fate))),
        draw(st.sampled_from(["", "", "a rule"]) | TEXT),
        turn,
        index,
        index,
        role=draw(st.sampled_from(["user", "assistant", "tool", "system", "x<&"])),
        preview=draw(TEXT),
        tokens_before=before,
        tokens_after=draw(st.sampled_from([before, before // 2]) | SIZE),
        grouped=draw(st.booleans()),
        role_label=draw(st.sampled_from(["", "", "developer instructions", "assistant (failed)"]) | TEXT),
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(_row(), max_size=12),
    detail_url=st.sampled_from(["/transcripts/2/", "/transcripts/12345/", "/t/a&b<'\"/"]),
)
def test_generated_rows_print_as_the_template_loop(rows, detail_url):
    assert _built(rows, detail_url) == _reference(rows, detail_url)


@pytest.mark.parametrize("key", ["openclaw", "openclaw-2026.9.6", "zeroclaw-documented", "ai-profile"])
def test_every_call_of_a_replay_prints_as_the_template_loop(key):
    """Real rows: turns shared by many rows, dropped runs, breadcrumbs, rows a rule changed."""
    transcript = parse_transcript(
        synthetic_openclaw_session(30, session_id="rows-html", tool_result_chars=3000), format="openclaw"
    )
    result = simulate(transcript, profile_from_document(PRESETS_BY_KEY[key].document, name=key))
    for call in result.calls:
        rows = list(call_view(transcript, result, call.number).rows)
        for page in (rows[:100], rows[-100:]):
            assert _built(page, "/transcripts/7/") == _reference(page, "/transcripts/7/")


@pytest.mark.parametrize(
    ("name", "broken"),
    [("_n", str), ("escape", lambda text: text)],
    ids=["numbers not grouped", "text not escaped"],
)
def test_a_broken_printer_is_noticed(monkeypatch, name, broken):
    """Numbers printed without their commas, or text without its escaping, differ from the template's."""
    row = Row(
        "message", Fate.KEPT, "", 12_345, 4, 4, role="user", preview="a<b", tokens_before=1, tokens_after=1
    )
    assert _built([row], "/t/") == _reference([row], "/t/")
    monkeypatch.setattr(call_rows, name, broken)
    assert _built([row], "/t/") != _reference([row], "/t/")
