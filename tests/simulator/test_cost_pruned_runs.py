"""Pruned calls built from runs, and priced by resumed walks, equal the general path.

* ``_AsSent.by_runs`` (a call from slices of kept as-sent segments) against ``_AsSent.marked`` (message by
  message), over random natives, runs, single changes and fates, call after call on one builder (so the kept
  segments carry over), Hypothesis;
* ``pruned_runs`` (OpenClaw's hard-cleared run told as a run) against ``pruned_contents``, and the requests
  and prices built from each, over seeded synthetic sessions;
* a session that alternates between its history as stored and as pruned, priced by the trie (which resumes
  the walk it shares most with) against the reference cache model, Hypothesis.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.cost import from_replay
from simulator.cost.breakpoints import pi_breakpoints, zeroclaw_breakpoints
from simulator.cost.breaks import cache_breaks
from simulator.cost.cache import Request, Segment, SharedPrefix, extends, price_requests
from simulator.cost.cache import Role as SegmentRole
from simulator.cost.from_replay import (
    TranscriptTokens,
    _AsSent,
    _few_fates,
    _native_segments,
    requests_from_result,
)
from simulator.cost.pricing import pricing_for
from simulator.importers import parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay import openclaw as openclaw_replay
from simulator.replay import simulate
from simulator.replay.model import CallRecord, Fate, FateGroup, IndexSlice
from simulator.replay.openclaw import (
    CallInput,
    OnDemand,
    message_text,
    native_messages,
    pruned_contents,
    sent_messages,
)
from simulator.replay.openclaw_runs import pruned_runs
from simulator.replay.sent_runs import SentLayer, SentRun, SentRuns
from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Role
from tests.simulator.test_cost_shared_properties import PRICINGS, reference

FATES = (Fate.HARD_CLEARED, Fate.SOFT_TRIMMED, Fate.TRUNCATED)


def _natives(n: int) -> list[Segment]:
    roles: tuple[SegmentRole, ...] = ("user", "assistant", "tool")
    return [Segment(f"n{i}", 10 + i % 7, roles[i % 3], i % 5 != 0) for i in range(n)]


@st.composite
def pruned_calls(draw: st.DrawFn) -> tuple[int, list[list[int]], list[tuple[Any, Any]]]:
    """Natives, growing index lists, and calls: each with spans, changes told as runs and singles, fates."""
    n = draw(st.integers(min_value=1, max_value=60))
    sources = [sorted(draw(st.sets(st.integers(min_value=0, max_value=n - 1), max_size=n))) for _ in range(2)]

    def window() -> IndexSlice:
        k = draw(st.integers(min_value=0, max_value=1))
        start = draw(st.integers(min_value=0, max_value=len(sources[k])))
        stop = draw(st.integers(min_value=start, max_value=len(sources[k])))
        return IndexSlice(sources[k], start, stop)

    calls = []
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=n), min_size=2, max_size=4)))
        spans = tuple((a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False) if a < b)
        runs = tuple(
            SentRun(key, window(), _content(key))
            for key in draw(st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True))
        )
        singles = {
            i: (0, f"single {draw(st.integers(min_value=0, max_value=2))}")
            for i in draw(st.sets(st.integers(min_value=0, max_value=n + 2), max_size=5))
        }
        told_as_runs = draw(st.booleans())
        edited: Mapping[int, tuple[int, str]] = SentRuns(singles, runs) if told_as_runs else singles
        groups = []
        for _ in range(draw(st.integers(min_value=0, max_value=3))):
            fate = draw(st.sampled_from(FATES))
            recorded = draw(st.booleans())
            if runs and recorded:
                # The replay's own record of a run: the same indices, in a list of its own.
                chosen: SentRun = draw(st.sampled_from(runs))
                indices: Sequence[int] = tuple(chosen.indices)
            elif draw(st.booleans()):
                indices = window()
            else:
                indices = tuple(sorted(draw(st.sets(st.integers(min_value=0, max_value=n - 1), max_size=6))))
            groups.append(FateGroup(fate, "rule", indices))
        calls.append((_call(spans, groups), edited))
    return n, sources, calls


def _call(spans: tuple[tuple[int, int], ...], groups: list[FateGroup]) -> CallRecord:
    # What building a call reads of its record: the spans sent and the fates.
    return cast(CallRecord, SimpleNamespace(sent=spans, fated=tuple(groups)))


def _content(key: str) -> Any:
    # The promise a run makes: the same content for the same key and index at every call.
    return lambda index: (0, f"{key} as sent {index}")


@settings(max_examples=400, deadline=None)
@given(pruned_calls())
def test_a_call_built_from_runs_is_the_call_built_message_by_message(drawn):
    n, _, calls = drawn
    natives = _natives(n)
    fast, general = _AsSent(natives), _AsSent(natives)
    leading = (Segment("system", 5, "system"),)
    for call, edited in calls:
        marks = {i: group.fate.value for group in call.fated for i in group.indices}
        expected = general.marked(call, edited, marks, leading)
        built = fast.by_runs(call, edited, leading)
        if built is not None:
            assert built == expected


def test_runs_are_taken_for_the_replays_shape():
    """The fast path is taken (not only agreed with) for a cleared run recorded by the replay too."""
    natives = _natives(40)
    source = [3, 5, 8, 13, 21, 34]
    run = SentRun("k", IndexSlice(source, 0, 5), _content("k"))
    call = _call(
        ((0, 40),),
        [FateGroup(Fate.HARD_CLEARED, "rule", tuple(source[:5])), FateGroup(Fate.TRUNCATED, "rule", (30,))],
    )
    edited = SentRuns({8: (0, "trimmed")}, (run,))
    built = _AsSent(natives).by_runs(call, edited, ())
    marks = {i: group.fate.value for group in call.fated for i in group.indices}
    assert built is not None
    assert built == _AsSent(natives).marked(call, edited, marks, ())


SESSIONS = [
    {"turns": 500},
    {"turns": 500, "pause_every": 1},
    {"turns": 400, "pause_every": 2, "tool_result_chars": 9000},
    {"turns": 200, "pause_every": 1, "tool_result_chars": 30000},
    {"turns": 400, "pause_every": 3, "tool_result_chars": 5000},
]


HEAVY_SESSIONS = [
    {"turns": 150, "screenshot_every": 4, "thinking": True, "model": "claude-3-7-sonnet-20250219"},
    {"turns": 150, "pause_every": 2, "thinking": True, "model": "claude-3-7-sonnet-20250219"},
    {"turns": 120, "pause_every": 1, "screenshot_every": 2, "tool_result_chars": 9000},
]
"""Old screenshots cleaned and old thinking stripped at every call (told as layers), pruned or not."""


@pytest.mark.parametrize(
    ("preset", "session"),
    [
        *((preset, session) for preset in ("openclaw", "openclaw-anthropic") for session in SESSIONS),
        *((preset, session) for preset in ("openclaw", "openclaw-2026.9.6") for session in HEAVY_SESSIONS),
    ],
)
def test_openclaw_runs_price_as_the_contents_message_by_message(preset, session):
    kwargs = dict(session)
    turns = kwargs.pop("turns")
    transcript = parse_transcript(synthetic_openclaw_session(turns, session_id="runs", **kwargs))
    profile = profile_from_document(dict(PRESETS_BY_KEY[preset].document), name=preset)
    result = simulate(transcript, profile)
    settings_ = profile.settings
    assert isinstance(settings_, OpenClawSettings)
    told_as_runs = 0
    for call in result.calls:
        if call.fated:
            runs = pruned_runs(transcript, settings_, result, call)
            told_as_runs += isinstance(runs, SentRuns)
            assert dict(runs) == pruned_contents(transcript, settings_, result, call)
    if preset == "openclaw" and session == SESSIONS[0]:
        assert told_as_runs > 20  # the path under test is taken

    built, expected = _requests_both_ways(transcript, settings_, result)
    assert [tuple(r.segments) for r in built] == [tuple(r.segments) for r in expected]
    assert [tuple(r.segments) for r in expected] == _each_call_on_its_own(transcript, settings_, result)
    assert [r.breakpoints for r in built] == [r.breakpoints for r in expected]
    for key in ("anthropic/claude-sonnet-4-6", "openai/gpt-5.5"):
        pricing = pricing_for(key).pricing
        assert price_requests(built, pricing) == price_requests(expected, pricing)


def _requests_both_ways(transcript, settings_, result) -> tuple[tuple[Request, ...], tuple[Request, ...]]:
    """The requests built from the runs (the fast path) and from the contents message by message."""

    def general(call):
        return pruned_contents(transcript, settings_, result, call)

    def fast(call):
        return pruned_runs(transcript, settings_, result, call)

    return (
        requests_from_result(transcript, result, changed=fast),
        requests_from_result(transcript, result, changed=general),
    )


def _each_call_on_its_own(transcript, settings_, result) -> list[tuple[Segment, ...]]:
    """Every call built message by message with nothing shared between calls (no growth, no kept runs)."""
    tokens = TranscriptTokens.of(transcript)
    native, held = _native_segments(transcript.messages, result.origins, tokens)
    leading = tuple(
        Segment(tokens.fingerprints[i], tokens.tokens[i], "system")
        for i, m in enumerate(transcript.messages)
        if m.role is Role.SYSTEM and i not in held
    )
    out = []
    for call in result.calls:
        assert call.breadcrumb_at is None
        edited = pruned_contents(transcript, settings_, result, call) if call.fated else {}
        marks = {i: group.fate.value for group in call.fated for i in group.indices}
        out.append(tuple(_AsSent(native).marked(call, edited, marks, leading)))
    return out


# A session pruned now and then: each call sends the stored history (grown) or a pruned view of it.
call_steps = st.tuples(
    st.integers(min_value=0, max_value=12),
    st.booleans(),
    st.lists(st.floats(min_value=0, max_value=1), max_size=4),
    st.one_of(st.floats(min_value=0, max_value=299), st.floats(min_value=300, max_value=5000)),
)


@st.composite
def alternating(draw: st.DrawFn) -> list[tuple[list[Segment], float]]:
    held = [Segment("system", draw(st.integers(min_value=0, max_value=3000)), "system")]
    cleared = Segment("cleared", 3, "tool")
    out: list[tuple[list[Segment], float]] = []
    at = 0.0
    frontier = 0.0
    for grow, prune, where, gap in draw(st.lists(call_steps, min_size=1, max_size=30)):
        held += [
            Segment(
                f"m{len(held)}",
                draw(st.integers(min_value=1, max_value=700)),
                ("user", "tool")[len(held) % 2],
            )
            for _ in range(grow)
        ]
        sent = list(held)
        if prune and len(held) > 1:
            # The oldest results cleared up to a frontier that mostly moves on, plus a few elsewhere.
            frontier = max(frontier, draw(st.floats(min_value=0, max_value=1)))
            for i in range(1, int(frontier * len(held))):
                if i % 2 == 0:
                    sent[i] = cleared
            for w in where:
                sent[min(len(held) - 1, 1 + int(w * (len(held) - 1)))] = Segment("trimmed", 2, "tool")
        at += gap
        out.append((sent, at))
    return out


@settings(max_examples=300, deadline=None)
@given(
    alternating(),
    st.sampled_from(PRICINGS),
    st.sampled_from([pi_breakpoints, zeroclaw_breakpoints]),
    st.sampled_from(["5m", "1h"]),
)
def test_a_session_pruned_now_and_then_prices_as_the_reference(session, pricing, place, ttl):
    shared: list[Request] = []
    previous: SharedPrefix | None = None
    for sent, at in session:
        previous = extends(previous, sent)
        shared.append(Request(previous, at, 5, place(previous)))
    plain = [dataclasses.replace(r, segments=tuple(r.segments)) for r in shared]
    expected = reference(plain, pricing, ttl)
    cost = price_requests(shared, pricing, ttl)
    assert list(cost.calls) == expected
    assert price_requests(plain, pricing, ttl) == cost
    assert cache_breaks(shared, cost) == cache_breaks(plain, cost)


@settings(max_examples=400, deadline=None)
@given(pruned_calls(), st.booleans())
def test_a_call_that_changed_no_content_is_planned_as_the_general_path_plans_it(drawn, told_as_runs):
    """The shortcut for calls with a few fated messages and no content changed (ai-profile's re-added first
    message) against the general plan, call after call on one builder."""
    n, _, calls = drawn
    natives = _natives(n)
    fast, general = _AsSent(natives), _AsSent(natives)
    nothing: Mapping[int, tuple[int, str]] = SentRuns({}, ()) if told_as_runs else {}
    for call, _ in calls:
        expected = general._planned(call, nothing)
        few = _few_fates(call)
        if few is not None:
            assert ([], few) == expected
        assert fast._plan(call, nothing) == expected


def test_a_broken_shortcut_plan_is_noticed():
    """A shortcut that let the first group's fate win over a later one's is told apart by the comparison."""
    call = _call(
        ((0, 10),),
        [FateGroup(Fate.TRUNCATED, "rule", (2,)), FateGroup(Fate.SOFT_TRIMMED, "rule", (2, 4))],
    )
    expected = _AsSent(_natives(10))._planned(call, {})
    assert ([], _few_fates(call)) == expected

    def first_wins(call: CallRecord) -> dict[int, tuple[str | None, str]]:
        out: dict[int, tuple[str | None, str]] = {}
        for group in call.fated:
            for index in group.indices:
                out.setdefault(index, (group.fate.value, ""))
        return out

    assert ([], first_wins(call)) != expected


HEAVY = {"screenshot_every": 4, "thinking": True, "model": "claude-3-7-sonnet-20250219"}
"""Old screenshots cleaned and old thinking stripped at every call: most calls change hundreds of messages."""


def _reference_contents(transcript, settings_, result, call) -> dict[int, tuple[int, str]]:
    """What the call sent changed, through the reference transforms over its whole history."""
    natives = native_messages(transcript)
    changed = sent_messages(transcript, settings_, result, call.number, natives)
    return {
        i: (openclaw_replay._tokens(estimate_message_chars(m)), message_text(m)) for i, m in changed.items()
    }


@pytest.mark.parametrize("session", [{"turns": 120, **HEAVY}, {"turns": 90, "pause_every": 2, **HEAVY}])
def test_the_2026_9_6_runs_read_the_view_the_replay_kept_not_the_reference(session, monkeypatch):
    kwargs = dict(session)
    turns = kwargs.pop("turns")
    transcript = parse_transcript(synthetic_openclaw_session(turns, session_id="heavy", **kwargs))
    preset = "openclaw-2026.9.6"
    profile = profile_from_document(dict(PRESETS_BY_KEY[preset].document), name=preset)
    result = simulate(transcript, profile)
    settings_ = profile.settings
    assert isinstance(settings_, OpenClawSettings)
    fated = [call for call in result.calls if call.fated]
    expected = {call.number: _reference_contents(transcript, settings_, result, call) for call in fated}
    assert sum(len(c) for c in expected.values()) > 1000  # the shape under test: many changed per call

    def recomputed(self, item):
        raise AssertionError("the call was recomputed: the replay kept its view")

    monkeypatch.setattr(OnDemand, "outcome", recomputed)
    for call in fated:
        assert dict(pruned_runs(transcript, settings_, result, call)) == expected[call.number]


def test_a_view_of_another_call_is_caught_by_the_reference():
    """The comparison above has teeth: each call handed the view of the call before differs somewhere."""
    transcript = parse_transcript(synthetic_openclaw_session(60, session_id="heavy", **HEAVY))
    preset = "openclaw-2026.9.6"
    profile = profile_from_document(dict(PRESETS_BY_KEY[preset].document), name=preset)
    result = simulate(transcript, profile)
    settings_ = profile.settings
    assert isinstance(settings_, OpenClawSettings)
    shifted = [result.resume[0], *result.resume[:-1]]
    items = [
        dataclasses.replace(item, changed=before.changed)
        for item, before in zip(result.resume, shifted, strict=True)
        if isinstance(item, CallInput) and isinstance(before, CallInput)
    ]
    assert len(items) == len(result.resume)
    wrong = dataclasses.replace(result, resume=tuple(items))
    differs = [
        call.number
        for call in result.calls
        if call.fated
        and dict(pruned_runs(transcript, settings_, wrong, call))
        != _reference_contents(transcript, settings_, result, call)
    ]
    assert len(differs) > 10


@st.composite
def layered_calls(draw: st.DrawFn) -> tuple[int, list[tuple[Any, Any]]]:
    """Calls whose changes include layers: prefixes of one or two ascending lists, mostly growing from call
    to call (as a replay tells them), sometimes not (a copy of their own then), with runs, singles, fates."""
    n = draw(st.integers(min_value=2, max_value=50))
    lists = [sorted(draw(st.sets(st.integers(min_value=0, max_value=n - 1), max_size=n))) for _ in range(3)]
    layer_lists, run_list = lists[:2], lists[2]
    stops = [0, 0]
    calls = []
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        end = draw(st.integers(min_value=1, max_value=n))
        cut = draw(st.integers(min_value=0, max_value=end))
        spans = ((0, cut), (cut, end)) if draw(st.booleans()) else ((0, end),)
        layers = []
        for k in draw(st.lists(st.sampled_from([0, 1]), min_size=1, max_size=2, unique=True)):
            grown = draw(st.booleans()) or draw(st.booleans())
            low = stops[k] if grown else 0
            stops[k] = draw(
                st.integers(min_value=min(low, len(layer_lists[k])), max_value=len(layer_lists[k]))
            )
            layers.append(
                SentLayer(f"layer{k}", IndexSlice(layer_lists[k], 0, stops[k]), _content(f"layer{k}"))
            )
        runs: tuple[SentRun, ...] = ()
        if draw(st.booleans()):
            start = draw(st.integers(min_value=0, max_value=len(run_list)))
            stop = draw(st.integers(min_value=start, max_value=len(run_list)))
            runs = (SentRun("run", IndexSlice(run_list, start, stop), _content("run")),)
        singles = {
            i: (0, f"single {draw(st.integers(min_value=0, max_value=2))}")
            for i in draw(st.sets(st.integers(min_value=0, max_value=n - 1), max_size=4))
        }
        groups = [
            FateGroup(Fate.IMAGE_REPLACED, "rule", layer.indices) for layer in layers if draw(st.booleans())
        ]
        if draw(st.booleans()):
            few = tuple(sorted(draw(st.sets(st.integers(min_value=0, max_value=n - 1), max_size=4))))
            groups.append(FateGroup(Fate.TRUNCATED, "rule", few))
        calls.append((_call(spans, groups), SentRuns(singles, runs, tuple(layers))))
    return n, calls


def _check_layers(calls: list[tuple[Any, Any]], fast: _AsSent) -> int:
    """Every call built with layers is the call built message by message, then and after every later call
    (a later call must not change what an earlier one was handed); how many took the layered path."""
    general = _AsSent(fast.native)
    leading = [Segment("system", 5, "system")]
    built: list[tuple[Any, list[Segment]]] = []
    for call, edited in calls:
        marks = {i: group.fate.value for group in call.fated for i in group.indices}
        expected = general.marked(call, edited, marks, leading)
        rope = fast.by_runs(call, edited, leading)
        if rope is not None:
            assert list(rope) == expected
            built.append((rope, expected))
    for rope, expected in built:
        assert list(rope) == expected
    return len(built)


@settings(max_examples=500, deadline=None)
@given(layered_calls())
def test_a_call_built_over_layers_is_the_call_built_message_by_message_then_and_later(drawn):
    n, calls = drawn
    _check_layers(calls, _AsSent(_natives(n)))


def _replay_like(n: int = 40, calls: int = 12) -> list[tuple[Any, Any]]:
    """Layers as a replay tells them: windows of two lists growing at every call, a run, a single."""
    thinking, images, cleared = list(range(1, n, 4)), list(range(2, n, 8)), list(range(2, n, 4))
    out = []
    for k in range(1, calls + 1):
        end = min(n, 3 * k + 4)
        layers = (
            SentLayer(
                "thinking", IndexSlice(thinking, 0, bisect_left(thinking, end - 2)), _content("thinking")
            ),
            SentLayer("images", IndexSlice(images, 0, bisect_left(images, end - 8)), _content("images")),
        )
        runs = (
            SentRun("cleared", IndexSlice(cleared, 0, bisect_left(cleared, end // 4)), _content("cleared")),
        )
        groups = [FateGroup(Fate.THINKING_DROPPED, "rule", layer.indices) for layer in layers[:1]]
        # A single over the newest stripped assistant (past the frontier): the single wins.
        newest = layers[0].indices[-1] if layers[0].indices else end - 1
        out.append((_call(((0, end),), groups), SentRuns({newest: (0, "trimmed")}, runs, layers)))
    return out


def test_layers_told_as_a_replay_tells_them_take_the_layered_path():
    calls = _replay_like()
    assert _check_layers(calls, _AsSent(_natives(40))) == len(calls)


def test_a_layered_copy_read_past_its_frontier_is_caught(monkeypatch):
    """Were the copy sliced to the end (its frontier ignored), a later call's layer would change what an
    earlier call was handed, or the newest layer messages would be read before they are written."""
    original = _AsSent._layered

    def past_frontier(self, layers):
        found = original(self, layers)
        return None if found is None else (found[0], len(found[0]))

    monkeypatch.setattr(_AsSent, "_layered", past_frontier)
    with pytest.raises(AssertionError):
        _check_layers(_replay_like(), _AsSent(_natives(40)))


def test_a_layer_that_wins_over_a_single_is_caught(monkeypatch):
    def over_singles(edited, frontier, under):
        return {
            index: under[index] for layer in edited.layers for index in layer.indices if index >= frontier
        }

    monkeypatch.setattr(from_replay, "_layer_tail", over_singles)
    with pytest.raises(AssertionError):
        _check_layers(_replay_like(), _AsSent(_natives(40)))


def test_cleaned_results_later_trimmed_or_cleared_are_told_apart_from_the_cleaned_layer():
    """Gemini, a 40k-token window and TTL pauses: results with screenshots are cleaned (a layer), then
    soft-trimmed and hard-cleared (told one by one over it): every call as the reference sends it, and
    priced as the contents message by message."""
    from tests.simulator.test_openclaw_fast_2026_9_images import GEMINI_40K, _gemini_with_screenshots

    transcript = parse_transcript(_gemini_with_screenshots([1_500, 6_000, 300, 9_000, 12_000], every=3))
    profile = profile_from_document(dict(GEMINI_40K), name="gemini")
    result = simulate(transcript, profile)
    settings_ = profile.settings
    assert isinstance(settings_, OpenClawSettings)
    apart = 0
    for call in result.calls:
        if not call.fated:
            continue
        runs = pruned_runs(transcript, settings_, result, call)
        assert dict(runs) == _reference_contents(transcript, settings_, result, call)
        if isinstance(runs, SentRuns) and runs.layers:
            apart += bool(set(runs.singles) & set(runs.layers[0].indices))
    assert apart > 3  # cleaned results sent trimmed or cleared over the layer: the path under test

    built, expected = _requests_both_ways(transcript, settings_, result)
    assert [tuple(r.segments) for r in built] == [tuple(r.segments) for r in expected]


def test_a_cleaned_result_told_by_its_layer_after_it_was_trimmed_is_caught(monkeypatch):
    """Were a cleaned result sent trimmed or cleared taken as sent cleaned, the layer would tell it so (its
    count still adds up): the reference sees it."""
    from simulator.replay import openclaw_views
    from tests.simulator.test_openclaw_fast_2026_9_images import GEMINI_40K, _gemini_with_screenshots

    told_apart = openclaw_views.ChangedView.apart_from_cleaned

    def blind(self, cleaned):
        # Every cleaned position taken as sent cleaned: the count still adds up, the content does not.
        found = told_apart(self, cleaned)
        return None if found is None else {p: m for p, m in found.items() if p not in cleaned}

    monkeypatch.setattr(openclaw_views.ChangedView, "apart_from_cleaned", blind)
    transcript = parse_transcript(_gemini_with_screenshots([1_500, 6_000, 300, 9_000, 12_000], every=3))
    profile = profile_from_document(dict(GEMINI_40K), name="gemini")
    result = simulate(transcript, profile)
    settings_ = profile.settings
    assert isinstance(settings_, OpenClawSettings)
    wrong = [
        call.number
        for call in result.calls
        if call.fated
        and dict(pruned_runs(transcript, settings_, result, call))
        != _reference_contents(transcript, settings_, result, call)
    ]
    assert wrong
