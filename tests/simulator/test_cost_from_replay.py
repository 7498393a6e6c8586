"""Requests from replays and transcripts, the as-recorded baseline, and the recorded-usage comparison."""

from __future__ import annotations

import json

import pytest

from simulator.cost.cache import price_requests
from simulator.cost.from_replay import (
    BREADCRUMB_FINGERPRINT,
    TranscriptTokens,
    _digest,
    _growth,
    _Shape,
    as_recorded_requests,
    call_times,
    compare_with_recorded,
    requests_from_result,
)
from simulator.cost.pricing import pricing_for
from simulator.cost.shapes import cost_json, pricing_json, summary_cost_usd
from simulator.estimates import message_token_text, tiktoken_count
from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay import changed_contents, simulate
from simulator.synthetic import synthetic_openclaw_session

SONNET = pricing_for("anthropic/claude-sonnet-4-5").pricing
SYSTEM = "You review code carefully. " * 400  # well over Sonnet's 1,024-token cacheable minimum


def _anthropic_fixture() -> str:
    """An Anthropic Messages log whose replies record cache writes and reads."""
    return json.dumps(
        {
            "model": "claude-sonnet-4-5-20250929",
            "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": "look at main.py"},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "It has a bug on line 3."}],
                    "usage": {
                        "input_tokens": 12,
                        "output_tokens": 9,
                        "cache_creation_input_tokens": 2410,
                        "cache_read_input_tokens": 0,
                    },
                },
                {"role": "user", "content": "fix it"},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Fixed."}],
                    "usage": {
                        "input_tokens": 5,
                        "output_tokens": 3,
                        "cache_creation_input_tokens": 30,
                        "cache_read_input_tokens": 2410,
                    },
                },
            ],
        }
    )


def test_recorded_anthropic_cache_counts_sit_beside_the_as_recorded_prediction():
    transcript = parse_transcript(_anthropic_fixture())
    baseline = price_requests(as_recorded_requests(transcript, policy="automatic"), SONNET)
    comparison = compare_with_recorded(transcript, baseline)
    assert comparison.recorded_calls == 2
    assert comparison.cache_write.recorded == 2410 + 30
    assert comparison.cache_read.recorded == 2410
    assert comparison.output.recorded == 9 + 3
    # The second call re-sends the first call's whole request, so the model reads all of it.
    first, second = baseline.calls
    assert second.cache_read_tokens == first.prompt_tokens
    assert comparison.cache_read.predicted == second.cache_read_tokens
    assert comparison.cache_read.relative == pytest.approx((second.cache_read_tokens - 2410) / 2410)
    # Recorded output tokens are used as the prediction's output, so that field agrees exactly.
    assert comparison.output.relative == 0


def test_recorded_openai_cached_tokens_are_compared_as_cache_reads():
    history = [{"role": "system", "content": SYSTEM}]
    for n, cached in enumerate((0, 2304)):
        history.append({"role": "user", "content": f"question {n}"})
        history.append(
            {
                "role": "assistant",
                "content": f"answer {n}",
                "usage": {
                    "prompt_tokens": 2420 + 10 * n,
                    "completion_tokens": 4,
                    "prompt_tokens_details": {"cached_tokens": cached},
                },
            }
        )
    transcript = parse_transcript(json.dumps(history))
    gpt = pricing_for("openai/gpt-5.5").pricing
    comparison = compare_with_recorded(transcript, price_requests(as_recorded_requests(transcript), gpt))
    assert comparison.cache_read.recorded == 2304
    assert comparison.input.recorded == 2420 + 2430 - 2304
    assert comparison.cache_write.calls == 0  # OpenAI reports no writes; nothing to compare
    predicted_read = comparison.calls[1].predicted.cache_read_tokens
    assert predicted_read > 0 and (predicted_read - 1024) % 128 == 0


def test_a_transcript_without_usage_has_nothing_to_compare():
    transcript = parse_transcript(
        json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}])
    )
    comparison = compare_with_recorded(transcript, price_requests(as_recorded_requests(transcript), SONNET))
    assert comparison.recorded_calls == 0
    assert comparison.cache_read.relative is None


def test_as_recorded_sends_every_message_before_each_reply():
    transcript = parse_transcript(_anthropic_fixture())
    tokens = TranscriptTokens.of(transcript)
    requests = as_recorded_requests(transcript, tokens=tokens)
    roles = [m.role.value for m in transcript.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant"]
    assert [len(r.segments) for r in requests] == [2, 4]
    assert requests[1].segments[:2] == requests[0].segments
    assert [r.output_tokens for r in requests] == [9, 3]  # the recorded output tokens
    replies = [2, 4]
    assert sum(s.tokens for s in requests[0].segments) == sum(
        tiktoken_count(message_token_text(m)) for m in transcript.messages[: replies[0]]
    )


def test_without_timestamps_calls_are_one_assumed_gap_apart():
    transcript = parse_transcript(_anthropic_fixture())
    assert call_times(transcript, [2, 4], 45.0) == (0.0, 45.0)


def _chat(turns: int, result_chars: int = 2000) -> str:
    messages = [{"role": "system", "content": SYSTEM}]
    for t in range(turns):
        messages.append({"role": "user", "content": f"task {t}"})
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{t}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"c{t}", "content": f"{t} " * result_chars})
        messages.append({"role": "assistant", "content": f"done {t}"})
    return json.dumps(messages)


def test_a_zeroclaw_trim_breaks_the_cache_and_the_breadcrumb_is_part_of_the_request():
    transcript = parse_transcript(_chat(30))
    profile = profile_from_document(
        {"runtime_profiles": {"d": {"max_context_tokens": 6000}}, "provider": {}}, name="tight"
    )
    result = simulate(transcript, profile)
    requests = requests_from_result(transcript, result)
    costs = price_requests(requests, SONNET).calls
    first_trim = next(i for i, c in enumerate(result.calls) if c.trimmed and c.breadcrumb_at is not None)
    assert any(s.fingerprint == BREADCRUMB_FINGERPRINT for s in requests[first_trim].segments)
    growth = requests[first_trim].input_tokens - requests[first_trim - 1].input_tokens
    # Dropping the oldest turns changes the prefix right after the system prompt: far more than the
    # growth is written again, and only the system prompt is read.
    assert costs[first_trim].cache_write_tokens > growth
    system_tokens = requests[first_trim].segments[0].tokens
    assert costs[first_trim].cache_read_tokens == system_tokens


def test_an_openclaw_prune_rewrites_from_the_first_pruned_tool_result():
    transcript = parse_transcript(synthetic_openclaw_session(24, tool_result_chars=6000, pause_every=5))
    doc = {
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}},
        "model": {"contextWindow": 30000},
    }
    profile = profile_from_document(doc, name="pruning")
    result = simulate(transcript, profile)
    # A call the context guard stopped (preemptive overflow) is not sent at all.
    pruned = [c for c in result.calls if c.fated and c.overflow == "none"]
    assert pruned, "the synthetic session prunes after its idle pauses"
    requests = requests_from_result(
        transcript, result, changed=lambda call: changed_contents(transcript, profile, result, call.number)
    )
    baseline = requests_from_result(transcript, result, changed=lambda call: {})
    for call in pruned:
        at = call.number - 1
        as_pruned, unpruned = requests[at], baseline[at]
        # The pruned request is smaller, and it differs from the unpruned one where the first pruned
        # message stands.
        assert as_pruned.input_tokens < unpruned.input_tokens
        first_changed = min(i for g in call.fated for i in g.indices)
        assert as_pruned.segments[:first_changed] == unpruned.segments[:first_changed]
        assert as_pruned.segments[first_changed] != unpruned.segments[first_changed]


def test_the_json_shapes_add_up_to_the_summary():
    transcript = parse_transcript(_anthropic_fixture())
    session = price_requests(as_recorded_requests(transcript), SONNET)
    costs = [cost_json(c) for c in session.calls]
    assert set(costs[0]) == {
        "input_tokens",
        "cache_write_tokens",
        "cache_read_tokens",
        "output_tokens",
        "usd",
    }
    assert summary_cost_usd(session) == pytest.approx(sum(float(str(c["usd"])) for c in costs), abs=1e-12)
    pricing = pricing_json(SONNET, "1h")
    assert pricing == {
        "model": "anthropic/claude-sonnet-4-5",
        "input_per_mtok": 3.0,
        "output_per_mtok": 15.0,
        "cache_write_multiplier": 2.0,
        "cache_read_multiplier": 0.1,
        "cache_ttl_seconds": 3600,
        "source": SONNET.source,
    }


def _claude_code_line(kind: str, at: str, uuid: str, parent: str | None, message: dict) -> str:
    return json.dumps(
        {
            "type": kind,
            "timestamp": at,
            "sessionId": "s",
            "uuid": uuid,
            "parentUuid": parent,
            "message": message,
        }
    )


def _usage(write: int, read: int, uncached: int, output: int) -> dict:
    return {
        "input_tokens": uncached,
        "output_tokens": output,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
    }


def test_claude_code_cache_counts_and_timestamps_drive_the_comparison():
    spec = "Refactor the parser. " * 500  # a long first prompt, cacheable on its own
    lines = [
        _claude_code_line("user", "2026-01-05T10:00:00.000Z", "u1", None, {"role": "user", "content": spec}),
        _claude_code_line(
            "assistant",
            "2026-01-05T10:00:20.000Z",
            "a1",
            "u1",
            {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "text", "text": "Done with step one."}],
                "usage": _usage(write=14_000, read=0, uncached=3, output=6),
            },
        ),
        _claude_code_line(
            "user", "2026-01-05T10:01:00.000Z", "u2", "a1", {"role": "user", "content": "next"}
        ),
        _claude_code_line(
            "assistant",
            "2026-01-05T10:01:10.000Z",
            "a2",
            "u2",
            {
                "id": "msg_2",
                "role": "assistant",
                "content": [{"type": "text", "text": "Step two done."}],
                "usage": _usage(write=20, read=14_000, uncached=3, output=4),
            },
        ),
        # Ten minutes idle: the 5-minute cache has expired.
        _claude_code_line(
            "user", "2026-01-05T10:11:10.000Z", "u3", "a2", {"role": "user", "content": "again"}
        ),
        _claude_code_line(
            "assistant",
            "2026-01-05T10:11:20.000Z",
            "a3",
            "u3",
            {
                "id": "msg_3",
                "role": "assistant",
                "content": [{"type": "text", "text": "Again done."}],
                "usage": _usage(write=14_030, read=0, uncached=3, output=3),
            },
        ),
    ]
    transcript = parse_transcript("\n".join(lines))
    assert transcript.format == "claude-code"
    lookup = pricing_for(transcript.model, provider="anthropic")
    assert lookup.pricing.key == "anthropic/claude-sonnet-4-5" and lookup.warning is None
    baseline = price_requests(as_recorded_requests(transcript, policy="automatic"), lookup.pricing)
    comparison = compare_with_recorded(transcript, baseline)
    assert comparison.recorded_calls == 3
    assert comparison.cache_read.recorded == 14_000
    assert comparison.cache_write.recorded == 14_000 + 20 + 14_030
    predicted = [c.predicted for c in comparison.calls]
    # Like the recording, the model reads on the second call and reads nothing after the idle gap.
    assert predicted[1].cache_read_tokens > 0
    assert predicted[2].cache_read_tokens == 0
    assert predicted[2].cache_write_tokens == predicted[2].prompt_tokens


def test_openclaw_pi_cache_counts_are_read_and_the_replay_uses_pis_breakpoints():
    lines = synthetic_openclaw_session(3, tool_result_chars=3000, pause_every=0).splitlines()
    recorded: list[tuple[int, int]] = []
    for n, line in enumerate(lines):
        entry = json.loads(line)
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            read, write = 100 * n, 10 * n
            recorded.append((read, write))
            message["usage"] = {
                "input": 7,
                "output": 5,
                "cacheRead": read,
                "cacheWrite": write,
                "totalTokens": 12,
            }
            lines[n] = json.dumps(entry)
    transcript = parse_transcript("\n".join(lines))
    comparison = compare_with_recorded(transcript, price_requests(as_recorded_requests(transcript), SONNET))
    assert comparison.recorded_calls == len(recorded)
    assert comparison.cache_read.recorded == sum(r for r, _ in recorded)
    assert comparison.cache_write.recorded == sum(w for _, w in recorded)

    profile = profile_from_document({"contextPruning": {"mode": "off"}}, name="off")
    result = simulate(transcript, profile)
    assert result.runtime == "openclaw"
    requests = requests_from_result(transcript, result)
    for request in requests:
        last = len(request.segments) - 1
        # pi marks the system prompt and the last message when it is a user message or tool result.
        expected_last = request.segments[last].role in ("user", "tool")
        assert (last in request.breakpoints) == expected_last
        system = [i for i, s in enumerate(request.segments) if s.role == "system"]
        if system:
            assert system[-1] in request.breakpoints


def test_the_as_recorded_baseline_uses_the_breakpoints_of_the_runtime_that_wrote_the_transcript():
    openclaw = parse_transcript(synthetic_openclaw_session(2, pause_every=0))
    anthropic = parse_transcript(_anthropic_fixture())
    # pi puts a breakpoint on the last message only when it is a user message or a tool result.
    for request in as_recorded_requests(openclaw):
        last = len(request.segments) - 1
        assert (last in request.breakpoints) == (request.segments[last].role in ("user", "tool"))
    # Other formats: one automatic breakpoint on the last cacheable message.
    assert [r.breakpoints for r in as_recorded_requests(anthropic)] == [(1,), (3,)]


def test_transcript_tokens_count_each_distinct_text_once_and_a_shared_memo_changes_no_count(monkeypatch):
    from simulator.cost import from_replay
    from simulator.cost.from_replay import message_fingerprint

    chat = [{"role": "system", "content": "Be brief."}]
    for i in range(6):
        chat += [
            {"role": "user", "content": "Read the log again."},
            {"role": "assistant", "content": f"Line {i}."},
        ]
    transcript = parse_transcript(json.dumps(chat))
    texts = [message_token_text(m) for m in transcript.messages]
    assert len(set(texts)) == 8 < len(texts) == 13
    counted: list[str] = []

    def counting(many: list[str], encoding: str = "o200k_base", *, threads: int = 1) -> list[int]:
        counted.extend(many)
        return [tiktoken_count(text, encoding) for text in many]

    monkeypatch.setattr(from_replay, "tiktoken_counts", counting)
    alone = TranscriptTokens.of(transcript)
    assert sorted(counted) == sorted(set(texts))
    assert alone.tokens == tuple(tiktoken_count(t) for t in texts)
    assert alone.fingerprints == tuple(message_fingerprint(m) for m in transcript.messages)
    memo: dict[str, int] = {}
    first = TranscriptTokens.of(transcript, counted=memo)
    counted.clear()
    again = TranscriptTokens.of(transcript, counted=memo)
    assert counted == []  # every text was in the shared memo
    assert first == again == alone


def _naive_requests(transcript, result, changed):
    """Each request built message by message from its call, with no sharing between calls."""
    tokens = TranscriptTokens.of(transcript)
    native = []
    held: set[int] = set()
    for origin in result.origins:
        held.update(origin)
        if len(origin) == 1:
            # A native of one message is that message as the transcript fingerprints it.
            native.append((tokens.fingerprints[origin[0]], tokens.tokens[origin[0]]))
            continue
        native.append(
            (_digest(*(tokens.fingerprints[i] for i in origin)), sum(tokens.tokens[i] for i in origin))
            if origin
            else (_digest("empty"), 0)
        )
    leading = [
        (tokens.fingerprints[i], tokens.tokens[i])
        for i, m in enumerate(transcript.messages)
        if m.role.value == "system" and i not in held
    ]
    out = []
    for call in result.calls:
        edited = changed(call) if changed is not None else {}
        fated = {i: g.fate.value for g in call.fated for i in g.indices}
        sent = list(leading)
        for index in call.sent_indices():
            if index in edited:
                text = edited[index][1]
                sent.append((_digest("as-sent", text), tiktoken_count(text)))
            elif index in fated:
                sent.append((_digest("fate", fated[index], native[index][0]), native[index][1]))
            else:
                sent.append(native[index])
        if call.breadcrumb_at is not None:
            sent.insert(len(leading) + call.breadcrumb_at, (BREADCRUMB_FINGERPRINT, None))
        out.append(sent)
    return out


TRIMMING_PROFILES = [
    {
        "trimscope": {"runtime": "zeroclaw", "version": "documented"},
        "runtime_profiles": {"d": {"max_context_tokens": 6000}},
        "provider": {},
    },
    {
        "trimscope": {"runtime": "zeroclaw", "version": "documented"},
        "runtime_profiles": {"d": {"max_history_messages": 9}},
        "provider": {},
    },
    {
        "trimscope": {"runtime": "zeroclaw", "version": "upstream"},
        "runtime_profiles": {"d": {"max_history_messages": 7}},
        "provider": {},
    },
    {
        "trimscope": {"runtime": "ai_profile"},
        "max_tokens": 1024,
        "limits": {"preset": {"contextWindow": 9000}},
    },
    {
        "trimscope": {"runtime": "openclaw", "version": "2026.7.1"},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}},
        "model": {"contextWindow": 30000},
    },
    {"trimscope": {"runtime": "as_recorded"}},
]


@pytest.mark.parametrize("document", TRIMMING_PROFILES, ids=lambda d: json.dumps(d)[:60])
@pytest.mark.parametrize(
    "text",
    [_chat(40, 900), synthetic_openclaw_session(30, tool_result_chars=5000, pause_every=3)],
    ids=["chat", "openclaw"],
)
def test_every_request_is_what_its_call_sends_message_by_message(document, text):
    # Requests that extend the one before are built from the spans that grew: the same segments as a
    # request built from scratch, call after call, whether the runtime trims, prunes or only grows.
    transcript = parse_transcript(text)
    profile = profile_from_document(document, name="p")
    result = simulate(transcript, profile)
    changed = lambda call: changed_contents(transcript, profile, result, call.number)  # noqa: E731
    requests = requests_from_result(transcript, result, changed=changed)
    expected = _naive_requests(transcript, result, changed)
    assert len(requests) == len(expected) == len(result.calls)
    extended = 0
    for number, (request, sent) in enumerate(zip(requests, expected, strict=True), start=1):
        got = [
            (s.fingerprint, s.tokens if s.fingerprint != BREADCRUMB_FINGERPRINT else None)
            for s in request.segments
        ]
        assert got == sent, number
        # A pruned call is a rope (slices of the natives and runs), with no history of its own.
        history = getattr(request.segments, "history", None)
        before = getattr(requests[number - 2].segments, "history", None) if number > 1 else None
        if history is not None and history is before:
            extended += 1
    assert extended > 0  # some requests share the history of the one before
    from simulator.assumed_times import DEFAULT_GAP_SECONDS

    times = call_times(transcript, [c.message_index for c in result.calls], DEFAULT_GAP_SECONDS)
    assert [r.at_seconds for r in requests] == list(times)
    assert [r.output_tokens for r in requests] == [
        r.output_tokens for r in requests_from_result(transcript, result, changed=changed)
    ]


@pytest.mark.parametrize(
    ("spans", "crumb", "later", "later_crumb", "growth"),
    [
        (((0, 5),), None, ((0, 7),), None, [(5, 7)]),
        (((0, 5),), None, ((0, 5), (8, 9)), None, [(5, 5), (8, 9)]),
        (((0, 2), (4, 5)), 1, ((0, 2), (4, 9)), 1, [(5, 9)]),
        (((0, 5),), 5, ((0, 7),), 5, [(5, 7)]),  # a breadcrumb at the end stays before what is new
        (((0, 5),), 6, ((0, 7),), 6, None),  # a breadcrumb past the end was appended: not a prefix
        (((0, 5),), None, ((1, 7),), None, None),  # the oldest message dropped
        (((0, 5),), None, ((0, 4),), None, None),  # shorter
        (((0, 5),), 0, ((0, 7),), None, None),  # the breadcrumb went
        (((0, 2), (4, 5)), None, ((0, 3), (4, 9)), None, None),
        ((), None, ((0, 1),), None, None),
    ],
)
def test_growth_is_what_a_request_adds_only_when_the_one_before_is_its_prefix(
    spans, crumb, later, later_crumb, growth
):
    assert _growth(_Shape(spans, crumb), _Shape(later, later_crumb)) == growth
    assert _growth(None, _Shape(later, later_crumb)) is None
    assert _growth(_Shape(spans, crumb), None) is None


@pytest.mark.parametrize("max_bars", [400, 7])
def test_a_cost_strip_bar_is_flagged_exactly_when_a_cache_break_falls_within_its_calls(max_bars):
    from simulator.cost.breaks import cache_breaks
    from simulator.cost.strip import cost_strip
    from simulator.replay.view import timeline, timeline_shape

    transcript = parse_transcript(_chat(40, 900))
    profile = profile_from_document(
        {"runtime_profiles": {"d": {"max_history_messages": 9}}, "provider": {}}, name="p"
    )
    result = simulate(transcript, profile)
    requests = requests_from_result(transcript, result)
    session = price_requests(requests, SONNET)
    breaks = cache_breaks(requests, session)
    assert len(breaks) > 3
    shape = timeline_shape(timeline(result, max_bars=max_bars), selected=1)
    strip = cost_strip(shape, session, breaks)
    numbers = [b.number for b in breaks]
    flags = [bar.cache_break for bar in strip.bars]
    assert flags == [any(bar.first_call <= n <= bar.last_call for n in numbers) for bar in strip.bars]
    assert any(flags) and (max_bars == 7 or not all(flags))
