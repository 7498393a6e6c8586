"""The transcript page's index and per-range rows give the same rows as the whole overview."""

from __future__ import annotations

import dataclasses

from simulator import parse_transcript, transcript_index, transcript_message_rows, transcript_overview
from tests.support import tool_heavy_chat


def test_rows_of_a_range_are_the_overview_rows_of_that_range_without_counts():
    parsed = parse_transcript(tool_heavy_chat(30))
    whole = [row for block in transcript_overview(parsed).blocks for row in block.rows]
    index = transcript_index(parsed)
    rows = transcript_message_rows(parsed, index, 50, 80, lambda i: None)
    assert [r.index for r in rows] == list(range(50, 80))
    assert rows == tuple(dataclasses.replace(r, tokenizer_tokens=None) for r in whole[50:80])


def test_the_index_spans_cover_every_message_once_in_order():
    parsed = parse_transcript(tool_heavy_chat(12))
    spans = transcript_index(parsed).spans
    assert spans[0].start == 0 and spans[-1].end == len(parsed.messages)
    assert all(a.end == b.start for a, b in zip(spans, spans[1:], strict=False))
    assert [s.label for s in spans[:3]] == ["System", "Turn 1", "Turn 2"]


def test_a_range_past_the_end_is_cut_to_the_transcript():
    parsed = parse_transcript(tool_heavy_chat(2))
    rows = transcript_message_rows(parsed, transcript_index(parsed), 5, 500, lambda i: i)
    assert [(r.index, r.tokenizer_tokens) for r in rows] == [(5, 5), (6, 6), (7, 7), (8, 8)]


def test_the_index_counts_model_calls_as_assistant_replies():
    parsed = parse_transcript(tool_heavy_chat(7))
    assert transcript_index(parsed).call_count == 14


def test_the_index_holds_the_numbers_stored_with_an_upload():
    from simulator import summarize

    for text in (tool_heavy_chat(5), '[{"role":"tool","tool_call_id":"x","content":"?"}]'):
        parsed = parse_transcript(text)
        index, summary = transcript_index(parsed), summarize(parsed)
        assert (
            index.message_count,
            index.turn_count,
            index.tool_pair_count,
            index.orphan_count,
            index.estimated_tokens,
        ) == (
            summary.message_count,
            summary.turn_count,
            summary.tool_pair_count,
            summary.orphan_count,
            summary.estimated_tokens,
        )
