"""Provider error turns (``Message.error``) replay as failed calls, and only an overflow starts recovery."""

from __future__ import annotations

import json

from simulator import call_view, parse_transcript, profile_from_document, result_to_json, simulate
from simulator.transcript import Message, Role, TextPart, ToolCall, ToolResult, Transcript

OVERFLOW = "prompt is too long: 213,000 tokens > 200,000 maximum"
ZEROCLAW = {
    "trimscope": {"runtime": "zeroclaw", "version": "documented"},
    "runtime_profiles": {"default": {"max_history_messages": 100}},
}
AI_PROFILE = {
    "trimscope": {"runtime": "ai_profile"},
    "max_attempts": 3,
    "limits": {"preset": {"contextWindow": 200000}},
}
OPENCLAW = {
    "trimscope": {"runtime": "openclaw"},
    "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
}


def _session(errors: list[str], *, tools: int = 6) -> Transcript:
    """A system prompt, ``tools`` user turns of one tool call each, then the error turns and a reply."""
    messages = [Message(Role.SYSTEM, (TextPart("system prompt " * 40),))]
    for k in range(tools):
        call = ToolCall(f"c{k}", "read", "{}")
        messages.append(Message(Role.USER, (TextPart(f"step {k}"),)))
        messages.append(Message(Role.ASSISTANT, tool_calls=(call,)))
        messages.append(
            Message(Role.TOOL, (TextPart("line\n" * 300),), tool_result=ToolResult(call.id, "read"))
        )
    for error in errors:
        messages.append(Message(Role.ASSISTANT, stop_reason="error", error=error))
    messages.append(Message(Role.ASSISTANT, (TextPart("done"),)))
    return Transcript("openai", tuple(messages), session_id="sess-err")


def _simulate(transcript: Transcript, doc: dict[str, object]):
    return simulate(transcript, profile_from_document(doc, name="p"))


def test_an_error_turn_is_a_failed_call_whose_request_is_the_history_before_it_in_every_runtime():
    transcript = _session(["fetch failed"])
    error_index = len(transcript.messages) - 2
    for doc in (ZEROCLAW, AI_PROFILE, OPENCLAW):
        result = _simulate(transcript, doc)
        assert len(result.calls) == 8  # six tool calls, the failed call, the final reply
        failed = result.calls[-2]
        assert failed.failed and failed.error == "fetch failed" and failed.message_index == error_index
        assert result.failed_calls == 1 and not result.calls[-1].failed
        assert failed.overflow == "none" and not failed.retries


def test_zeroclaw_and_ai_profile_do_not_carry_a_failed_reply_into_later_requests():
    transcript = _session(["fetch failed"])
    error_index = len(transcript.messages) - 2
    for doc in (ZEROCLAW, AI_PROFILE):
        result = _simulate(transcript, doc)
        assert all(error_index not in origin for origin in result.origins)
        last = call_view(transcript, result, len(result.calls))
        failed_rows = [r for r in last.rows if r.index == error_index]
        assert [r.fate.value for r in failed_rows] == ["failed"]
        assert last.counts.not_held == 1 and last.counts.sent == last.counts.held
        # the retry after a plain failure sends what the failed request sent
        assert result.calls[-1].tokens_sent == result.calls[-2].tokens_sent


def test_fetch_failed_is_not_an_overflow_and_starts_no_recovery():
    result = _simulate(_session(["fetch failed"]), ZEROCLAW)
    failed = result.calls[-2]
    assert not failed.trimmed and not failed.events
    assert any("not a context overflow" in n for n in failed.notes)


def test_a_zeroclaw_overflow_error_recovers_to_two_thirds_after_the_failed_request():
    transcript = _session([OVERFLOW])
    result = _simulate(transcript, ZEROCLAW)
    failed, retry = result.calls[-2], result.calls[-1]
    # the failed request is what was sent: the whole history, nothing dropped at that call
    assert list(failed.sent_indices()) == list(range(failed.available))
    assert failed.drop_rule == ""
    assert failed.overflow == "recovered" and len(failed.retries) == 1
    step = failed.retries[0]
    assert step.budget == step.tokens_before * 2 // 3 and step.tokens_after <= step.budget + 64
    assert [e.cause for e in failed.events] == ["overflow_recovery"]
    assert failed.events[0].session_id == "sess-err"
    # the retry (the next call) sends the trimmed history, with the breadcrumb
    assert retry.tokens_sent < failed.tokens_sent and retry.breadcrumb_at is not None
    view = call_view(transcript, result, failed.number)
    assert view.counts.dropped == 0


def test_an_ai_profile_overflow_error_retries_at_half_the_estimate():
    transcript = _session([OVERFLOW])
    result = _simulate(transcript, AI_PROFILE)
    failed, retry = result.calls[-2], result.calls[-1]
    assert any("retry 1 of 3" in n for n in failed.notes)
    assert retry.available == failed.available
    assert retry.tokens_sent < failed.tokens_sent
    assert retry.retries and retry.retries[0].budget == (failed.tokens_sent - failed.tokens_outside) // 2
    assert retry.drop_rule.startswith("retry 1 after a context-overflow error")


def test_ai_profile_gives_up_after_max_attempts_overflow_errors():
    transcript = _session([OVERFLOW] * 4, tools=10)
    result = _simulate(transcript, AI_PROFILE)
    failed = [c for c in result.calls if c.failed]
    assert len(failed) == 4
    assert any("retry 3 of 3" in n for n in failed[2].notes)
    assert any("gives up" in n for n in failed[3].notes)
    # after giving up, the next request is the app's ordinary up-front trim again
    assert not result.calls[-1].retries


def test_the_cli_json_report_says_which_call_failed_and_counts_its_messages():
    transcript = _session(["fetch failed"])
    report = result_to_json(_simulate(transcript, ZEROCLAW))
    calls = report["calls"]
    assert isinstance(calls, list)
    failed = [c for c in calls if isinstance(c, dict) and c["failed"]]
    assert len(failed) == 1 and failed[0]["error"] == "fetch failed"
    last = calls[-1]
    assert isinstance(last, dict) and last["counts"]["not_held"] == 1
    assert report["summary"]["failed_calls"] == 1  # type: ignore[index]


def test_an_imported_pi_error_turn_replays_as_a_failed_call():
    line = lambda **entry: json.dumps(entry)  # noqa: E731
    text = "\n".join(
        [
            line(type="session", version=3, id="pi-err", timestamp="2025-01-01T00:00:00Z", cwd="/"),
            line(
                type="message",
                id="a",
                parentId=None,
                timestamp="2025-01-01T00:00:01Z",
                message={"role": "user", "content": "hi", "timestamp": 1735689601000},
            ),
            line(
                type="message",
                id="b",
                parentId="a",
                timestamp="2025-01-01T00:00:02Z",
                message={
                    "role": "assistant",
                    "content": [],
                    "api": "x",
                    "provider": "p",
                    "model": "m",
                    "usage": {
                        "input": 0,
                        "output": 0,
                        "cacheRead": 0,
                        "cacheWrite": 0,
                        "totalTokens": 0,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                    },
                    "stopReason": "error",
                    "errorMessage": "fetch failed",
                    "timestamp": 1735689602000,
                },
            ),
        ]
    )
    transcript = parse_transcript(text)
    assert transcript.messages[-1].error == "fetch failed"
    result = _simulate(transcript, ZEROCLAW)
    assert [c.failed for c in result.calls] == [True]
    assert result.calls[0].tokens_sent > 0 and result.calls[0].sent_count == 1
