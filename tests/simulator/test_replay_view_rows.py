"""A call view's rows made a stretch at a time (``view._rows``) are the rows made message by message.

``_rows`` makes the plain rows of a long call (sent as they are) in bulk and leaves every other message to
the per-message path; ``_rows_by_message`` is the reference. They are compared at every call of every
runtime's profiles on the test transcripts, the presets on a synthetic session, and generated sessions
with failed calls, and the cases are checked to cover what the bulk path must get right.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from operator import attrgetter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator import (
    Transcript,
    TranscriptParseError,
    changed_contents,
    parse_transcript,
    profile_from_document,
    simulate,
)
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import Profile
from simulator.replay import view
from simulator.replay.compare import CompareRows
from simulator.replay.view import (
    CallRows,
    Fate,
    Row,
    _by_fate,
    _call_index,
    _Pending,
    _pending_rows,
    _rows,
    _rows_by_message,
    _Stretch,
    call_view,
    timeline,
)
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Message, Role, TextPart, ToolCall, ToolResult
from tests.simulator.test_call_counts import PROFILES, TRANSCRIPTS, _sessions
from tests.simulator.test_importers_openclaw_fast import _vector_sessions
from tests.support import SAMPLES_DIR

SYNTHETIC = synthetic_openclaw_session(30, session_id="rows", tool_result_chars=3000)


def _parallel_tool_calls(turns: int = 8) -> Transcript:
    """Turns whose assistant makes three tool calls at once: ZeroClaw and ai-profile hold the three results
    as one native message, so their second and third rows are grouped under the first."""
    messages: list[Message] = [Message(Role.SYSTEM, (TextPart("be brief"),))]
    for t in range(turns):
        calls = tuple(ToolCall(f"c{t}-{k}", "read", "{}") for k in range(3))
        messages.append(Message(Role.USER, (TextPart(f"task {t} " + "u" * 200),)))
        messages.append(Message(Role.ASSISTANT, tool_calls=calls))
        messages.extend(
            Message(Role.TOOL, (TextPart("r" * 700 * (k + 1)),), tool_result=ToolResult(c.id, "read"))
            for k, c in enumerate(calls)
        )
        messages.append(Message(Role.ASSISTANT, (TextPart(f"done {t}"),)))
    return Transcript("openai", tuple(messages), session_id="parallel")


PARALLEL = _parallel_tool_calls()
TRUNCATING = {
    "trimscope": {"runtime": "zeroclaw", "version": "documented"},
    "runtime_profiles": {"default": {"max_tool_result_chars": 400, "max_context_tokens": 3000}},
}
"""ZeroClaw cutting tool results to 400 bytes: rows a rule changed that are in no group of the call."""


def _compare_every_call(transcript: Transcript, profile: Profile, seen: Counter[str]) -> None:
    result = simulate(transcript, profile)
    for call in result.calls:
        changed = changed_contents(transcript, profile, result, call.number)
        at = _call_index(result, call, changed)
        fast, fast_segments = _rows(transcript, result, call, at)
        # The reference reads the dicts and sets, never the compact lookups the fast path may use.
        by_message = _call_index(result, call, changed, compact=False)
        reference, reference_segments = _rows_by_message(transcript, result, call, by_message)
        assert list(_pending_rows(fast)) == reference, (profile.name, call.number)
        seen["stretch"] += any(isinstance(item, _Stretch) for item in fast)
        for item in fast:  # the bulk sums' cases: a system message, the developer-instructions segment
            if isinstance(item, _Stretch):
                stretch = transcript.messages[item.first : item.first + len(item.sizes)]
                seen["stretch, a system message"] += any(m.role is Role.SYSTEM for m in stretch)
                developer = any(m.variant == "developer_instructions" for m in stretch)
                seen["stretch, developer instructions"] += developer
        assert _by_fate(fast) == _by_fate(reference)
        made = CallRows(transcript, fast)
        assert len(made) == len(reference)
        if len(made):  # read out of order: a row found by position in its stretch, then all of them
            assert made[len(made) // 2] == CallRows(transcript, reference)[len(made) // 2]
        assert made == CallRows(transcript, reference)
        assert fast_segments == reference_segments, (profile.name, call.number)
        seen["truncated"] += bool(set(at.truncated).difference(at.group_of))
        if at.ascending is not None:  # the compact lookups, and what they must get right
            _count_compact(at, call, reference, seen)
        for row in reference:
            if isinstance(row, _Pending):
                plain = row.fate is Fate.KEPT and not row.rule and not row.grouped
                seen["plain" if plain else f"pending {row.fate.value}"] += 1
                seen["no turn yet"] += row.turn is None
                seen["grouped"] += row.grouped
            else:
                seen[row.kind] += 1


def _count_compact(at, call, reference, seen: Counter[str]) -> None:
    seen["compact"] += 1
    seen["compact, a message held by no native"] += any(i < call.message_index for i in at.ascending.unheld)
    seen["compact, a native not sent"] += any(
        isinstance(r, Row) and r.kind == "dropped-run" for r in reference
    )
    seen["compact, a breadcrumb"] += call.breadcrumb_at is not None
    seen["compact, a rule"] += bool(at.group_of or at.truncated)


@pytest.mark.parametrize("name", sorted(PROFILES))
@pytest.mark.parametrize("transcript_name", sorted(TRANSCRIPTS))
def test_bulk_rows_are_the_rows_message_by_message(transcript_name, name):
    seen: Counter[str] = Counter()
    _compare_every_call(
        parse_transcript(TRANSCRIPTS[transcript_name]), profile_from_document(PROFILES[name], name=name), seen
    )
    assert seen["plain"]


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_bulk_rows_with_results_grouped_into_one_native_message(name):
    seen: Counter[str] = Counter()
    _compare_every_call(PARALLEL, profile_from_document(PROFILES[name], name=name), seen)
    assert seen["plain"]


@pytest.mark.parametrize("transcript", ["parallel", *sorted(TRANSCRIPTS)])
def test_bulk_rows_with_tool_results_truncated(transcript):
    seen: Counter[str] = Counter()
    read = PARALLEL if transcript == "parallel" else parse_transcript(TRANSCRIPTS[transcript])
    _compare_every_call(read, profile_from_document(TRUNCATING, name="truncating"), seen)


@pytest.mark.parametrize("key", sorted(PRESETS_BY_KEY))
def test_bulk_rows_of_every_preset_on_a_synthetic_session(key):
    seen: Counter[str] = Counter()
    profile = profile_from_document(PRESETS_BY_KEY[key].document, name=key)
    _compare_every_call(parse_transcript(SYNTHETIC, format="openclaw"), profile, seen)
    assert seen["plain"]


@pytest.mark.parametrize("key", ["openclaw", "openclaw-2026.9.6"])
@pytest.mark.parametrize("shape", ["screenshots", "thinking"])
def test_bulk_rows_of_openclaw_calls_that_clean_images_or_strip_thinking(key, shape):
    """Calls whose old screenshots are cleaned, or whose older assistants are sent without their thinking
    (a Claude 3.7 route): the rows of every call, both ways."""
    options: dict[str, Any] = (
        {"screenshot_every": 2}
        if shape == "screenshots"
        else {"thinking": True, "model": "claude-3-7-sonnet-20250219"}
    )
    text = synthetic_openclaw_session(14, **options)
    seen: Counter[str] = Counter()
    profile = profile_from_document(PRESETS_BY_KEY[key].document, name=key)
    _compare_every_call(parse_transcript(text, format="openclaw"), profile, seen)
    assert seen["plain"] and (seen["pending image-replaced"] or seen["pending thinking-dropped"])


def _sample_texts() -> list[tuple[str, str]]:
    paths = sorted(SAMPLES_DIR.glob("*.json*"))
    return [(p.name, p.read_text(encoding="utf-8")) for p in paths]


@pytest.mark.parametrize("key", sorted(PRESETS_BY_KEY))
def test_bulk_rows_on_the_shared_samples(key):
    """The shared sample sessions (real shapes: a Claude Code session, a SWE-agent trajectory...)."""
    texts = _sample_texts()
    if not texts:
        pytest.skip("no shared samples here")
    seen: Counter[str] = Counter()
    profile = profile_from_document(PRESETS_BY_KEY[key].document, name=key)
    for _, text in texts:
        _compare_every_call(parse_transcript(text), profile, seen)
    assert seen["plain"]


def test_bulk_rows_on_the_openclaw_conformance_sessions():
    """Every message list of the OpenClaw conformance vectors as a session (thinking, images, failed
    calls), through each OpenClaw preset."""
    sessions = _vector_sessions()
    assert len(sessions) > 50
    seen: Counter[str] = Counter()
    for key in sorted(k for k in PRESETS_BY_KEY if k.startswith("openclaw")):
        profile = profile_from_document(PRESETS_BY_KEY[key].document, name=key)
        for text in sessions:
            try:
                transcript = parse_transcript(text, format="openclaw")
            except TranscriptParseError:  # a vector's side with nothing a session can hold
                continue
            seen["session"] += 1
            _compare_every_call(transcript, profile, seen)
    assert seen["session"] > 50 and seen["compact"] and seen["plain"]


def test_the_cases_cover_every_kind_of_row_the_bulk_path_leaves_or_makes():
    """Plain rows before the first user turn and after it, grouped rows, rows a rule changed, dropped
    runs, breadcrumbs and messages outside the history all occur, so a bulk path that mishandled any of
    them would differ from the reference somewhere above."""
    seen: Counter[str] = Counter()
    for text in TRANSCRIPTS.values():
        for name, document in PROFILES.items():
            _compare_every_call(parse_transcript(text), profile_from_document(document, name=name), seen)
    for name, document in PROFILES.items():
        _compare_every_call(PARALLEL, profile_from_document(document, name=name), seen)
    _compare_every_call(PARALLEL, profile_from_document(TRUNCATING, name="truncating"), seen)
    for key in ("openclaw", "openclaw-2026.9.6"):
        profile = profile_from_document(PRESETS_BY_KEY[key].document, name=key)
        _compare_every_call(parse_transcript(SYNTHETIC, format="openclaw"), profile, seen)
    for kind in (
        "plain",
        "no turn yet",
        "grouped",
        "dropped-run",
        "breadcrumb",
        "pending kept",
        "pending failed",
        "truncated",
        "stretch",
        "stretch, a system message",
        "stretch, developer instructions",
        "compact",
        "compact, a message held by no native",
        "compact, a native not sent",
        "compact, a breadcrumb",
        "compact, a rule",
    ):
        assert seen[kind], (kind, seen)
    assert any(
        k.startswith("pending ") and k not in ("pending kept", "pending failed", "pending not held")
        for k in seen
    ), seen


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sessions(), st.sampled_from(sorted(PROFILES)))
def test_bulk_rows_on_generated_sessions_with_failed_calls(transcript, name):
    _compare_every_call(transcript, profile_from_document(PROFILES[name], name=name), Counter())


def test_rows_made_on_read_index_slice_and_iterate_like_a_list():
    """Both sequences of rows made on read (a call's rows, a comparison's) behave as the list they stand
    for: negative indexes, out-of-range errors, slices with steps, iteration in order."""
    transcript = parse_transcript(TRANSCRIPTS["tool-heavy chat"])
    results = [
        simulate(transcript, profile_from_document(PROFILES[name], name=name))
        for name in ("zeroclaw turn cap", "ai-profile small window")
    ]
    sequences = [
        call_view(transcript, results[0], len(results[0].calls)).rows,
        CompareRows(transcript, results),
    ]
    for rows in sequences:
        whole = list(rows)
        assert len(whole) == len(rows) > 3
        assert rows[-1] == whole[-1] and rows[0] == whole[0]
        assert rows[1:-1:2] == whole[1:-1:2] and rows[::-1] == whole[::-1]
        for bad in (len(whole), -len(whole) - 1):
            with pytest.raises(IndexError):
                rows[bad]
        assert repr(rows).startswith(type(rows).__name__ + "(")


def _timeline_call_by_call(result, max_bars):
    """The timeline's bars worked out call by call: what ``timeline`` reads with C-level maps."""
    calls = result.calls
    size = max(1, -(-len(calls) // max_bars))
    bars = []
    for start in range(0, len(calls), size):
        bucket = calls[start : start + size]
        states = {c.overflow for c in bucket}
        bars.append(
            (
                bucket[0].number,
                bucket[-1].number,
                max(c.tokens_full for c in bucket),
                max(c.tokens_sent for c in bucket),
                any(c.trimmed for c in bucket),
                "failed" if "failed" in states else "recovered" if "recovered" in states else "none",
                sum(len(c.retries) for c in bucket),
                tuple(dict.fromkeys(m for c in bucket for m in c.marks)),
                sum(1 for c in bucket if c.failed),
            )
        )
    return bars


def _bars(result, max_bars):
    return [
        (b.first_call, b.last_call, b.full, b.sent, b.trimmed, b.overflow, b.retries, b.marks, b.failed)
        for b in timeline(result, max_bars=max_bars).bars
    ]


@pytest.mark.parametrize("key", sorted(PRESETS_BY_KEY))
def test_timeline_bars_are_their_calls_read_one_by_one(key):
    result = simulate(
        parse_transcript(SYNTHETIC, format="openclaw"),
        profile_from_document(PRESETS_BY_KEY[key].document, name=key),
    )
    for max_bars in (1, 7, 400):
        assert _bars(result, max_bars) == _timeline_call_by_call(result, max_bars)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sessions(), st.sampled_from(sorted(PROFILES)), st.integers(min_value=1, max_value=6))
def test_timeline_bars_with_failed_and_recovered_calls(transcript, name, max_bars):
    result = simulate(transcript, profile_from_document(PROFILES[name], name=name))
    assert _bars(result, max_bars) == _timeline_call_by_call(result, max_bars)
    _check_totals(result)
    assert result.failed_calls == sum(1 for c in result.calls if c.failed)


def _compare_the_covering_cases() -> None:
    """:func:`_compare_every_call` over the cases that cover every kind of row (an AssertionError at the
    first difference)."""
    seen: Counter[str] = Counter()
    for text in TRANSCRIPTS.values():
        for name, document in PROFILES.items():
            _compare_every_call(parse_transcript(text), profile_from_document(document, name=name), seen)
    for key in ("openclaw", "openclaw-2026.9.6"):
        profile = profile_from_document(PRESETS_BY_KEY[key].document, name=key)
        _compare_every_call(parse_transcript(SYNTHETIC, format="openclaw"), profile, seen)


def _forgets_the_gaps(held: list[int]) -> view._Ascending | None:
    """A broken compact lookup: it forgets the messages no native holds (a system prompt, a failed reply)."""
    return view._Ascending(held, [])


def _sends_everything(self: view._Ranges, size: int) -> Iterator[tuple[int, int]]:
    """A broken compact lookup: no native is left unsent."""
    return iter(())


def _one_segment(roles, is_user, sizes, segments) -> None:
    """A broken bulk sum: every plain message's size goes to the assistant's segment."""
    segments["assistant"] += sum(sizes)


@pytest.mark.parametrize(
    ("target", "name", "broken"),
    [
        (view._Ascending, "of", staticmethod(_forgets_the_gaps)),
        (view._Ranges, "gaps", _sends_everything),
        (view, "_add_by_role", _one_segment),
        (view, "_TOOL_RESULT", attrgetter("role")),  # every user message seen as a tool result: no turns
    ],
    ids=["gaps", "unsent", "segments", "turns"],
)
def test_a_broken_compact_or_bulk_path_is_noticed(monkeypatch, target, name, broken):
    monkeypatch.setattr(target, name, broken)
    with pytest.raises((AssertionError, KeyError)):  # a row that differs, or a message found in no native
        _compare_the_covering_cases()


def test_the_timeline_totals_and_trim_links_are_the_replays():
    """The totals the page shows and its trim links, read in the timeline's one pass, are the replay's
    own (``SimulationResult``'s properties) and what a walk over the calls finds."""
    results = [
        simulate(
            parse_transcript(SYNTHETIC, format="openclaw"),
            profile_from_document(PRESETS_BY_KEY[key].document, name=key),
        )
        for key in sorted(PRESETS_BY_KEY)
    ]
    results += [
        simulate(parse_transcript(text), profile_from_document(document, name=name))
        for text in TRANSCRIPTS.values()
        for name, document in PROFILES.items()
    ]
    for result in results:
        _check_totals(result)
    assert any(r.trims for r in results) and any(r.failed_calls for r in results)


def _check_totals(result) -> None:
    tl = timeline(result)
    assert (tl.trims, tl.total_tokens_sent, tl.overflow_failures, tl.failed_calls) == (
        result.trims,
        result.total_tokens_sent,
        result.overflow_failures,
        result.failed_calls,
    )
    calls = result.calls
    assert tl.trimmed_calls == tuple(c.number for c in calls if c.trimmed)
    # The call a page opens first: the first trimmed one, else the last one.
    assert tl.default_call == next((c.number for c in calls if c.trimmed), len(calls))
    for number in range(1, len(calls) + 1):
        assert tl.next_trim(number) == next((c.number for c in calls[number:] if c.trimmed), None)
        previous = next((c.number for c in reversed(calls[: number - 1]) if c.trimmed), None)
        assert tl.previous_trim(number) == previous


def _blind(field: str, value: object):
    """A broken bar reader: it reads ``field`` as ``value`` in every bar."""
    read = view._bar

    def bar(*args):
        return dataclasses.replace(read(*args), **{field: value})

    return bar


@pytest.mark.parametrize(("field", "value"), [("marks", ()), ("trimmed", False), ("failed", 0), ("sent", 0)])
def test_a_broken_timeline_bar_is_noticed(monkeypatch, field, value):
    monkeypatch.setattr(view, "_bar", _blind(field, value))
    _a_timeline_differs()


def test_a_broken_quiet_bucket_check_is_noticed(monkeypatch):
    """A bucket wrongly taken for one without overflow, retries, marks or errors."""
    columns = view.call_columns

    def quiet(calls):
        return dataclasses.replace(columns(calls), rare=[view._QUIET] * len(calls))

    monkeypatch.setattr(view, "call_columns", quiet)
    _a_timeline_differs()


def _a_timeline_differs() -> None:
    """Some preset's or profile's bars differ from the call-by-call reference."""
    with pytest.raises(AssertionError):
        for key in sorted(PRESETS_BY_KEY):
            result = simulate(
                parse_transcript(SYNTHETIC, format="openclaw"),
                profile_from_document(PRESETS_BY_KEY[key].document, name=key),
            )
            assert _bars(result, 400) == _timeline_call_by_call(result, 400)
        for text in TRANSCRIPTS.values():
            for name, document in PROFILES.items():
                result = simulate(parse_transcript(text), profile_from_document(document, name=name))
                assert _bars(result, 7) == _timeline_call_by_call(result, 7)
