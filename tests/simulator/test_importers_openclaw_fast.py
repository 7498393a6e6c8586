"""The OpenClaw importer's fast path (``_openclaw_fast``) gives exactly what the general reader gives.

Every input is parsed twice, with ``openclaw.FAST_PATHS`` on and off, and the two results (or the two
errors, with their reason and line) must have the same ``repr``: fixtures, shared samples, the
conformance vectors' messages written as session files, synthetic sessions of several sizes, hand-made
odd-but-valid (and invalid) lines, and generated entries. The ISO timestamp memo is pinned against
``datetime``, the reused JSON encoder against ``json.dumps`` and the token-count walk against the walk as
it was written before, separately.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.errors import TranscriptParseError
from simulator.importers import _openclaw_fast as _fast
from simulator.importers import openclaw, parse_transcript
from simulator.importers._common import (
    _count_problem,
    _drop_bad_counts,
    compact_json,
    compact_json_tree,
    iso_ms,
)
from simulator.synthetic import synthetic_openclaw_session
from tests.simulator.test_importers_openclaw import BRANCHED
from tests.support import CONFORMANCE_DIR, REPO_DIR, SAMPLES_DIR

FIXTURES = REPO_DIR / "tests" / "fixtures" / "transcripts"
HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-03-08T13:00:00.000Z", "cwd": "/w"}


def _outcome(text: str, fmt: str | None) -> str:
    try:
        return repr(parse_transcript(text, format=fmt))
    except TranscriptParseError as exc:
        return f"error {exc.reason!r} line={exc.line} index={exc.message_index} tried={exc.formats_tried}"


def _assert_same(text: str, monkeypatch: pytest.MonkeyPatch) -> str:
    outcomes = []
    for fast in (True, False):
        monkeypatch.setattr(openclaw, "FAST_PATHS", fast)
        outcomes.append((_outcome(text, None), _outcome(text, "openclaw")))
    assert outcomes[0] == outcomes[1]
    return outcomes[0][1]


def _session(entries: list[dict[str, object]], header: dict[str, object] | None = HEADER) -> str:
    records = ([header] if header is not None else []) + entries
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n"


def _chain(messages: list[object], stamp: object = "2026-03-08T13:00:01.000Z") -> list[dict[str, object]]:
    return [
        {
            "type": "message",
            "id": f"e{i}",
            "parentId": f"e{i - 1}" if i else None,
            "timestamp": stamp,
            "message": message,
        }
        for i, message in enumerate(messages)
    ]


def _files() -> list[tuple[str, str]]:
    paths = sorted(FIXTURES.glob("*")) + sorted(SAMPLES_DIR.glob("*.json*"))
    return [(p.name, p.read_text(encoding="utf-8")) for p in paths if p.name != "README.md"]


@pytest.mark.parametrize(("name", "text"), _files(), ids=[name for name, _ in _files()])
def test_fixture_and_sample_files_parse_the_same_either_way(name, text, monkeypatch):
    _assert_same(text, monkeypatch)


def _vector_sessions() -> list[str]:
    """Every message list of the OpenClaw conformance vectors (inputs and expected outputs), as a session."""
    sessions = []
    for path in sorted((CONFORMANCE_DIR / "openclaw").glob("*.json")):
        for vector in json.loads(path.read_text(encoding="utf-8")):
            for side in (vector.get("input"), vector.get("expected")):
                if isinstance(side, dict) and isinstance(side.get("messages"), list) and side["messages"]:
                    sessions.append(_session(_chain(side["messages"])))
    return sessions


def test_conformance_vector_messages_parse_the_same_either_way(monkeypatch):
    sessions = _vector_sessions()
    assert len(sessions) > 50
    taken: list[bool] = []
    message_entry = _fast.message_entry

    def counted(*args: object) -> object:
        message = message_entry(*args)  # type: ignore[arg-type]
        taken.append(message is not None)
        return message

    monkeypatch.setattr(_fast, "message_entry", counted)
    parsed = [_assert_same(text, monkeypatch) for text in sessions]
    assert sum(p.startswith("Transcript(") for p in parsed) > 50
    # The vectors hold the real shapes (thinking, images, usage with cost, failed calls): nearly all of their
    # messages take the fast path, so the comparison above is not the general reader against itself.
    assert len(taken) > 1000
    assert sum(taken) > 0.95 * len(taken)


@pytest.mark.parametrize("turns", [1, 3, 40, 400])
def test_synthetic_sessions_parse_the_same_either_way(turns, monkeypatch):
    _assert_same(synthetic_openclaw_session(turns, tool_result_chars=500), monkeypatch)


def test_the_test_suites_branched_session_parses_the_same_either_way(monkeypatch):
    _assert_same(_session(BRANCHED[1:], BRANCHED[0]), monkeypatch)


ASSISTANT = {
    "role": "assistant",
    "content": [{"type": "text", "text": "ok"}],
    "provider": "anthropic",
    "model": "m",
    "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3},
    "stopReason": "stop",
    "timestamp": 1772974801000,
}
TOOL_RESULT = {
    "role": "toolResult",
    "toolCallId": "c1",
    "toolName": "read",
    "content": [{"type": "text", "text": "a.py"}],
    "isError": False,
    "timestamp": 1772974802000,
}

# Odd-but-valid messages (and a few the general reader refuses): each one replaces the middle message.
ODD_MESSAGES: list[object] = [
    {"role": "user", "content": "plain"},
    {"role": "user", "content": ""},
    {"role": "user", "content": []},
    {"role": "user", "content": None},
    {"role": "user", "content": [{"type": "text", "text": "x", "extra": 1}], "extra": {"k": [1]}},
    {"role": "user", "content": [{"type": "image", "data": "AAA", "mimeType": "image/png"}]},
    {"role": "user", "content": [{"type": "image", "data": "AAA"}]},
    {"role": "user", "content": [{"type": "image", "data": "AAA", "mimeType": 5}]},
    {"role": "user", "content": [{"type": "thinking", "thinking": "no"}]},
    {"role": "user", "content": [{"type": "video", "url": "x"}]},
    {"role": "user", "content": [{"type": "text"}]},
    {"role": "user", "content": [{"type": "text", "text": None}]},
    {"role": "user", "content": ["bare string block"]},
    {"role": "user", "content": [{"text": "no type"}]},
    {"role": "user", "content": "t", "timestamp": "2026-03-08T15:00:01.000+02:00"},
    {"role": "user", "content": "t", "timestamp": "2026-03-08T13:00:01.123456Z"},
    {"role": "user", "content": "t", "timestamp": "2026-03-08T13:00:01.5Z"},
    {"role": "user", "content": "t", "timestamp": "2026-03-08T13:00:01Z"},
    {"role": "user", "content": "t", "timestamp": "2026-03-08T13:00:01"},
    {"role": "user", "content": "t", "timestamp": "2026-03-08 13:00:01.000Z"},
    {"role": "user", "content": "t", "timestamp": "2026-02-30T13:00:01.000Z"},
    {"role": "user", "content": "t", "timestamp": "2026-03-08T24:00:00.000Z"},
    {"role": "user", "content": "t", "timestamp": "2026-03-08T13:00:60.000Z"},
    {"role": "user", "content": "t", "timestamp": "1969-12-31T23:59:59.999Z"},
    {"role": "user", "content": "t", "timestamp": "2026-03-08T13:00:01.000z"},
    {"role": "user", "content": "t", "timestamp": "２０２６-03-08T13:00:01.000Z"},
    {"role": "user", "content": "t", "timestamp": 1772974801000.7},
    {"role": "user", "content": "t", "timestamp": True},
    {"role": "user", "content": "t", "timestamp": None},
    {"role": "user", "content": "t", "timestamp": "soon"},
    {"role": "user"},
    {"content": "no role"},
    {"role": 7, "content": "x"},
    {"role": "oracle", "content": "x"},
    ASSISTANT,
    {**ASSISTANT, "usage": None},
    {**ASSISTANT, "usage": {}},
    {**ASSISTANT, "usage": {"input": 5}},
    {**ASSISTANT, "usage": {"input": 5.0, "output": 2}},
    {**ASSISTANT, "usage": {"input": 5.5}},
    {**ASSISTANT, "usage": {"input": True}},
    {**ASSISTANT, "usage": {"input": -3, "output": 10**12}},
    {**ASSISTANT, "usage": [1, 2]},
    {**ASSISTANT, "usage": {**ASSISTANT["usage"], "cost": {"total": 0.01}}},  # type: ignore[dict-item]
    {**ASSISTANT, "stopReason": "error"},
    {**ASSISTANT, "stopReason": "error", "errorMessage": "fetch failed"},
    {**ASSISTANT, "stopReason": "error", "errorMessage": ""},
    {**ASSISTANT, "stopReason": "error", "errorMessage": 500},
    {**ASSISTANT, "stopReason": 3},
    {**ASSISTANT, "model": None, "provider": None},
    {**ASSISTANT, "model": ["m"]},
    {**ASSISTANT, "content": "plain reply"},
    {**ASSISTANT, "content": [{"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"}]},
    {**ASSISTANT, "content": [{"type": "thinking", "thinking": "", "redacted": True}]},
    {**ASSISTANT, "content": [{"type": "thinking", "thinking": "x", "redacted": "yes"}]},
    {**ASSISTANT, "content": [{"type": "thinking", "thinking": "x", "thinkingSignature": 1}]},
    {**ASSISTANT, "content": [{"type": "thinking"}]},
    {**ASSISTANT, "content": [{"type": "redacted_thinking", "data": "opaque"}]},
    {**ASSISTANT, "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"p": "é"}}]},
    {**ASSISTANT, "content": [{"type": "toolCall", "id": "c1", "name": "read"}]},
    {**ASSISTANT, "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": None}]},
    {**ASSISTANT, "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": [1]}]},
    {**ASSISTANT, "content": [{"type": "toolCall", "id": 1, "name": "read", "arguments": {}}]},
    {**ASSISTANT, "content": [{"type": "toolCall", "id": "c1", "arguments": {}}]},
    {**ASSISTANT, "content": [{"type": "toolCall", "id": "c", "name": "n", "arguments": {"f": 1.5e300}}]},
    {**ASSISTANT, "content": [{"type": "image", "data": "AAA", "mimeType": "image/png"}]},
    {**ASSISTANT, "content": [{"type": "tool_use", "id": "c1"}]},
    {**ASSISTANT, "timestamp": "2026-03-08T13:00:01.000Z"},
    TOOL_RESULT,
    {**TOOL_RESULT, "isError": True},
    {**TOOL_RESULT, "isError": None},
    {**TOOL_RESULT, "isError": "false"},
    {**TOOL_RESULT, "isError": 0},
    {**TOOL_RESULT, "toolName": None},
    {**TOOL_RESULT, "toolName": 4},
    {**TOOL_RESULT, "toolCallId": None},
    {**TOOL_RESULT, "content": "plain output"},
    {**TOOL_RESULT, "content": [{"type": "image", "data": "AAA", "mimeType": "image/jpeg"}]},
    {"role": "custom", "customType": "note", "content": "hi", "display": True},
    {"role": "hookMessage", "customType": "note", "content": "hi"},
    {"role": "bashExecution", "command": "ls", "output": "a\nb"},
    {"role": "compactionSummary", "summary": "before"},
    {"role": "branchSummary", "summary": "elsewhere"},
    "not an object",
    None,
]


@pytest.mark.parametrize("odd", ODD_MESSAGES, ids=range(len(ODD_MESSAGES)))
def test_odd_messages_parse_the_same_either_way(odd, monkeypatch):
    messages = [{"role": "user", "content": "start", "timestamp": 1772974800000}, odd, ASSISTANT]
    _assert_same(_session(_chain(messages)), monkeypatch)


ODD_ENTRY_STAMPS: list[object] = [
    None,
    1772974801000,
    1772974801000.0,
    False,
    "2026-03-08T13:00:01Z",
    "2026-03-08T13:00:01.000+05:30",
    "2026-03-08T13:00:01",
    "2026-03-08",
    "2026-03-08T13:00:01.000Z ",
    "yesterday",
    [],
]


@pytest.mark.parametrize("stamp", ODD_ENTRY_STAMPS, ids=range(len(ODD_ENTRY_STAMPS)))
def test_odd_entry_timestamps_parse_the_same_either_way(stamp, monkeypatch):
    messages = [{"role": "user", "content": "start"}, TOOL_RESULT, ASSISTANT]
    entries = _chain(messages, stamp)
    marker_data = {"timestamp": 1772974802000, "provider": "anthropic", "modelId": "m"}
    entries.append(
        {
            "type": "custom",
            "customType": "openclaw.cache-ttl",
            "data": marker_data,
            "id": "m1",
            "parentId": "e2",
            "timestamp": stamp,
        }
    )
    entries.append({"type": "label", "id": "l1", "parentId": "m1", "timestamp": stamp, "label": "x"})
    _assert_same(_session(entries), monkeypatch)


def _entry(kind: str, entry_id: str, parent: str | None, **fields: object) -> dict[str, object]:
    return {
        "type": kind,
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-03-08T13:00:05.000Z",
        **fields,
    }


ODD_FILES: list[tuple[dict[str, object] | None, list[dict[str, object]]]] = [
    ({**HEADER, "version": 2}, []),
    ({**HEADER, "version": 1}, []),
    ({**HEADER, "version": 4}, []),
    ({**HEADER, "version": True}, []),
    ({k: v for k, v in HEADER.items() if k != "version"}, []),
    (None, []),
    (HEADER, [_entry("session_info", "i1", "e2", name="My title")]),
    (HEADER, [_entry("model_change", "x1", "e2", provider="openai", modelId="gpt-5")]),
    (HEADER, [_entry("thinking_level_change", "x1", "e2", thinkingLevel="high")]),
    (HEADER, [_entry("custom", "x1", "e2", customType="model-snapshot", data={})]),
    (HEADER, [_entry("custom_message", "x1", "e2", customType="note", content="injected", display=True)]),
    (HEADER, [_entry("custom_message", "x1", "e2", content=[{"type": "text", "text": "x"}])]),
    (HEADER, [_entry("branch_summary", "x1", "e2", summary="other branch", fromId="e0")]),
    (HEADER, [_entry("compaction", "x1", "e2", summary="sum", firstKeptEntryId="e1", tokensBefore=9)]),
    (HEADER, [_entry("compaction", "x1", "e2", summary="sum", retainedTail=[])]),
    (HEADER, [_entry("message", "x1", "e0", message={"role": "user", "content": "side branch"})]),
    (HEADER, [_entry("message", "e1", "e2", message={"role": "user", "content": "duplicate id"})]),
    (HEADER, [_entry("message", "x1", "nowhere", message={"role": "user", "content": "orphan"})]),
    (HEADER, [_entry("message", "x1", "e2")]),
    (HEADER, [_entry("message", "x1", "e2", message="text")]),
    (HEADER, [_entry("message", 5, "e2", message={"role": "user", "content": "x"})]),  # type: ignore[arg-type]
    (HEADER, [{"type": "message", "parentId": "e2", "message": {"role": "user", "content": "no id"}}]),
    (HEADER, [_entry("message", "x1", 7, message={"role": "user", "content": "x"})]),  # type: ignore[arg-type]
    (HEADER, [_entry("bogus", "x1", "e2")]),
    (HEADER, [{**HEADER, "id": "second header"}]),
    (HEADER, [{"type": 5, "id": "x1", "parentId": "e2"}]),
    (HEADER, [{"type": "title", "id": "x1", "parentId": "e2"}]),
]


@pytest.mark.parametrize(("header", "extra"), ODD_FILES, ids=range(len(ODD_FILES)))
def test_odd_files_parse_the_same_either_way(header, extra, monkeypatch):
    messages = [{"role": "user", "content": "start"}, TOOL_RESULT, ASSISTANT]
    _assert_same(_session(_chain(messages) + extra, header), monkeypatch)


def test_a_file_with_a_title_line_before_its_header_parses_the_same_either_way(monkeypatch):
    text = json.dumps({"type": "title", "title": "t"}) + "\n" + _session(_chain([ASSISTANT]))
    _assert_same(text, monkeypatch)


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "x", "text", "toolCall", "thinking", "image", "user", "assistant", "toolResult"]),
)
_blocks = st.lists(
    st.one_of(
        st.fixed_dictionaries({"type": st.just("text"), "text": st.one_of(st.text(max_size=5), _scalars)}),
        st.fixed_dictionaries(
            {"type": st.just("toolCall"), "id": st.sampled_from(["c1", 1]), "name": st.just("n")},
            optional={"arguments": st.one_of(st.none(), st.dictionaries(st.text(max_size=3), _scalars))},
        ),
        st.fixed_dictionaries(
            {"type": st.just("thinking"), "thinking": st.sampled_from(["t", 2])},
            optional={"thinkingSignature": _scalars, "redacted": _scalars},
        ),
        st.fixed_dictionaries(
            {"type": st.just("image"), "data": st.sampled_from(["AAA", None])},
            optional={"mimeType": _scalars},
        ),
        st.dictionaries(st.sampled_from(["type", "text", "data"]), _scalars, max_size=3),
        _scalars,
    ),
    max_size=4,
)
_messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "toolResult", "custom", None])},
    optional={
        "content": st.one_of(_blocks, st.text(max_size=4), _scalars),
        "timestamp": st.one_of(
            _scalars,
            st.integers(0, 2_000_000_000_000),
            st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat(timespec="milliseconds")),
            st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03}Z"),
        ),
        "usage": st.one_of(
            _scalars,
            st.dictionaries(
                st.sampled_from(["input", "output", "cacheRead", "totalTokens", "cost"]), _scalars
            ),
        ),
        "stopReason": st.sampled_from(["stop", "error", None, 1]),
        "errorMessage": _scalars,
        "model": _scalars,
        "provider": _scalars,
        "toolCallId": _scalars,
        "toolName": _scalars,
        "isError": _scalars,
        "extra": _scalars,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    messages=st.lists(_messages, min_size=1, max_size=4),
    stamp=st.one_of(_scalars, st.just("2026-03-08T13:00:01.250Z")),
)
def test_generated_entries_parse_the_same_either_way(messages, stamp, monkeypatch):
    _assert_same(_session(_chain(messages, stamp)), monkeypatch)


def _by_datetime(value: str) -> int:
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


@settings(max_examples=500, deadline=None)
@given(
    moment=st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)),
    with_ms=st.booleans(),
)
def test_the_iso_timestamp_memo_gives_what_datetime_gives(moment, with_ms):
    ms = f".{moment.microsecond // 1000:03}" if with_ms else ""
    text = f"{moment.year:04}-{moment:%m-%dT%H:%M:%S}{ms}Z"
    assert iso_ms(text) == _by_datetime(text)


def test_the_iso_timestamp_memo_leaves_every_other_form_to_datetime():
    start = datetime(2026, 3, 8, tzinfo=UTC)
    for step in range(0, 86_400_000, 7_777_777):
        text = (
            (start + timedelta(milliseconds=step)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        )
        assert iso_ms(text) == _by_datetime(text)
    for other in (
        "2026-03-08T13:00:01.000+00:00",
        "2026-03-08T13:00:01.5Z",
        "2026-03-08T13:00:01.000000Z",
        "2026-03-08T13:00:01",
        "2026-03-08 13:00:01.000Z",
        "2026-03-08T13:00:60.000Z",
        "2026-03-08T24:00:00.000Z",
        "2026-02-30T13:00:01.000Z",
        "2026-03-08T13:00:0١.000Z",
        "2026-03-08T13:00:01.000z",
        "",
        "2026",
    ):
        assert iso_ms(other) is None, other


_json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(), st.text(alphabet=st.characters(codec="utf-8"))
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(value=_json_values)
def test_compact_json_is_what_json_dumps_writes(value):
    dumped = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert compact_json(value) == dumped
    assert compact_json_tree(value) == dumped


ODD_MARKER_DATA: list[object] = [
    {"timestamp": 1772974802000, "provider": "anthropic", "modelId": "m"},
    {"timestamp": 1772974802000},
    {"timestamp": "2026-03-08T13:00:02.000Z", "provider": "anthropic"},
    {"timestamp": 1772974802000.0},
    {"timestamp": True},
    {"timestamp": None, "provider": "p"},
    {"provider": "p"},
    {"timestamp": 1772974802000, "provider": 5},
    {"timestamp": 1772974802000, "modelId": ["m"]},
    "not an object",
    None,
]


@pytest.mark.parametrize("data", ODD_MARKER_DATA, ids=range(len(ODD_MARKER_DATA)))
@pytest.mark.parametrize("stamp", [None, "2026-03-08T13:00:03.000Z"])
def test_odd_cache_ttl_markers_parse_the_same_either_way(data, stamp, monkeypatch):
    entries = _chain([{"role": "user", "content": "start"}, ASSISTANT])
    entries.append(
        {
            "type": "custom",
            "customType": "openclaw.cache-ttl",
            "data": data,
            "id": "m1",
            "parentId": "e1",
            "timestamp": stamp,
        }
    )
    entries.append(_entry("message", "e9", "m1", message={"role": "user", "content": "again"}))
    _assert_same(_session(entries), monkeypatch)


def _drop_bad_counts_as_before(root, place, warnings):
    """The walk as it was written before it kept parent links (the reference for the faster one), with
    what sits below a key naming "cost" left alone (dollar amounts, not token counts)."""
    stack = [(root, "", False)]
    while stack:
        node, path, in_usage = stack.pop()
        if isinstance(node, dict):
            for key, item in node.items():
                usage = in_usage or "usage" in key.lower()
                if usage and isinstance(item, int | float) and "cost" not in key.lower():
                    problem = _count_problem(item)
                    if problem is not None:
                        shown = (
                            repr(item)
                            if not isinstance(item, int) or abs(item) < 10**30
                            else (f"a {len(str(abs(item)))}-digit number")
                        )
                        here = f"{path}.{key}" if path else key
                        warnings.append(f"{place}: {here} = {shown} is {problem}; not taken as a token count")
                        node[key] = None
                        continue
                if isinstance(item, dict | list) and "cost" not in key.lower():  # money below a cost key
                    stack.append((item, f"{path}.{key}" if path else key, usage))
        elif isinstance(node, list):
            stack.extend(
                (item, f"{path}[{i}]", in_usage)
                for i, item in enumerate(node)
                if isinstance(item, dict | list)
            )


_usage_keys = st.sampled_from(["", "usage", "Usage", "tokenUsage", "input", "cost", "costUsage", "x", "0"])
_usage_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**40), max_value=10**40),
        st.sampled_from([0, 1, 10**9, 10**9 + 1, -1, 10**31]),
        st.floats(),
        st.text(max_size=3),
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_usage_keys, inner, max_size=5)),
    max_leaves=25,
)


@settings(max_examples=500, deadline=None)
@given(value=_usage_values)
def test_bad_token_counts_are_dropped_as_before(value):
    before, after = copy.deepcopy(value), copy.deepcopy(value)
    warned_before: list[str] = []
    warned_after: list[str] = []
    _drop_bad_counts_as_before(before, "line 3", warned_before)
    _drop_bad_counts(after, "line 3", warned_after)
    assert warned_after == warned_before
    assert repr(after) == repr(before)
