"""OpenClaw 2026.9.6's fast transforms clean old images and strip old thinking as the reference does.

History image cleanup runs twice per call (before the cache-TTL pass and after the guard) over every
message older than the third-last completed turn. The fast path sends each such message cleaned from the
call its turn comes of age (the cutoff only moves forward), makes what a later stage makes of it from the
cleaned message, and stops replaying a projection recorded from the stored texts. Sessions here are heavy
in images and media references, in user messages and tool results (string content too), with results
large enough to be soft-trimmed, TTL pauses that hard-clear them, and provider compaction; every call is
checked against the reference (outcome, ``changed``, state, attempt start and records).

The transcript policy of a route that drops thinking (older Claude models) strips every assistant but the
latest: the fast path sends each one stripped from the call a newer assistant arrives on, and leaves to
the reference a call whose route keeps thinking after one that dropped it.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.importers import parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay.openclaw import replay_openclaw
from simulator.replay.openclaw_transforms_2026_9 import UNCHANGED, FastTransforms2026_9, KeptChanges
from simulator.synthetic import synthetic_openclaw_session
from tests.simulator.test_openclaw_fast_2026_9 import (
    ROUTES,
    T0,
    _append_entry,
    _append_result,
    _both,
    _iso,
    _text,
    profiles,
)

IMAGE = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
MEDIA_TEXTS = (
    "see media://inbound/shot-1.png for it",
    "[media attached: /tmp/upload/screen.png (image/png)]",
    "[Image: source: /tmp/a.jpg] and more",
    "[media attached 1/2: /tmp/b.png]",
    "nothing to scrub here",
)


RESULT_SHAPES = ("plain", "image", "media", "both", "string", "tail")
"""A tool result's content: text, text and an image, a media reference first, both, string content naming
media, a reference at the tail (one a soft trim keeps and the guard may cut)."""


def draw_user(draw: st.DrawFn, turn: int, often: st.SearchStrategy[bool]) -> Any:
    """A user message's content: plain, text naming media (an image with it or not), or a string naming
    media."""
    if draw(often):
        user: list[dict[str, Any]] = [
            {"type": "text", "text": f"turn {turn} {draw(st.sampled_from(MEDIA_TEXTS))}"}
        ]
        if draw(st.booleans()):
            user.append(IMAGE)
        return user
    if draw(often):
        return f"turn {turn}: {draw(st.sampled_from(MEDIA_TEXTS))}"
    return f"turn {turn}"


def draw_result(draw: st.DrawFn, body: str) -> Any:
    """A tool result's content of one of :data:`RESULT_SHAPES` around ``body``."""
    shape = draw(st.sampled_from(RESULT_SHAPES))
    media = draw(st.sampled_from(MEDIA_TEXTS))
    if shape == "string":
        return f"{media}\n{body}"
    if shape == "tail":
        return f"{body}\n{media}"
    result: list[dict[str, Any]] = [{"type": "text", "text": body}]
    if shape in ("image", "both"):
        result.append(IMAGE)
    if shape in ("media", "both"):
        result.insert(0, {"type": "text", "text": media})
    return result


@st.composite
def image_sessions(draw: st.DrawFn) -> tuple[str, str]:
    """A session's JSONL and its route: images and media references in many turns."""
    route = draw(st.sampled_from(sorted(ROUTES)))
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": _iso(T0), "cwd": "/"}
    ]
    now = T0
    often = st.integers(0, 2).map(lambda v: v == 1)
    sizes = st.sampled_from([300, 1_500, 4_500, 9_000, 20_000, 70_000])
    gaps = st.sampled_from([2_000, 30_000, 360_000, 1_500_000])
    thoughtful = draw(st.booleans())
    for turn in range(draw(st.integers(4, 14))):
        now += draw(gaps)
        # Mostly the session's route; now and then a turn on another (one that keeps or drops thinking).
        switch = draw(st.integers(0, 7)) == 3
        provider, model, api = ROUTES[route if not switch else draw(st.sampled_from(["vertex", "other"]))]
        meta = {"provider": provider, "model": model, "api": api}
        user = draw_user(draw, turn, often)
        _append_entry(lines, {"role": "user", "content": user, "timestamp": now}, now)
        for call in range(draw(st.integers(0, 3))):
            now += draw(st.sampled_from([500, 400_000]))
            tool = draw(st.sampled_from(["read", "exec", "browser"]))
            content: list[dict[str, Any]] = [
                {"type": "toolCall", "id": f"c{turn}_{call}", "name": tool, "arguments": {}}
            ]
            if thoughtful and draw(often):
                content.insert(0, {"type": "thinking", "thinking": "let me see", "thinkingSignature": "s"})
            _append_entry(
                lines,
                {"role": "assistant", "content": content, **meta, "stopReason": "toolUse", "timestamp": now},
                now,
            )
            result = draw_result(draw, _text(draw(sizes), turn * 5 + call))
            _append_result(lines, f"c{turn}_{call}", tool, result, now + 200)
        now += 1_000
        answer: list[dict[str, Any]] = [{"type": "text", "text": "done"}]
        if thoughtful and draw(often):
            # Thinking before the answer, or thinking alone (stripped, it becomes the omission notice).
            thought = {"type": "thinking", "thinking": "so " * 40, "thinkingSignature": "sig"}
            answer = [thought] if draw(st.booleans()) else [thought, *answer]
        _append_entry(lines, {"role": "assistant", "content": answer, **meta, "timestamp": now}, now)
    return "\n".join(json.dumps(line) for line in lines) + "\n", route


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_call_of_an_image_heavy_session_equals_the_reference(data: st.DataObject) -> None:
    text, route = data.draw(image_sessions())
    document = data.draw(profiles(route))
    _, fast, slow = _both(text, document)
    assert fast.calls == slow.calls


def _with_images(text: str, every: int) -> str:
    """``text`` with an image in the first user message and in every ``every``-th one after it."""
    out: list[str] = []
    users = 0
    for line in text.splitlines():
        entry = json.loads(line)
        message = entry.get("message") if entry.get("type") == "message" else None
        if message is not None and message.get("role") == "user":
            if users % every == 0:
                content = message["content"]
                if isinstance(content, str):
                    content = [{"type": "text", "text": content}]
                message["content"] = [*content, IMAGE]
            users += 1
        out.append(json.dumps(entry))
    return "\n".join(out) + "\n"


def test_a_long_session_with_old_images_takes_the_fast_path_at_every_call() -> None:
    # The benchmark's session with screenshots: each is cleaned once its turn is old, never left to
    # the reference (which would walk the whole history at every call).
    shots = synthetic_openclaw_session(60, screenshot_every=4)
    assert shots.count('"type":"image"') == 15
    for key, text in (
        ("openclaw-2026.9.6", shots),
        ("openclaw-2026.9.6-openai", shots),
        ("openclaw-2026.9.6", _with_images(synthetic_openclaw_session(60), 4)),
    ):
        made, fast, slow = _both(text, dict(PRESETS_BY_KEY[key].document))
        assert fast.calls == slow.calls
        assert made[0].fallbacks == 0 and made[0].calls == len(fast.calls)
        cleaned = [call for call in fast.calls if "image-cleanup" in call.marks]
        assert len(cleaned) > len(fast.calls) // 2
        # Each such call answered with its kept changes alone (checked against the reference's outcome).
        assert sum(made[0].kept_calls) == len(cleaned)


GEMINI_40K = {
    "trimscope": {"runtime": "openclaw", "version": "2026.9.6"},
    "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
    "model": {"provider": "google", "id": "gemini-2.5-pro", "contextWindow": 40_000},
}
"""Gemini: cache-TTL eligible, no server-side clearing, no dropped thinking; a 40k-token window."""


def _gemini_with_screenshots(sizes: list[int], every: int) -> str:
    """Forty plain Gemini turns with TTL pauses, a screenshot in every ``every``-th turn's tool result."""
    from tests.simulator.test_openclaw_fast_2026_9 import _plain_session

    lines = [json.loads(line) for line in _plain_session(40, sizes, "gemini").splitlines()]
    for entry in lines[1:]:
        message = entry["message"]
        if message["role"] == "toolResult" and int(message["toolCallId"][1:]) % every == 0:
            message["content"].append(IMAGE)
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def test_soft_trims_and_hard_clears_of_cleaned_results_take_the_fast_path() -> None:
    # Gemini, a 40k-token window and TTL pauses: large results with screenshots are cleaned, then trimmed
    # and cleared; a projection recorded before its result was cleaned stops replaying.
    from tests.simulator.test_openclaw_fast_2026_9 import _rules

    text = _gemini_with_screenshots([1_500, 6_000, 300, 9_000, 12_000], every=3)
    made, fast, slow = _both(text, GEMINI_40K)
    assert fast.calls == slow.calls
    assert made[0].fallbacks == 0, made[0].fallback_reasons
    assert {"soft trim", "hard clear", "history image cleanup"} <= _rules(fast.calls)


def test_a_path_that_keeps_replaying_a_cleaned_results_projection_is_noticed() -> None:
    from tests.simulator.test_openclaw_fast_2026_9 import _Checked

    class _Stubborn(_Checked):
        """A broken cleanup: a projection keeps replaying once its result is cleaned."""

        def _replay_onto(self, position, projection):  # type: ignore[no-untyped-def]
            from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import merge_projection

            base = self._base(position)
            return merge_projection(base, projection, None)

    _assert_noticed(
        _Stubborn, _gemini_with_screenshots([1_500, 6_000, 300, 9_000, 18_000], every=1), GEMINI_40K
    )


def _assert_noticed(broken: type, text: str, document: dict[str, Any]) -> None:
    """A replay through the ``broken`` fast transforms (checked call by call) fails its checks."""
    import pytest

    import simulator.replay.openclaw as replay_module

    transcript = parse_transcript(text, format="openclaw")
    profile = profile_from_document(document, name="p")
    original = replay_module.FastTransforms2026_9
    replay_module.FastTransforms2026_9 = broken  # type: ignore[misc]
    try:
        with pytest.raises(AssertionError):
            replay_openclaw(transcript, profile.settings, profile_name="p")
    finally:
        replay_module.FastTransforms2026_9 = original  # type: ignore[misc]


def _thinking_session(turns: int) -> str:
    """The benchmark's session on a Claude 3.7 route (its thinking dropped), thinking in every assistant."""
    return synthetic_openclaw_session(turns, thinking=True, model="claude-3-7-sonnet-20250219")


def test_a_long_session_whose_route_drops_thinking_takes_the_fast_path_at_every_call() -> None:
    text = _thinking_session(60)
    assert text.count('"type":"thinking"') == 120
    made, fast, slow = _both(text, dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document))
    assert fast.calls == slow.calls
    assert made[0].fallbacks == 0 and made[0].calls == len(fast.calls)
    # From the third call on there is an assistant before the latest: every such call strips.
    dropped = [call.number for call in fast.calls if any("thinking left out" in g.rule for g in call.fated)]
    assert dropped == [call.number for call in fast.calls[2:]]
    assert sum(made[0].kept_calls) == len(dropped)  # answered with their kept changes alone


def test_a_path_that_strips_the_latest_assistant_too_is_noticed() -> None:

    from tests.simulator.test_openclaw_fast_2026_9 import _Checked

    class _Greedy(_Checked):
        """A broken policy: the latest assistant is stripped as well."""

        def _stripping(self, drops, lo, end):  # type: ignore[no-untyped-def]
            t0, t1 = super()._stripping(drops, lo, end)
            return (
                (t0, t1 + 1)
                if t1 >= 0 and t1 < len(self._thinking) and self._thinking[t1] < end
                else (t0, t1)
            )

    _assert_noticed(_Greedy, _thinking_session(10), dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document))


_THOUGHTS = st.text(alphabet=st.sampled_from("ab .\n\u00e9\u4e2d\U0001f600"), max_size=12)


@given(
    st.lists(
        st.tuples(_THOUGHTS, st.one_of(st.none(), _THOUGHTS), st.booleans()),
        min_size=1,
        max_size=4,
    )
)
def test_plain_thinking_sizes_are_the_reference_functions_sizes(drawn: list[tuple[str, str | None, bool]]):
    from simulator.replay.openclaw_transforms_2026_9 import _plain_thinking_chars
    from simulator.runtimes.openclaw.estimate import estimate_message_chars
    from simulator.runtimes.openclaw.messages import AssistantMessage, ThinkingContent
    from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import message_chars

    blocks = tuple(
        ThinkingContent(text, signature, None, (("note", "x"),) if extra else ())
        for text, signature, extra in drawn
    )
    plain = _plain_thinking_chars(blocks)
    message = AssistantMessage(blocks, ())
    if plain >= 0:
        assert plain == message_chars(message) == estimate_message_chars(message)
    else:  # a non-ASCII text or an extra field: the reference functions size it
        assert any(extra or not (text + (signature or "")).isascii() for text, signature, extra in drawn)


@pytest.mark.parametrize("field", ["sent_delta", "changed", "policy"])
def test_a_kept_answer_that_leaves_out_the_kept_changes_is_noticed(field: str) -> None:
    # kept_call's answer as if nothing had been stripped before: checked against the reference's outcome.
    from tests.simulator.test_openclaw_fast_2026_9 import _Checked

    class _Blind(FastTransforms2026_9):
        def kept_call(self, setup, state, now, end):  # type: ignore[no-untyped-def]
            answer = super().kept_call(setup, state, now, end)
            if answer is None or type(answer[0]) is not KeptChanges:
                return answer
            blank = {"sent_delta": 0, "changed": UNCHANGED, "policy": ()}[field]
            return dataclasses.replace(answer[0], **{field: blank}), answer[1]

    class _CheckedBlind(_Checked, _Blind):
        """The reference checks (``_Checked``) over the blind answers."""

    _assert_noticed(_CheckedBlind, _thinking_session(8), dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document))


def _blocks() -> st.SearchStrategy[Any]:
    """Assistant blocks of every class, now and then with an extra field (one may name another type)."""
    from simulator.runtimes.openclaw.messages import (
        ImageContent,
        RawBlock,
        RedactedThinkingContent,
        TextContent,
        ThinkingContent,
        ToolCall,
    )

    extras = st.sampled_from([(), (), (("type", "text"),), (("type", "thinking"),), (("note", 1),)])
    return st.one_of(
        st.builds(TextContent, _THOUGHTS, st.none(), extras),
        st.builds(ImageContent, st.just("aGk="), st.just("image/png"), extras),
        st.builds(ThinkingContent, _THOUGHTS, st.one_of(st.none(), _THOUGHTS), st.none(), extras),
        st.builds(RedactedThinkingContent, st.just("xx"), st.none(), extras),
        st.builds(ToolCall, st.just("c1"), st.just("read"), st.just({}), extras),
        st.builds(RawBlock, st.sampled_from([{"type": "thinking"}, {"type": "text", "text": "t"}, None])),
    )


@given(st.lists(_blocks(), max_size=5), st.booleans())
def test_a_strip_read_from_the_block_classes_is_the_reference_strip(blocks: list[Any], extra: bool):
    _check_strip(blocks, extra)


def _check_strip(blocks: list[Any], extra: bool) -> None:
    """:func:`strip_typed` of an assistant of ``blocks`` is the reference functions' strip and change."""
    from simulator.replay.openclaw_transforms_2026_9 import strip_typed
    from simulator.runtimes.openclaw.estimate import strip_change, strip_thinking
    from simulator.runtimes.openclaw.messages import AssistantMessage

    message = AssistantMessage(tuple(blocks), (("api", "x"),) if extra else ())
    typed = strip_typed(message)
    reference = strip_thinking(message)
    if typed is None:  # some block holds a field of its own, or has no class: the reference answers
        assert any(getattr(b, "extra", True) for b in blocks)
        return
    stripped, removed, notice = typed
    assert isinstance(reference, AssistantMessage)
    assert stripped == reference
    assert (stripped is message) == (reference is message)
    assert (removed, notice) == strip_change(message, reference)


@pytest.mark.python_only
def test_a_strip_blind_to_redacted_thinking_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    import simulator.replay.openclaw_transforms_2026_9 as transforms
    from simulator.runtimes.openclaw.messages import RedactedThinkingContent, TextContent, ThinkingContent

    blocks = [TextContent("ok"), ThinkingContent("hmm", "sig"), RedactedThinkingContent("xx")]
    _check_strip(blocks, False)
    monkeypatch.setattr(transforms, "TYPED_THINKING_BLOCKS", (ThinkingContent,))
    monkeypatch.setattr(transforms, "TYPED_KEPT_BLOCKS", (TextContent, RedactedThinkingContent))
    with pytest.raises(AssertionError):
        _check_strip(blocks, False)


@pytest.mark.python_only
def test_a_cleanup_cutoff_kept_past_the_next_user_message_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cutoff is kept between calls only up to the next user message (a turn closes there): kept
    for good, the old screenshots would never be cleaned after the first ones."""
    from simulator.replay.openclaw_facts_2026_9 import StoredFacts
    from tests.simulator.test_openclaw_fast_2026_9 import _Checked

    text = synthetic_openclaw_session(60, screenshot_every=4)
    document = dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document)
    monkeypatch.setattr(StoredFacts, "next_user", lambda self, end: len(self.natives))
    _assert_noticed(_Checked, text, document)


def test_a_record_that_keeps_an_older_cleanups_fates_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A record names the messages cleaned at its own call: kept from a call that cleaned fewer (the
    first ones kept for good), the records differ from the reference's."""
    import simulator.replay.openclaw as replay_module

    text = synthetic_openclaw_session(60, screenshot_every=4)
    document = dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document)
    made, fast, slow = _both(text, document)
    assert fast.calls == slow.calls
    kept = replay_module._image_fate

    def first_for_good(session: Any, images: Any) -> Any:
        return kept(session, session.image_fates[0][0] if session.image_fates else images)

    monkeypatch.setattr(replay_module, "_image_fate", first_for_good)
    _, broken, _ = _both(text, document)
    assert broken.calls != slow.calls


def _strip_sizes_reference(message: Any) -> tuple[int, int, int, int]:
    """What the reference strip of ``message`` takes away and puts in, each sized by the reference
    functions: (``cacheTtlMessageChars`` taken, estimate taken, ``cacheTtlMessageChars`` put in, estimate
    put in)."""
    from simulator.runtimes.openclaw.estimate import estimate_message_chars, strip_change, strip_thinking
    from simulator.runtimes.openclaw.messages import AssistantMessage
    from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import message_chars

    removed, notice = strip_change(message, strip_thinking(message))
    gone, came = AssistantMessage(removed, ()), AssistantMessage(notice, ())
    put_in = (message_chars(came), estimate_message_chars(came)) if notice else (0, 0)
    return message_chars(gone), estimate_message_chars(gone), *put_in


def _check_strip_sizes(blocks: list[Any], extra: bool) -> None:
    """:func:`strip_sizes_typed` of an assistant of ``blocks`` sizes the reference strip, and the message
    made later (:func:`_stripped`) is the reference strip."""
    from simulator.replay.openclaw_transforms_2026_9 import _notice_sizes, _stripped, strip_sizes_typed
    from simulator.runtimes.openclaw.estimate import strip_thinking
    from simulator.runtimes.openclaw.messages import AssistantMessage

    message = AssistantMessage(tuple(blocks), (("api", "x"),) if extra else ())
    sizes = strip_sizes_typed(message)
    if sizes is None:
        return  # the general strip answers (its sizes: test_plain_thinking_sizes_are_...)
    taken, notice = sizes
    assert (taken, taken, *(_notice_sizes() if notice else (0, 0))) == _strip_sizes_reference(message)
    assert _stripped(message) == strip_thinking(message)


@given(st.lists(_blocks(), max_size=5), st.booleans())
def test_strip_sizes_read_from_the_block_classes_are_the_reference_sizes(blocks: list[Any], extra: bool):
    _check_strip_sizes(blocks, extra)


def test_strip_sizes_of_plain_thinking_are_read_and_a_wrong_notice_is_noticed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import simulator.replay.openclaw_transforms_2026_9 as transforms
    from simulator.runtimes.openclaw.messages import AssistantMessage, TextContent, ThinkingContent

    alone = [ThinkingContent("hmm", "sig")]  # no block kept: the notice comes in
    with_text = [ThinkingContent("hmm"), TextContent("ok")]
    for blocks in (alone, with_text):
        assert transforms.strip_sizes_typed(AssistantMessage(tuple(blocks), ())) is not None
        _check_strip_sizes(blocks, False)
    monkeypatch.setattr(transforms, "_notice_sizes", lambda: (0, 0))  # the notice weighed nothing
    with pytest.raises(AssertionError):
        _check_strip_sizes(alone, False)


def test_a_lazy_strip_store_that_makes_the_wrong_message_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stripped messages are made when a view reads them: made as stored (thinking kept), the
    calls' ``changed`` differ from the reference's."""
    import simulator.replay.openclaw_transforms_2026_9 as transforms
    from tests.simulator.test_openclaw_fast_2026_9 import _Checked

    document = dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document)
    made, fast, slow = _both(_thinking_session(8), document)
    assert fast.calls == slow.calls and sum(made[0].kept_calls) > 0
    monkeypatch.setattr(transforms, "_stripped", lambda message: message)
    _assert_noticed(_Checked, _thinking_session(8), document)
