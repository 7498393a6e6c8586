"""Preparing an OpenClaw session reads and sizes each message in one pass (``openclaw_natives_fast``); the
answer is exactly the reference functions' (``message_from_json``, ``estimate_message_chars``,
``guard_message_chars``, ``media_and_thinking_of``), and ``js_json_length`` is ``JSON.stringify``'s length.

Compared on generated messages around the common shapes (and many odd ones), every message of the OpenClaw
conformance vectors, the fixtures, the shared samples and synthetic sessions; the common shapes are checked
to take the fast path, so the comparison is not the reference against itself.
"""

from __future__ import annotations

import copy
import json
import random
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.errors import TranscriptParseError
from simulator.importers import parse_transcript
from simulator.jsonvalue import JSON
from simulator.replay import openclaw_natives_fast as fast
from simulator.replay import openclaw_session
from simulator.replay.loop import model_calls
from simulator.replay.openclaw_natives_fast import natives_with_facts, reference_facts
from simulator.replay.openclaw_session import prepare_openclaw
from simulator.replay.openclaw_transforms import media_and_thinking_of
from simulator.replay.openclaw_transforms_2026_9 import strip_sizes_typed
from simulator.runtimes.openclaw.context_guard import guard_message_chars
from simulator.runtimes.openclaw.estimate import (
    OMITTED_ASSISTANT_REASONING_CHARS,
    estimate_message_chars,
    strip_size_change,
    strip_size_change_of,
    strip_thinking,
)
from simulator.runtimes.openclaw.jsstr import js_json_length, js_json_stringify, js_len
from simulator.runtimes.openclaw.messages import message_from_json, messages_from_json
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Message, Role, TextPart, Transcript
from tests.support import CONFORMANCE_DIR, REPO_DIR, SAMPLES_DIR

FIXTURES = REPO_DIR / "tests" / "fixtures" / "transcripts"

# Texts: ASCII, Latin, CJK (weighted 4 by the pruner), astral (two UTF-16 units), lone surrogates, the
# words image cleanup looks for in any case, and JSON's escapes.
PIECES = [
    "a",
    " ",
    "é",
    "日本",
    "\U00020000",
    "😀",
    "\ud800",
    "\udfff",
    "Media",
    "IMAGE",
    "image",
    "\n",
    '"',
    "\\",
]
texts = st.lists(st.sampled_from(PIECES), max_size=6).map("".join) | st.text(max_size=8)
keys = st.sampled_from(["path", "0", "1", "01", "4294967295", "x", "é", "\ud800", "command"]) | st.text(
    max_size=3
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**25), max_value=10**25)
    | st.sampled_from(
        [
            2**53,
            -(2**53),
            2**53 - 1,
            10**17 - 1,
            10**21,
            1.0,
            0.5,
            1e21,
            1.5e-7,
            -0.0,
            float("inf"),
            float("nan"),
        ]
    )
    | st.floats()
    | texts
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
odd = st.sampled_from([None, 1, 1.5, True, "x", [], {}, ["x"]])


def _with(base: dict[str, Any], extra: dict[str, Any], drop: list[str]) -> dict[str, Any]:
    out = {k: v for k, v in base.items() if k not in drop}
    out.update(extra)
    return out


def _block(kind: str, fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """A block of ``kind`` with its usual fields, sometimes one dropped, mistyped or joined by another."""
    usual = st.fixed_dictionaries({"type": st.just(kind), **fields})
    return st.builds(
        _with,
        usual,
        st.dictionaries(
            st.sampled_from(["type", "extra", "textSignature", "redacted", *fields]), odd, max_size=1
        )
        | st.just({}),
        st.lists(st.sampled_from(["type", *fields]), max_size=1) | st.just([]),
    )


text_blocks = _block("text", {"text": texts})
blocks = st.one_of(
    text_blocks,
    text_blocks,  # the most common block, drawn twice as often
    _block(
        "toolCall", {"id": texts, "name": texts, "arguments": st.dictionaries(keys, json_values, max_size=3)}
    ),
    _block("thinking", {"thinking": texts}),
    _block("thinking", {"thinking": texts, "thinkingSignature": texts}),
    _block("image", {"data": texts, "mimeType": texts}),
    _block("redacted_thinking", {"data": texts}),
    odd,
)
block_lists = st.lists(blocks, min_size=1, max_size=4)
contents = st.one_of(block_lists, block_lists, block_lists, st.just([]), texts, odd)


@st.composite
def messages(draw: st.DrawFn, roles: tuple[str, ...] = ("user", "assistant", "toolResult", "custom")) -> JSON:
    """A message of one of ``roles`` around its common shape: a field dropped or mistyped, others added,
    keys in another order; now and then not an object at all."""
    role = draw(st.sampled_from(roles))
    message: dict[str, Any] = {"role": role, "content": draw(contents)}
    if role == "toolResult":
        message["toolCallId"] = draw(texts | texts | odd)
        message["toolName"] = draw(texts | texts | odd)
        message["isError"] = draw(st.booleans() | st.booleans() | odd)
    for key in draw(
        st.lists(st.sampled_from(["timestamp", "details", "api", "summary", "usage"]), max_size=3)
    ):
        message[key] = draw(json_values)
    if draw(st.integers(0, 5)) == 0:
        message.pop(draw(st.sampled_from(["content", "role", "toolName", "isError"])), None)
    if draw(st.booleans()):
        message = {k: message[k] for k in draw(st.permutations(list(message)))}
    return message if draw(st.integers(0, 9)) else draw(odd)


def _reference_columns(raws: list[JSON]) -> tuple[object, ...]:
    natives = messages_from_json(raws)
    return (
        natives,
        tuple(estimate_message_chars(m) for m in natives),
        tuple(guard_message_chars(m) for m in natives),
        *media_and_thinking_of(natives),
    )


def _assert_same(raws: list[JSON]) -> None:
    read = natives_with_facts(raws)
    got = (read.natives, read.estimates, read.guards, read.media, read.thinking)
    want = _reference_columns(raws)
    assert got == want
    assert repr(got) == repr(want)  # the same types too (an int is not a float, a tuple not a list)
    # The messages serialise back to their input, as the reference's do.
    assert [m.to_json() for m in read.natives] == [m.to_json() for m in want[0]]  # type: ignore[attr-defined]
    _assert_strips_as_the_reference(read.natives, read.thinking, read.strips)


def _assert_strips_as_the_reference(natives: Any, thinking: Any, strips: Any) -> None:
    """Each strip read while preparing is what both versions' strips of the stored message give: 2026.7.1's
    change of the estimate, and 2026.9.6's plain sizes when its thinking is ASCII."""
    assert len(strips) == len(thinking)
    for position, read in zip(thinking, strips, strict=True):
        if read is None:
            continue  # read by the reference functions: sized at replay from the message itself
        message = natives[position]
        taken, notice, plain = read
        assert strip_size_change_of(read) == strip_size_change(message)
        assert strip_size_change_of(read) == (OMITTED_ASSISTANT_REASONING_CHARS if notice else 0) - taken
        stripped = strip_thinking(message).content
        assert notice == (not any(b is stored for b in stripped for stored in message.content))
        if plain:
            assert (taken, notice) == strip_sizes_typed(message)
        else:
            assert strip_sizes_typed(message) is None


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages(), max_size=4))
def test_generated_messages_read_and_sized_as_the_reference_does(raws):
    _assert_same(raws)


@pytest.mark.parametrize("role", ["user", "assistant", "toolResult"])
def test_generated_messages_of_each_common_role_read_and_sized_as_the_reference_does(role):
    @settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(messages((role,)))
    def check(raw: JSON) -> None:
        _assert_same([raw])

    check()


TEMPLATES: list[dict[str, Any]] = [
    {"role": "user", "content": "Fix the export job", "timestamp": 1},
    {"role": "user", "content": [{"type": "text", "text": "see the image"}], "timestamp": 1},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "look first", "thinkingSignature": "sig"},
            {"type": "text", "text": "Let me look."},
            {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "a.py", "limit": 10}},
        ],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "m",
        "usage": {"input": 1, "output": 2},
        "stopReason": "toolUse",
        "timestamp": 2,
    },
    {
        "role": "toolResult",
        "toolCallId": "t1",
        "toolName": "read",
        "content": [{"type": "text", "text": "INFO ok"}, {"type": "text", "text": "media/a.png"}],
        "details": {"diff": "x"},
        "isError": False,
        "timestamp": 3,
    },
]
KEY_POOL = [
    "type", "text", "thinking", "thinkingSignature", "textSignature", "redacted", "id", "name", "arguments",
    "data", "mimeType", "role", "content", "toolName", "toolCallId", "isError", "details", "timestamp", "0",
]  # fmt: skip
VALUE_POOL: list[Any] = [
    None, True, False, 0, 1.5, 2**60, "", "x", "Media", "日本", "\U00020000", "\ud800",
    [], {}, ["x"], {"a": 1}, {"type": "text", "text": "y"},
    "text", "thinking", "toolCall", "image", "user", "assistant", "toolResult",
]  # fmt: skip


def _objects(value: Any) -> list[dict[str, Any]]:
    """Every object in ``value``, itself included."""
    found = [value] if isinstance(value, dict) else []
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    for child in children:
        found.extend(_objects(child))
    return found


def _mutant(rng: random.Random) -> dict[str, Any]:
    """A common-shape message with one to three things changed in it or in one of its blocks."""
    message = copy.deepcopy(rng.choice(TEMPLATES))
    for _ in range(rng.randint(1, 3)):
        target = rng.choice(_objects(message))
        action = rng.randrange(4)
        if action == 0 and target:
            del target[rng.choice(list(target))]
        elif action == 1:
            target[rng.choice(KEY_POOL)] = copy.deepcopy(rng.choice(VALUE_POOL))
        elif action == 2 and target:
            target[rng.choice(list(target))] = copy.deepcopy(rng.choice(VALUE_POOL))
        else:
            items = list(target.items())
            rng.shuffle(items)
            target.clear()
            target.update(items)
    return message


def test_many_common_shapes_with_a_few_things_changed_read_and_sized_as_the_reference_does():
    rng = random.Random(20261201)
    for _ in range(20_000):
        _assert_same([_mutant(rng)])
    for template in TEMPLATES:
        _assert_same([template])


@settings(max_examples=1000, deadline=None)
@given(json_values)
def test_js_json_length_is_the_length_of_json_stringify(value):
    assert js_json_length(value) == js_len(js_json_stringify(value))


@pytest.mark.parametrize(
    "value",
    [
        {},
        {"path": "src/a.py"},
        {"a": "x", "b": 'q"\\\n\x01\x7f'},
        {"1": "x", "a": "y"},
        {"a": 1, "b": [True, None, {"c": 2**53 - 1}]},
        {"a": 2**53},
        {"a": 1.0},
        {"a": "é日本\U00020000"},
        {"a": "\ud800"},
        {"\udfff": "a"},
        {"a": {"2": 1, "b": 2}},
        [],
    ],
)
def test_js_json_length_on_the_edges_of_its_fast_paths(value):
    assert js_json_length(value) == js_len(js_json_stringify(value))


def _vector_messages() -> list[JSON]:
    """Every message of every message list in the OpenClaw conformance vectors (inputs and outputs)."""
    found: list[JSON] = []

    def walk(value: JSON) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "messages" and isinstance(item, list):
                    found.extend(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted((CONFORMANCE_DIR / "openclaw").glob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return found


def test_every_conformance_message_is_read_and_sized_as_the_reference_does(monkeypatch):
    raws = _vector_messages()
    assert len(raws) > 1000
    fallbacks: list[object] = []
    reference = fast.reference_facts

    def counted(message: Any) -> Any:
        fallbacks.append(message)
        return reference(message)

    monkeypatch.setattr(fast, "reference_facts", counted)
    for raw in raws:
        _assert_same([raw])
    # Most of the vectors' messages are of the common shapes: the fast path is what was compared.
    assert len(fallbacks) < 0.2 * len(raws)


def _reference_prepare(transcript: Transcript) -> tuple[object, ...]:
    """``prepare_openclaw`` as it was written before the one-pass reading."""
    natives, origins = openclaw_session._natives(transcript)
    chars = tuple(estimate_message_chars(m) for m in natives)
    return (
        natives,
        origins,
        model_calls(transcript, origins),
        chars,
        tuple(accumulate(chars, initial=0)),
        tuple(guard_message_chars(m) for m in natives),
        media_and_thinking_of(natives),
    )


def _prepared(transcript: Transcript) -> tuple[object, ...]:
    p = prepare_openclaw(transcript)
    return (p.natives, p.origins, p.calls, p.chars, p.prefix, p.guard_chars, p.media_and_thinking)


def _transcript_files() -> list[Path]:
    paths = sorted(FIXTURES.glob("*")) + sorted(SAMPLES_DIR.glob("*.json*"))
    return [p for p in paths if p.name != "README.md"]


@pytest.mark.parametrize("path", _transcript_files(), ids=[p.name for p in _transcript_files()])
def test_fixtures_and_samples_prepare_as_the_reference_does(path):
    try:
        transcript = parse_transcript(path.read_text(encoding="utf-8"))
    except TranscriptParseError:
        pytest.skip("a fixture made to fail the import: nothing to prepare")
    assert repr(_prepared(transcript)) == repr(_reference_prepare(transcript))


@pytest.mark.parametrize("turns", [1, 50, 500])
def test_synthetic_sessions_prepare_as_the_reference_does_and_take_the_fast_path(turns, monkeypatch):
    transcript = parse_transcript(synthetic_openclaw_session(turns, tool_result_chars=300))

    def refused(message: Any) -> Any:
        raise AssertionError(f"the fast path left a common message to the reference: {message!r}")

    want = _reference_prepare(transcript)
    monkeypatch.setattr(fast, "reference_facts", refused)
    assert repr(_prepared(transcript)) == repr(want)


def test_an_empty_payload_list_gives_empty_columns():
    read = natives_with_facts([])
    assert (read.natives, read.estimates, read.guards, read.media, read.thinking) == ((), (), (), (), ())


def test_reference_facts_are_the_reference_functions():
    raw: JSON = {"role": "user", "content": [{"type": "image", "data": "x", "mimeType": "image/png"}]}
    message = message_from_json(raw)
    assert reference_facts(message) == (message, 8000, 8000, True, False)


# An OpenClaw session's messages of any roles, system ones and failed calls among them (an error turn
# is a native of its own too), each recorded as a native payload or converted from the transcript.
_session_message = st.builds(
    Message,
    role=st.sampled_from(list(Role)),
    parts=st.just((TextPart("x"),)),
    error=st.none() | st.just("fetch failed"),
)


def _assert_calls_are_model_calls(messages: list[Message]) -> None:
    transcript = Transcript("openclaw", tuple(messages))
    prepared = prepare_openclaw(transcript)
    assert prepared.calls == model_calls(transcript, prepared.origins)
    assert repr(prepared.calls) == repr(model_calls(transcript, prepared.origins))


@settings(max_examples=300, deadline=None)
@given(st.lists(_session_message, max_size=12))
def test_an_openclaw_sessions_calls_are_the_general_model_calls(messages):
    _assert_calls_are_model_calls(messages)


def test_an_openclaw_sessions_calls_do_not_ask_the_general_search(monkeypatch):
    """The calls compared above are the session's own (``_own_calls_and_times``), not ``model_calls``'."""
    transcript = parse_transcript(synthetic_openclaw_session(3, tool_result_chars=50))
    want = _reference_prepare(transcript)

    def refused(*args: Any) -> Any:
        raise AssertionError("an OpenClaw session's calls were left to model_calls")

    monkeypatch.setattr(openclaw_session, "model_calls", refused)
    assert repr(_prepared(transcript)) == repr(want)


def test_a_wrong_count_of_held_natives_would_be_noticed(monkeypatch):
    system = Message(role=Role.SYSTEM, parts=(TextPart("be brief"),))
    user = Message(role=Role.USER, parts=(TextPart("hi"),))
    failed = Message(role=Role.ASSISTANT, parts=(TextPart("x"),), error="fetch failed")
    reply = Message(role=Role.ASSISTANT, parts=(TextPart("hello"),))
    messages = [system, user, failed, reply]
    _assert_calls_are_model_calls(messages)
    assert [
        (c.number, c.available, c.message_index)
        for c in prepare_openclaw(Transcript("openclaw", tuple(messages))).calls
    ] == [(1, 1, 2), (2, 2, 3)]
    build = openclaw_session._model_call

    def counting_the_system_message(number: int, held: int, index: int, error: str | None) -> Any:
        return build(number, index, index, error)

    monkeypatch.setattr(openclaw_session, "_model_call", counting_the_system_message)
    with pytest.raises(AssertionError):
        _assert_calls_are_model_calls(messages)


_THOUGHTS = ("look first", "naïve plan", "漢字", "")


@pytest.mark.parametrize("signature", [None, "sig", "sïg"])
@pytest.mark.parametrize("thought", _THOUGHTS)
def test_thinking_blocks_of_ascii_and_other_texts_are_sized_as_the_reference_does(thought, signature):
    """An ASCII thinking (and signature) is sized by its length, any other by the weighted functions."""
    block: dict[str, Any] = {"type": "thinking", "thinking": thought}
    if signature is not None:
        block["thinkingSignature"] = signature
    _assert_same([{"role": "assistant", "content": [block, {"type": "text", "text": "ok"}]}])


@pytest.mark.python_only
def test_thinking_sized_without_its_signature_is_noticed(monkeypatch):
    import simulator.replay.openclaw_natives_fast as fast

    original = fast._thinking

    def blind(block):  # the signature left out of the estimate
        read = original(block)
        return None if read is None else (read[0], len(block["thinking"]), read[2], read[3])

    monkeypatch.setattr(fast, "_thinking", blind)
    raw = {"role": "assistant", "content": [{"type": "thinking", "thinking": "a", "thinkingSignature": "s"}]}
    with pytest.raises(AssertionError):
        _assert_same([raw])


@pytest.mark.parametrize(
    "content",
    [
        [{"type": "thinking", "thinking": "plan", "thinkingSignature": "sig"}],
        [{"type": "thinking", "thinking": "plan"}, {"type": "text", "text": "done"}],
        [{"type": "thinking", "thinking": "日本", "thinkingSignature": "s"}, {"type": "text", "text": "x"}],
    ],
)
@pytest.mark.parametrize("break_", ["notice", "taken", "plain"])
def test_a_strip_read_wrong_while_preparing_is_noticed(content, break_, monkeypatch):
    original = fast._assistant

    def broken(raw):
        read = original(raw)
        if read is None or read[4] is False or read[4] is True:
            return read
        taken, notice, plain = read[4]
        wrong = {
            "notice": (taken, not notice, plain),
            "taken": (taken + 1, notice, plain),
            "plain": (taken, notice, not plain),
        }[break_]
        return (*read[:4], wrong)

    monkeypatch.setattr(fast, "_READERS", {**fast._READERS, "assistant": broken})
    with pytest.raises(AssertionError):
        _assert_same([{"role": "assistant", "content": content}])


@pytest.mark.parametrize(
    "options", [{"screenshot_every": 4}, {"thinking": True, "model": "claude-3-7-sonnet-20250219"}]
)
def test_sessions_with_screenshots_or_thinking_prepare_as_the_reference_does_on_the_fast_path(
    options, monkeypatch
):
    transcript = parse_transcript(synthetic_openclaw_session(40, tool_result_chars=300, **options))

    def refused(message: Any) -> Any:
        raise AssertionError(f"the fast path left a common message to the reference: {message!r}")

    want = _reference_prepare(transcript)
    monkeypatch.setattr(fast, "reference_facts", refused)
    assert repr(_prepared(transcript)) == repr(want)


_IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}


@pytest.mark.parametrize("role", ["user", "toolResult"])
@pytest.mark.parametrize(
    "content",
    [
        [{"type": "text", "text": "see"}, _IMAGE],
        [_IMAGE, {"type": "text", "text": "漢字 [media attached: a]"}],
        [_IMAGE],
        [{**_IMAGE, "detail": "low"}],  # a field of its own: the reference reads it
        [{"type": "image", "data": "AAAA"}],
        [{"type": "image", "data": 1, "mimeType": "image/png"}],
    ],
)
def test_images_beside_texts_are_read_and_sized_as_the_reference_does(role, content):
    raw: dict[str, Any] = {"role": role, "content": content}
    if role == "toolResult":
        raw = {"role": role, "toolCallId": "c", "toolName": "shot", "content": content, "isError": False}
    _assert_same([raw])


@pytest.mark.python_only
def test_an_image_weighed_as_a_text_is_noticed(monkeypatch):
    monkeypatch.setattr(fast, "IMAGE_CHAR_ESTIMATE", 0)
    raw = {"role": "toolResult", "toolCallId": "c", "toolName": "shot", "content": [_IMAGE], "isError": False}
    with pytest.raises(AssertionError):
        _assert_same([raw])
