"""The incremental pruner answers exactly what OpenClaw's own pruner answers, at every prefix."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay.openclaw import replay_openclaw
from simulator.replay.openclaw_fast import IncrementalPruner
from simulator.runtimes.openclaw.estimate import drop_thinking_blocks, estimate_context_chars
from simulator.runtimes.openclaw.messages import (
    AssistantMessage,
    ImageContent,
    RedactedThinkingContent,
    TextContent,
    ThinkingContent,
    ToolResultMessage,
    UserMessage,
)
from simulator.runtimes.openclaw.pruner import HardCleared, SoftTrimmed, prune_context_messages
from simulator.runtimes.openclaw.settings import compute_effective_settings
from simulator.synthetic import synthetic_openclaw_session

texts = st.text(alphabet="ab 日\n", min_size=0, max_size=60).map(lambda t: t * 40)
tool_names = st.sampled_from(["exec", "read", "Browser", None])


@st.composite
def histories(draw):
    messages = []
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(st.sampled_from(["user", "assistant", "tool", "tool", "tool"]))
        if kind == "user":
            messages.append(UserMessage(draw(texts)))
        elif kind == "assistant":
            blocks = [TextContent(draw(texts))]
            thought = draw(st.sampled_from(["", "", "thinking", "redacted", "only"]))
            if thought == "redacted":
                blocks.insert(0, RedactedThinkingContent(draw(texts), "sig"))
            elif thought:
                blocks.insert(0, ThinkingContent(draw(texts), "sig"))
            if thought == "only":
                del blocks[1]
            messages.append(AssistantMessage(tuple(blocks)))
        else:
            blocks = [TextContent(draw(texts))]
            if draw(st.booleans()) and draw(st.booleans()):
                blocks.append(ImageContent("aGk=", "image/png"))
            messages.append(ToolResultMessage(tuple(blocks), draw(tool_names), "id", False))
    return messages


raw_settings = st.fixed_dictionaries(
    {"mode": st.just("cache-ttl")},
    optional={
        "keepLastAssistants": st.sampled_from([0, 1, 2, 3, 2.5]),
        "softTrimRatio": st.sampled_from([0.0, 0.1, 0.3, 0.6]),
        "hardClearRatio": st.sampled_from([0.0, 0.2, 0.5, 0.9]),
        "minPrunableToolChars": st.sampled_from([0, 100, 50_000]),
        "softTrim": st.fixed_dictionaries(
            {
                "maxChars": st.sampled_from([10, 400, 4000]),
                "headChars": st.sampled_from([0, 5, 150]),
                "tailChars": st.sampled_from([0, 7, 150]),
            }
        ),
        "hardClear": st.fixed_dictionaries(
            {"enabled": st.booleans(), "placeholder": st.sampled_from(["x", "[cleared]"])}
        ),
        "tools": st.sampled_from([{}, {"deny": ["exec"]}, {"allow": ["re*"]}]),
    },
)


@settings(max_examples=250, deadline=None)
@given(histories(), raw_settings, st.sampled_from([200, 1_000, 4_000, 50_000]), st.booleans())
def test_every_prefix_prunes_like_the_reference(messages, raw, window, drops):
    # ``drops``: the estimate's source without the thinking of all assistants but the latest (a route that
    # drops thinking), given to the fast pruner as what it adds to the stored sizes.
    effective = compute_effective_settings(raw)
    assert effective is not None
    fast = IncrementalPruner(effective, context_window=None, context_window_tokens_override=window)
    for message in messages:
        fast.append(message)
    for end in range(len(messages) + 1):
        prefix = messages[:end]
        ref = prune_context_messages(
            prefix, effective, context_window_tokens_override=window, drop_thinking_blocks_for_estimate=drops
        )
        extra = estimate_context_chars(drop_thinking_blocks(prefix)) - estimate_context_chars(prefix)
        got = fast.prune(end, extra if drops else 0)
        assert got.changed == (not ref.returned_same)
        assert (got.chars_before, got.chars_after) == (ref.chars_before, ref.chars_after)
        cleared = tuple(f.index for f in ref.fates if isinstance(f, HardCleared))
        soft = tuple(f.index for f in ref.fates if isinstance(f, SoftTrimmed) and f.trimmed)
        images = tuple(f.index for f in ref.fates if isinstance(f, SoftTrimmed) and not f.trimmed)
        assert (got.hard_cleared, got.soft_trimmed, got.images_replaced) == (cleared, soft, images)


def _chat_without_clock(turns: int) -> str:
    messages = [{"role": "system", "content": "s"}]
    for t in range(turns):
        messages += [
            {"role": "user", "content": f"q{t}"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{t}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": f"c{t}", "content": "r" * (500 + 300 * (t % 7))},
            {"role": "assistant", "content": f"a{t}"},
        ]
    return json.dumps(messages)


@settings(max_examples=15, deadline=None)
@given(
    st.integers(1, 40),
    st.sampled_from(["1m", "5m", "0"]),
    st.sampled_from([8_000, 20_000, 60_000]),
    st.integers(0, 6),
    st.booleans(),
    st.sampled_from(["claude-sonnet-4-6", "claude-3-7-sonnet-20250219"]),
)
def test_fast_replay_equals_the_reference_replay(turns, ttl, window, pause_every, clocked, model):
    # A Claude 3.x route drops thinking (the pruner estimates without it): none here, so nothing differs.
    text = (
        synthetic_openclaw_session(turns, tool_result_chars=1500, pause_every=pause_every, model=model)
        if clocked
        else _chat_without_clock(turns)
    )
    transcript = parse_transcript(text)
    profile = profile_from_document(
        {
            "agents": {
                "defaults": {
                    "contextPruning": {"mode": "cache-ttl", "ttl": ttl, "minPrunableToolChars": 2000}
                }
            },
            "model": {"contextWindow": window},
        },
        name="p",
    )
    fast = replay_openclaw(transcript, profile.settings, profile_name="p")
    slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
    assert fast == slow
