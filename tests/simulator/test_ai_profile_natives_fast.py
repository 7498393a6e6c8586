"""Preparing an ai-profile replay builds and sizes each native in one pass (``ai_profile_natives_fast``); the
answer is exactly the reference's (``to_ai_profile``, ``Message.from_json``, ``json_message_tokens`` of the
converted JSON, ``model_calls``), and so is the error when the reference refuses a message.

Compared on generated transcripts around the common shapes (and many odd ones, down to fields of the wrong
type), thousands of seeded variants, the conformance vectors' message lists read as transcripts, the
fixtures, the shared samples and synthetic sessions; the common shapes are checked to take the fast path,
so the comparison is not the reference against itself.
"""

from __future__ import annotations

import json
import random
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.convert import arguments_object
from simulator.errors import TranscriptParseError
from simulator.importers import parse_transcript
from simulator.replay import ai_profile as replay_module
from simulator.replay import ai_profile_natives_fast as fast
from simulator.replay.ai_profile import prepare_ai_profile, prepare_ai_profile_reference
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import (
    ImagePart,
    Message,
    Role,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResult,
    Transcript,
)
from tests.support import CONFORMANCE_DIR, REPO_DIR, SAMPLES_DIR

FIXTURES = REPO_DIR / "tests" / "fixtures" / "transcripts"

# Texts: ASCII, Latin, CJK, astral, lone surrogates, JSON's escapes (short and \u00xx forms), DEL.
PIECES = [
    "a",
    " ",
    "é",
    "日本",
    "\U00020000",
    "😀",
    "\ud800",
    "\udfff",
    "\n",
    "\t",
    '"',
    "\\",
    "\x01",
    "\x1f",
    "\x7f",
]
texts = st.lists(st.sampled_from(PIECES), max_size=6).map("".join) | st.text(max_size=8)
odd = st.sampled_from([None, 1, 1.5, True, b"x", ["x"], {"a": 1}])
# Tool call arguments: objects as providers write them (compact or spaced), other JSON, invalid text, and
# values the compact writer treats apart (floats, large integers, NaN).
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**22), max_value=10**22)
    | st.sampled_from([2**63, 2**64, -(2**63) - 1, 1.0, 0.5, 1e21, 1.5e-7, -0.0, 1e300])
    | texts
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)
arguments = st.one_of(
    st.dictionaries(texts, json_values, max_size=3).map(lambda v: json.dumps(v, separators=(",", ":"))),
    st.dictionaries(texts, json_values, max_size=3).map(json.dumps),
    st.dictionaries(texts, json_values, max_size=3).map(lambda v: json.dumps(v, ensure_ascii=False)),
    json_values.map(json.dumps),
    st.sampled_from(["", "{", "not json", '{"a": NaN}', '{"a": Infinity}', "[1]", "null", '{"a":1,"a":2}']),
    texts,
)


def _maybe_odd(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly ``strategy``, now and then a value of another type (a caller-built message)."""
    return st.one_of(strategy, strategy, strategy, strategy, strategy, strategy, odd)


text_parts = st.builds(TextPart, _maybe_odd(texts))
parts = st.one_of(
    text_parts,
    text_parts,
    st.builds(ThinkingPart, _maybe_odd(texts), st.none() | _maybe_odd(texts), _maybe_odd(st.booleans())),
    st.builds(ImagePart, st.sampled_from(["base64", "url", "marker", "file"]), texts, st.none() | texts),
    odd,
)
tool_calls = st.builds(ToolCall, _maybe_odd(texts), _maybe_odd(texts), _maybe_odd(arguments)) | odd
tool_results = st.none() | st.builds(
    ToolResult, _maybe_odd(texts), st.none() | texts, _maybe_odd(st.booleans())
)


@st.composite
def messages(draw: st.DrawFn) -> Message:
    """A transcript message around a common shape: one text, text and tool calls, a tool result."""
    role = draw(st.sampled_from(list(Role)) | st.sampled_from(list(Role)) | st.sampled_from(["user", None]))
    drawn_parts = draw(st.lists(parts, max_size=3) | st.lists(text_parts, min_size=1, max_size=1))
    calls = draw(st.lists(tool_calls, max_size=2)) if role is Role.ASSISTANT or draw(st.booleans()) else []
    return Message(
        role,  # type: ignore[arg-type]
        parts=tuple(drawn_parts) if draw(st.integers(0, 9)) else drawn_parts,  # type: ignore[arg-type]
        tool_calls=tuple(calls) if draw(st.integers(0, 9)) else calls,  # type: ignore[arg-type]
        tool_result=draw(tool_results) if role is Role.TOOL or draw(st.booleans()) else None,
        error=draw(st.none() | st.none() | st.sampled_from(["fetch failed", "prompt is too long"])),
    )


def _outcome(prepare: Any, transcript: Transcript) -> tuple[object, ...]:
    """What ``prepare`` gives, as text (types included: a tuple is not a list, True is not 1), or what
    it raises."""
    try:
        p = prepare(transcript)
    except Exception as exc:  # noqa: BLE001 - the error is part of the answer
        return ("raised", type(exc), str(exc))
    return ("prepared", repr((p.natives, p.origins, p.tokens, p.prefix, p.calls)))


def _assert_same(transcript: Transcript) -> None:
    got = _outcome(prepare_ai_profile, transcript)
    assert got == _outcome(prepare_ai_profile_reference, transcript)
    if got[0] == "prepared":  # and equal as values, not only as text
        fast_prepared, reference = prepare_ai_profile(transcript), prepare_ai_profile_reference(transcript)
        assert fast_prepared.natives == reference.natives
        assert fast_prepared.calls == reference.calls


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages(), max_size=8))
def test_generated_transcripts_prepare_as_the_reference_does(drawn):
    _assert_same(Transcript("test", tuple(drawn)))


def _assert_edges_told(transcript: Transcript) -> None:
    try:
        columns = fast.natives_with_tokens(transcript)
    except Exception:  # noqa: BLE001 - a transcript the reference refuses: no natives to look at
        return
    if columns.tool_use is not None:  # the one pass told them: they are the messages' own
        assert columns.tool_use == tuple(m.has_tool_use for m in columns.natives)
        assert columns.tool_result == tuple(m.has_tool_result for m in columns.natives)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages(), max_size=8))
def test_the_pass_tells_each_natives_tool_blocks_as_the_message_has_them(drawn):
    _assert_edges_told(Transcript("test", tuple(drawn)))


def test_a_synthetic_session_tells_its_natives_tool_blocks():
    transcript = parse_transcript(synthetic_openclaw_session(50, tool_result_chars=300))
    assert fast.natives_with_tokens(transcript).tool_use is not None
    _assert_edges_told(transcript)


TEMPLATES: list[Message] = [
    Message(Role.SYSTEM, (TextPart("You are terse."),)),
    Message(Role.USER, (TextPart("Fix the export job"),)),
    Message(
        Role.ASSISTANT,
        (ThinkingPart("look first", "sig"), TextPart("Let me look.")),
        (ToolCall("t1", "read", '{"path": "a.py", "limit": 10}'), ToolCall("t2", "grep", '{"q":"x"}')),
    ),
    Message(Role.TOOL, (TextPart('INFO ok\n"quoted"'),), tool_result=ToolResult("t1", "read")),
    Message(Role.TOOL, (TextPart("no such file"),), tool_result=ToolResult("t2", "grep", True)),
    Message(Role.ASSISTANT, (TextPart("Done: the cause was é日本."),)),
    Message(Role.ASSISTANT, (TextPart("partial"),), error="prompt is too long: 250000 tokens > 200000"),
    Message(Role.ASSISTANT, (), error="fetch failed"),
    Message(Role.USER, ()),
    Message(Role.ASSISTANT, (ThinkingPart("", "opaque", True),)),
]
FIELD_VALUES: dict[str, list[Any]] = {
    "parts": [
        (),
        (TextPart("x"),),
        (TextPart(""), TextPart("y")),
        (TextPart(1),),  # type: ignore[arg-type]
        (ThinkingPart("t"),),
        (ThinkingPart("t", None, True),),
        (ThinkingPart("t", 5),),  # type: ignore[arg-type]
        (ImagePart("base64", "AAAA"),),
        (TextPart("a"), ImagePart("url", "https://x/y.png")),
        [TextPart("listed")],
        ("not a part",),
    ],
    "tool_calls": [
        (),
        (ToolCall("c", "n", "{}"),),
        (ToolCall("c", "n", ""),),
        (ToolCall("c", "n", "[1, 2]"),),
        (ToolCall("c", "n", '{"x": 1.5, "y": 1e400}'),),
        (ToolCall("c", "n", '{"big": 99999999999999999999}'),),
        (ToolCall("c", "n", '{"s": "\\ud800"}'),),
        (ToolCall("c", 7, "{}"),),  # type: ignore[arg-type]
        [ToolCall("c", "n", "{}")],
    ],
    "tool_result": [
        None,
        ToolResult("c", None),
        ToolResult("", "n", True),
        ToolResult(3, "n"),  # type: ignore[arg-type]
        ToolResult("c", "n", 1),  # type: ignore[arg-type]
    ],
    "error": [None, None, "fetch failed", "context_length_exceeded"],
    "role": list(Role),
}


def _variant(rng: random.Random) -> Transcript:
    """A few template messages in random order, one to three fields of some swapped for another value."""
    chosen = [rng.choice(TEMPLATES) for _ in range(rng.randint(1, 7))]
    out = []
    for message in chosen:
        for _ in range(rng.randint(0, 2) if rng.random() < 0.6 else 0):
            name = rng.choice(list(FIELD_VALUES))
            message = msgspec.structs.replace(message, **{name: rng.choice(FIELD_VALUES[name])})
        out.append(message)
    return Transcript("test", tuple(out))


def test_thousands_of_common_shapes_with_a_few_things_changed_prepare_as_the_reference_does():
    rng = random.Random(20261201)
    for _ in range(5_000):
        _assert_same(_variant(rng))
    _assert_same(Transcript("test", tuple(TEMPLATES)))


def _message_lists(value: Any) -> list[list[Any]]:
    """Every ``messages`` (``history`` in ZeroClaw's vectors) list anywhere in a conformance vector file."""
    found: list[list[Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("messages", "history") and isinstance(item, list):
                found.append(item)
            found.extend(_message_lists(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_message_lists(item))
    return found


def _as_transcripts(system: str, messages: list[Any]) -> list[Transcript]:
    """A vector's message list read as a transcript in the runtime's own format; when the list does not
    import as a whole, each message that imports on its own."""
    if system == "openclaw":
        header = json.dumps({"type": "session", "id": "s", "timestamp": "2025-01-01T00:00:00Z"})
        lines = [header, *(json.dumps({"type": "message", "message": m}) for m in messages)]
        documents = ["\n".join(lines), *("\n".join([header, line]) for line in lines[1:])]
        form = "openclaw"
    elif system == "ai_profile":
        documents = [json.dumps({"messages": messages}), *(json.dumps({"messages": [m]}) for m in messages)]
        form = "anthropic"
    else:  # a ChatMessage or a ConversationMessage list: the import tells which
        documents = [json.dumps(messages), *(json.dumps([m]) for m in messages)]
        form = None
    out = []
    for document in documents:
        try:
            out.append(parse_transcript(document, format=form))
        except TranscriptParseError:
            continue
        if len(out) == 1 and document is documents[0]:
            break  # the whole list imported
    return out


@pytest.mark.parametrize("system", ["ai_profile", "openclaw", "zeroclaw"])
def test_every_conformance_message_list_prepares_as_the_reference_does(system, monkeypatch):
    transcripts = [
        transcript
        for path in sorted((CONFORMANCE_DIR / system).glob("*.json"))
        for messages in _message_lists(json.loads(path.read_text(encoding="utf-8")))
        for transcript in _as_transcripts(system, messages)
    ]
    assert len(transcripts) > 20
    fallbacks: list[object] = []
    for name in ("ai_profile_message", "ai_profile_tool_result"):
        reference = getattr(fast, name)
        monkeypatch.setattr(fast, name, partial(_counted, fallbacks, reference))
    for transcript in transcripts:
        _assert_same(transcript)
    # Most of the vectors' messages are of the common shapes: the fast path is what was compared.
    total = sum(len(t.messages) for t in transcripts)
    assert len(fallbacks) < 0.2 * total


def _counted(fallbacks: list[object], reference: Any, message: object) -> Any:
    fallbacks.append(message)
    return reference(message)


def _transcript_files() -> list[Path]:
    paths = sorted(FIXTURES.glob("*")) + sorted(SAMPLES_DIR.glob("*.json*"))
    return [p for p in paths if p.name != "README.md"]


@pytest.mark.parametrize("path", _transcript_files(), ids=[p.name for p in _transcript_files()])
def test_fixtures_and_samples_prepare_as_the_reference_does(path):
    try:
        transcript = parse_transcript(path.read_text(encoding="utf-8"))
    except TranscriptParseError:
        pytest.skip("a fixture made to fail the import: nothing to prepare")
    _assert_same(transcript)


def _refused(*args: Any) -> Any:
    raise AssertionError(f"the fast path left a common message to the reference: {args!r}")


@pytest.mark.parametrize("turns", [1, 50, 500])
def test_synthetic_sessions_prepare_as_the_reference_does_and_take_the_fast_path(turns, monkeypatch):
    transcript = parse_transcript(synthetic_openclaw_session(turns, tool_result_chars=300))
    want = _outcome(prepare_ai_profile_reference, transcript)
    for name in ("ai_profile_message", "ai_profile_tool_result", "reference_columns", "arguments_object"):
        monkeypatch.setattr(fast, name, _refused)
    assert _outcome(prepare_ai_profile, transcript) == want


@settings(max_examples=1500, deadline=None)
@given(
    arguments,
    st.sampled_from(["", " ", "\n", "\ufeff", "x", "}", "{"]),
    st.sampled_from(["", " ", "\r\n", "x", "}", "{", "[]"]),
)
def test_tool_call_arguments_are_read_as_json_loads_reads_them(text, before, after):
    for candidate in (text, before + text, text + after, before + text + after):
        assert repr(fast._arguments_object(candidate)) == repr(arguments_object(candidate))


def test_common_shapes_take_the_fast_path(monkeypatch):
    common = [m for m in TEMPLATES if not any(type(p) is ImagePart for p in m.parts)]
    transcript = Transcript("test", (*common, *common))
    want = _outcome(prepare_ai_profile_reference, transcript)
    for name in ("ai_profile_message", "ai_profile_tool_result", "reference_columns"):
        monkeypatch.setattr(fast, name, _refused)
    assert _outcome(prepare_ai_profile, transcript) == want


def test_an_error_the_reference_raises_is_raised_as_it_raises_it():
    bad_role = Message("user", (TextPart("x"),))  # type: ignore[arg-type]
    nan = Message(Role.ASSISTANT, (), (ToolCall("c", "n", '{"a": NaN}'),))
    for messages in ((nan, bad_role), (bad_role, nan), (nan,)):
        got = _outcome(prepare_ai_profile, Transcript("test", messages))
        assert got[0] == "raised"
        assert got == _outcome(prepare_ai_profile_reference, Transcript("test", messages))


def test_an_empty_transcript_prepares_to_nothing():
    prepared = prepare_ai_profile(Transcript("test", ()))
    assert (prepared.natives, prepared.origins, prepared.tokens, prepared.prefix, prepared.calls) == (
        (),
        (),
        (),
        (0,),
        (),
    )


def test_running_sums_saturate_as_the_crates_sum_does(monkeypatch):
    transcript = Transcript("test", tuple(Message(Role.USER, (TextPart("x"),)) for _ in range(3)))
    columns = fast.natives_with_tokens(transcript)
    big = fast.NativeColumns(columns.natives, columns.origins, (2**32 - 10, 5, 2**31), columns.calls)
    monkeypatch.setattr(replay_module, "natives_with_tokens", lambda t: big)
    monkeypatch.setattr(replay_module, "reference_columns", lambda t: big)
    assert prepare_ai_profile(transcript).prefix == (0, 2**32 - 10, 2**32 - 5, 2**32 - 1)
    assert prepare_ai_profile_reference(transcript).prefix == (0, 2**32 - 10, 2**32 - 5, 2**32 - 1)
