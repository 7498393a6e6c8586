"""View models of the simulation screen: the timeline and one call's context."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay import Fate, changed_contents, simulate
from simulator.replay.view import (
    PREVIEW,
    _by_fate,
    _preview,
    _role_label,
    _segment_key,
    call_view,
    timeline,
    timeline_shape,
)
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Role


def _chat(turns: int) -> str:
    messages = [{"role": "system", "content": "sys"}]
    for t in range(turns):
        messages += [
            {"role": "user", "content": f"q{t}"},
            {"role": "assistant", "content": f"a{t} " + "z" * 800},
        ]
    return json.dumps(messages)


def test_long_sessions_are_bucketed_and_each_bar_shows_its_largest_call():
    transcript = parse_transcript(_chat(50))
    result = simulate(transcript, profile_from_document({"runtime_profiles": {"d": {}}}, name="z"))
    tl = timeline(result, max_bars=10)
    assert len(tl.bars) == 10 and tl.calls == 50
    assert tl.bars[0].first_call == 1 and tl.bars[-1].last_call == 50
    assert all(
        b.full == max(c.tokens_full for c in result.calls[b.first_call - 1 : b.last_call]) for b in tl.bars
    )
    shape = timeline_shape(tl, selected=7)
    assert sum(s.selected for s in shape.bars) == 1
    assert all(0 <= s.y_sent <= shape.height for s in shape.bars)


def test_a_call_view_collapses_dropped_runs_and_places_the_breadcrumb():
    transcript = parse_transcript(_chat(10))
    doc = {"runtime_profiles": {"d": {"max_context_tokens": 900}}}
    result = simulate(transcript, profile_from_document(doc, name="z"))
    number = next(c.number for c in result.calls if c.trimmed)
    view = call_view(transcript, result, number)
    kinds = [r.kind for r in view.rows]
    assert kinds[0] == "message" and view.rows[0].role == "system"  # leading system is always sent
    assert kinds[1] == "dropped-run" and view.rows[1].count >= 2
    assert kinds[2] == "breadcrumb"
    assert all(r.fate is Fate.KEPT for r in view.rows[3:])
    assert view.rows[1].rule.startswith("token budget 900")
    sent_rows = [r for r in view.rows if r.kind == "message" and not r.grouped]
    # what was sent = the kept messages plus the breadcrumb note (17 tokens of the estimator)
    assert view.call.tokens_sent == sum(r.tokens_after or 0 for r in sent_rows) + 17
    segments = {s.css: s.tokens for s in view.segments}
    assert segments["breadcrumb"] == 17
    assert sum(segments.values()) == view.call.tokens_sent


def test_openclaw_call_view_shows_sizes_after_pruning():
    transcript = parse_transcript(synthetic_openclaw_session(30, tool_result_chars=3000, pause_every=3))
    doc = {
        "contextPruning": {"mode": "cache-ttl", "minPrunableToolChars": 1000},
        "model": {"contextWindow": 9000},
    }
    profile = profile_from_document(doc, name="o")
    result = simulate(transcript, profile)
    number = next(c.number for c in result.calls if c.trimmed)
    changed = changed_contents(transcript, profile, result, number)
    view = call_view(transcript, result, number, changed=changed)
    pruned = [r for r in view.rows if r.fate in (Fate.HARD_CLEARED, Fate.SOFT_TRIMMED)]
    assert pruned and all((r.tokens_after or 0) < (r.tokens_before or 0) for r in pruned)
    assert all(r.role == "tool" for r in pruned)


def test_index_slice_is_a_window_that_survives_the_list_growing():
    import operator

    from simulator.replay.model import IndexSlice

    source = [2, 5, 9]
    window = IndexSlice(source, 1, 3)
    source.extend([11, 14])
    assert list(window) == [5, 9] and len(window) == 2 and window[-1] == 9
    assert 9 in window and 11 not in window and 2 not in window
    assert window == (5, 9) and operator.eq((5, 9), window) and window != (5,)  # both directions
    assert hash(window) == hash((5, 9))


def test_truncated_tool_results_show_their_size_after_truncation():
    messages = [{"role": "user", "content": "go"}]
    for t in range(3):
        messages += [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{t}", "type": "function", "function": {"name": "cat", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": f"c{t}", "content": "x" * 5000},
        ]
    messages.append({"role": "assistant", "content": "done"})
    transcript = parse_transcript(json.dumps(messages))
    profile = profile_from_document({"runtime_profiles": {"d": {"max_tool_result_chars": 400}}}, name="t")
    result = simulate(transcript, profile)
    last = len(result.calls)
    changed = changed_contents(transcript, profile, result, last)
    assert len(changed) == 3 and all("characters truncated" in text for _, text in changed.values())
    view = call_view(transcript, result, last, changed=changed)
    truncated = [r for r in view.rows if r.fate is Fate.TRUNCATED]
    assert len(truncated) == 3 and all(r.tokens_after < r.tokens_before for r in truncated)


def test_a_small_session_under_a_large_budget_is_scaled_to_its_data_with_the_budget_named():
    transcript = parse_transcript(_chat(5))
    doc = {
        "runtime_profiles": {"d": {"max_context_tokens": 128_000}},
        "provider": {"context_window": 200_000},
    }
    result = simulate(transcript, profile_from_document(doc, name="z"))
    tl = timeline(result)
    largest = max(c.tokens_full for c in result.calls)
    assert tl.y_max == int(largest * 1.08)
    assert (tl.budget, tl.window) == (None, None)  # far above the data: named, not drawn
    shape = timeline_shape(tl, selected=1)
    # Every bar stands on the axis, and the largest reaches near the top.
    assert all(round(s.y_full + s.h_full, 2) == shape.height for s in shape.bars)
    assert all(round(s.y_sent + s.h_sent, 2) == shape.height for s in shape.bars)
    assert max(s.h_full for s in shape.bars) > 0.9 * shape.height


def test_a_budget_near_the_data_is_drawn():
    transcript = parse_transcript(_chat(20))
    result = simulate(
        transcript, profile_from_document({"runtime_profiles": {"d": {"max_context_tokens": 3000}}}, name="z")
    )
    tl = timeline(result)
    assert tl.budget == 3000 and tl.y_max >= 3000


def _rows_by_message(view):
    """(index, fate, rule) per transcript message the rows cover, a dropped run spread over its span."""
    out = []
    for row in view.rows:
        if row.kind == "dropped-run":
            out += [(i, "dropped", row.rule) for i in range(row.index, row.last_index + 1)]
        elif row.index is not None:
            out.append((row.index, row.fate.value, row.rule))
    return out


def test_dropped_runs_are_maximal_and_cover_exactly_the_messages_not_sent():
    """Every call of replays that drop under several rules (a token budget, a message cap, ai-profile's
    budget): a run holds consecutive dropped messages of one rule, two runs side by side never share a
    rule, their counts and sizes are those of the messages they span, and nothing else is dropped."""
    transcript = parse_transcript(synthetic_openclaw_session(40, tool_result_chars=900, session_id="v"))
    documents = (
        {"runtime_profiles": {"d": {"max_context_tokens": 6000}}},
        {"runtime_profiles": {"d": {"max_history_messages": 12, "max_context_tokens": 9000}}},
        {
            "trimscope": {"runtime": "ai_profile"},
            "max_tokens": 4096,
            "limits": {"preset": {"contextWindow": 12000}},
        },
    )
    for document in documents:
        profile = profile_from_document(document, name="p")
        result = simulate(transcript, profile)
        assert result.trims > 0
        for call in result.calls:
            view = call_view(transcript, result, call.number)
            covered = _rows_by_message(view)
            assert [i for i, _, _ in covered] == sorted({i for i, _, _ in covered})
            sent = {t for n in call.sent_indices() for t in result.origins[n]}
            dropped = {i for i, fate, _ in covered if fate == "dropped"}
            held = {t for n in range(call.available) for t in result.origins[n]}
            assert dropped == held - sent
            runs = [r for r in view.rows if r.kind == "dropped-run"]
            for run in runs:
                assert run.count == run.last_index - run.index + 1
                natives = {
                    n
                    for n in range(call.available)
                    if set(result.origins[n]) & set(range(run.index, run.last_index + 1))
                }
                firsts = {n for n in natives if result.origins[n][0] >= run.index}
                assert run.tokens_before == sum(result.native_tokens[n] for n in firsts)
            for before, after in zip(view.rows, view.rows[1:], strict=False):
                if before.kind == after.kind == "dropped-run":
                    assert before.rule != after.rule or before.last_index + 1 != after.index


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "b", " ", "\n", "\t", "é", "\u2028", "\x0b"]), max_size=1500))
def test_a_preview_is_the_whole_text_collapsed_and_cut(text):
    """Only a head of a long text is collapsed when that is enough: the preview is the same as collapsing
    all of it, for texts of any length and whitespace runs of any length (at the cut too)."""
    collapsed = " ".join(text.split())
    expected = collapsed if len(collapsed) <= PREVIEW else collapsed[: PREVIEW - 1] + "…"
    assert _preview(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "a" + " " * 700 + "b" * 300,  # the head is mostly whitespace: the whole text is collapsed
        " " * 639 + "x" * 10,
        "w " * 319 + "z" * 500,  # the head ends on a space, the word after it is long
        ("word " * 40)[:-1],  # exactly 199 characters: no cut
        "y" * 159,
        "y" * 160,
        "y" * 161,
    ],
)
def test_previews_at_the_edges(text):
    collapsed = " ".join(text.split())
    expected = collapsed if len(collapsed) <= PREVIEW else collapsed[: PREVIEW - 1] + "…"
    assert _preview(text) == expected


def _text_as_shown(message) -> str:
    """What a row previews, worked out apart from the view: the text, else its tool calls, else its error."""
    if message.text:
        return message.text
    if message.tool_calls:
        return ", ".join(f"{c.name}({c.arguments})" for c in message.tool_calls)
    return f"(error) {message.error}" if message.error is not None else ""


def _views_of_every_call():
    chat = json.loads(_chat(12))
    chat.insert(5, {"role": "system", "content": "a second system prompt, mid-session"})
    transcripts = (
        parse_transcript(synthetic_openclaw_session(30, tool_result_chars=2500, pause_every=2)),
        parse_transcript(json.dumps(chat)),
    )
    documents = (
        {"runtime_profiles": {"d": {"max_context_tokens": 6000, "max_history_messages": 9}}},
        {
            "trimscope": {"runtime": "ai_profile"},
            "max_tokens": 4096,
            "limits": {"preset": {"contextWindow": 9000}},
        },
        {
            "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}},
            "model": {"contextWindow": 20_000},
        },
    )
    for transcript in transcripts:
        for document in documents:
            profile = profile_from_document(document, name="p")
            result = simulate(transcript, profile)
            for call in result.calls:
                changed = changed_contents(transcript, profile, result, call.number)
                yield transcript, result, call.number, changed


def test_rows_made_when_read_are_the_rows_of_the_call_in_any_order():
    """A call view's message rows are made when first read: read shuffled, by slices and from the end,
    each is the row read in order; each message row's preview, role, turn and grouping are what the
    message gives, and the chips and segments (known before any row is made) are those of the rows."""
    order = random.Random(3)
    checked = 0
    for transcript, result, number, changed in _views_of_every_call():
        in_order = list(call_view(transcript, result, number, changed=changed).rows)
        lazy = call_view(transcript, result, number, changed=changed)
        shuffled = list(range(len(in_order)))
        order.shuffle(shuffled)
        assert all(lazy.rows[k] == in_order[k] for k in shuffled)
        again = call_view(transcript, result, number, changed=changed)
        assert again.rows[-1] == in_order[-1] and again.rows[1:4] == in_order[1:4]
        assert again.rows == in_order and len(again.rows) == len(in_order)
        with pytest.raises(IndexError):
            again.rows[len(in_order)]
        turns = _turns(transcript)
        segments: dict[str, int] = {}
        for row in in_order:
            if row.kind != "message":
                continue
            message = transcript.messages[row.index]
            assert row.preview == _preview(_text_as_shown(message))
            assert row.role == message.role.value and row.last_index == row.index
            assert row.role_label == _role_label(message) and row.turn == turns[row.index]
            assert row.grouped == (
                row.index not in {o[0] for o in result.origins if o}
                and any(row.index in o for o in result.origins)
            )
            if row.sent and not row.grouped:
                key = _segment_key(message)
                segments[key] = segments.get(key, 0) + (row.tokens_after or 0)
            checked += 1
        assert lazy.fate_counts == _by_fate(in_order)
        shown = {s.css: s.tokens for s in lazy.segments if s.css != "breadcrumb"}
        assert {k: v for k, v in shown.items() if v} == {k: v for k, v in segments.items() if v}
    assert checked > 1000


def _turns(transcript) -> list[int | None]:
    """The turn of each message: the real user messages so far (``None`` before the first)."""
    out: list[int | None] = []
    turn = 0
    for message in transcript.messages:
        if message.role is Role.USER and message.tool_result is None:
            turn += 1
        out.append(turn or None)
    return out
