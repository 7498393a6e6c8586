"""The OpenClaw replay sends, call by call, what the real dists send (session vectors through the replay)."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest

from simulator.conformance.openclaw_replay_sessions import run_replay_session, run_replay_sessions
from simulator.errors import ProfileError
from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay import changed_contents, simulate
from simulator.replay import openclaw as replay_module
from simulator.replay.model import Fate
from simulator.replay.openclaw import replay_openclaw
from simulator.replay.openclaw_transforms_2026_9 import FastTransforms2026_9
from simulator.runtimes.openclaw.route import OPENCLAW_VERSIONS, OpenClawVersion

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "openclaw"
T0 = 1_780_000_000_000


def _vectors(version: str) -> list[dict]:
    return json.loads(gzip.decompress((VECTORS / version / "sessions.json.gz").read_bytes()))


@pytest.mark.parametrize("version", OPENCLAW_VERSIONS)
def test_every_session_vector_replays_through_the_replay_with_zero_failures(version: OpenClawVersion):
    results = run_replay_sessions(_vectors(version), version)
    assert sum(r.calls for r in results) > 900
    assert [f"{r.name}: {r.detail}" for r in results if not r.passed] == []


@pytest.mark.parametrize("version", OPENCLAW_VERSIONS)
def test_session_vectors_pass_when_the_replay_writes_the_markers_itself(version: OpenClawVersion):
    # Only the markers recorded before the session are in the file; the replay appends one per attempt
    # at the time the reply's entry was written, as OpenClaw does.
    results = run_replay_sessions(_vectors(version)[:36], version, write_markers=False)
    assert [f"{r.name}: {r.detail}" for r in results if not r.passed] == []


def test_a_wrong_sent_content_is_reported_by_the_replay_check():
    vector = next(
        v
        for v in _vectors("2026.7.1")
        if any(c.get("changed") for a in v["expected"]["attempts"] for c in a["calls"])
    )
    broken = copy.deepcopy(vector)
    call = next(c for a in broken["expected"]["attempts"] for c in a["calls"] if c.get("changed"))
    key = next(iter(call["changed"]))
    call["changed"][key]["content"] = "not what OpenClaw sent"
    assert run_replay_session(vector, "2026.7.1").passed
    result = run_replay_session(broken, "2026.7.1")
    assert not result.passed
    assert "changed messages differ" in result.detail


@pytest.mark.parametrize("version", OPENCLAW_VERSIONS)
def test_the_fast_replay_equals_the_reference_replay_on_every_session_vector(version: OpenClawVersion):
    from simulator.conformance.openclaw_replay_sessions import profile_document, session_jsonl

    made: list[FastTransforms2026_9] = []

    class Counted(FastTransforms2026_9):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    with patch.object(replay_module, "FastTransforms2026_9", Counted):
        for vector in _vectors(version)[::3]:
            transcript = parse_transcript(session_jsonl(vector, write_markers=False), format="openclaw")
            profile = profile_from_document(profile_document(vector, version), name="p")
            fast = replay_openclaw(transcript, profile.settings, profile_name="p")
            slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
            assert fast.calls == slow.calls, vector["name"]
    if version == "2026.9.6":
        # The fast path answers a good share of the vectors' calls (the rest hold images old enough for
        # the history cleanup, guard cuts or dropped thinking: left to the reference, by design).
        calls = sum(m.calls for m in made)
        fallbacks = sum(m.fallbacks for m in made)
        assert calls > 250 and calls - fallbacks > calls // 4, (calls, fallbacks)


# -- sessions written here: the clock, eligibility, compaction ------------------------------------------


def _iso(ms: int) -> str:
    import datetime

    stamp = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _session(
    turns: list[tuple[int, int]],
    *,
    provider="anthropic",
    model="claude-sonnet-4-6",
    marker=None,
    result_chars=6000,
    image=False,
    api="anthropic-messages",
) -> str:
    """One user → tool call → tool result → answer per turn; ``(request_ms, written_ms)`` of each answer.

    The tool call's request is 1 s before the answer's; ``marker`` is a recorded cache-TTL marker written
    after the first turn.
    """
    lines = [{"type": "session", "version": 3, "id": "s", "timestamp": _iso(T0), "cwd": "/"}]

    def add(record, stamp):
        record.update(
            {
                "id": f"e{len(lines)}",
                "parentId": f"e{len(lines) - 1}" if len(lines) > 1 else None,
                "timestamp": _iso(stamp),
            }
        )
        lines.append(record)

    for n, (request, written) in enumerate(turns):
        if n == 1 and marker is not None:
            data = {"timestamp": marker, "provider": provider, "modelId": model}
            add({"type": "custom", "customType": "openclaw.cache-ttl", "data": data}, marker)
        add(
            {
                "type": "message",
                "message": {"role": "user", "content": f"turn {n}", "timestamp": request - 2000},
            },
            request - 2000,
        )
        call = {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": f"c{n}", "name": "read", "arguments": {}}],
            "provider": provider,
            "model": model,
            "api": api,
            "stopReason": "toolUse",
            "timestamp": request - 1000,
        }
        add({"type": "message", "message": call}, request - 1000)
        content = [{"type": "text", "text": "x" * result_chars}]
        if image:
            content.append({"type": "image", "data": "aGk=", "mimeType": "image/png"})
        add(
            {
                "type": "message",
                "message": {
                    "role": "toolResult",
                    "toolCallId": f"c{n}",
                    "toolName": "read",
                    "content": content,
                    "isError": False,
                    "timestamp": request - 500,
                },
            },
            request - 500,
        )
        answer = {
            "role": "assistant",
            "content": [{"type": "text", "text": "done"}],
            "provider": provider,
            "model": model,
            "api": api,
            "stopReason": "stop",
            "timestamp": request,
        }
        add({"type": "message", "message": answer}, written)
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def _profile(**pruning):
    doc = {
        "agents": {
            "defaults": {
                "contextPruning": {
                    "mode": "cache-ttl",
                    "softTrimRatio": 0,
                    "keepLastAssistants": 0,
                    **pruning,
                }
            }
        },
        "model": {"contextWindow": 100_000},
    }
    return profile_from_document(doc, name="p")


def _gate_notes(result, number):
    return [n for n in result.calls[number - 1].notes if "cache" in n]


@pytest.mark.parametrize(("gap", "expired"), [(299_999, False), (300_000, True), (300_001, True)])
def test_a_recorded_marker_opens_the_ttl_exactly_at_300000_ms(gap, expired):
    # The second attempt's first call (its tool call) is 1 s before its answer's request.
    first, marker = T0 + 10_000, T0 + 10_100
    turns = [(first, first + 50), (marker + gap + 1000, marker + gap + 1050)]
    transcript = parse_transcript(_session(turns, marker=marker), format="openclaw")
    result = simulate(transcript, _profile())
    notes = _gate_notes(result, 3)
    assert ("cache TTL expired" in notes[0]) is expired, notes
    assert bool(result.calls[2].fated) is expired


def test_the_ttl_clock_starts_when_the_reply_entry_was_written_not_when_its_request_started():
    # A reply that streams for 10 s, then a message 305 s after that request started: 295 s for OpenClaw.
    start = T0 + 10_000
    # The second attempt's first call is its tool call, 1 s before its answer's request.
    turns = [(start, start + 10_000), (start + 306_000, start + 306_050)]
    transcript = parse_transcript(_session(turns), format="openclaw")
    result = simulate(transcript, _profile())
    assert "cache still warm: 4m 55s" in " ".join(result.calls[2].notes)
    assert not result.calls[2].fated


def test_pruning_is_not_active_for_a_route_the_runtime_does_not_install_it_for():
    start = T0 + 10_000
    turns = [(start, start + 50), (start + 3_600_000, start + 3_600_050)]
    transcript = parse_transcript(
        _session(turns, provider="openai-codex", model="gpt-5.3-codex", api="openai-codex-responses"),
        format="openclaw",
    )
    result = simulate(transcript, _profile())
    assert all("context pruning is not active for openai-codex" in c.notes for c in result.calls)
    assert all("pruning-inactive" in c.marks for c in result.calls)
    assert not any(g.fate in (Fate.SOFT_TRIMMED, Fate.HARD_CLEARED) for c in result.calls for g in c.fated)


def test_history_image_cleanup_replaces_images_of_older_turns_with_its_own_fate_and_rule():
    start = T0 + 10_000
    turns = [(start + n * 20_000, start + n * 20_000 + 50) for n in range(5)]
    transcript = parse_transcript(_session(turns, image=True, result_chars=100), format="openclaw")
    profile = _profile()
    result = simulate(transcript, profile)
    last = result.calls[-1]
    cleaned = [g for g in last.fated if g.rule.startswith("history image cleanup")]
    assert cleaned and cleaned[0].fate is Fate.IMAGE_REPLACED
    assert "image-cleanup" in last.marks
    texts = changed_contents(transcript, profile, result, last.number)
    assert "[image data removed - already processed by model]" in texts[cleaned[0].indices[0]][1]


def _openai_doc(**trimscope):
    return {
        "trimscope": {"runtime": "openclaw", "version": "2026.9.6", **trimscope},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
        "model": {
            "provider": "openai",
            "id": "gpt-5.4",
            "api": "openai-responses",
            "baseUrl": "https://api.openai.com/v1",
            "contextWindow": 20_000,
        },
    }


def test_provider_side_compaction_is_marked_and_later_calls_send_a_summary_of_the_configured_size():
    start = T0 + 10_000
    turns = [(start + n * 20_000, start + n * 20_000 + 50) for n in range(8)]
    transcript = parse_transcript(
        _session(turns, provider="", model="", result_chars=8000), format="openclaw"
    )
    small = simulate(transcript, profile_from_document(_openai_doc(compactionSummaryTokens=500), name="s"))
    large = simulate(transcript, profile_from_document(_openai_doc(compactionSummaryTokens=3000), name="l"))
    assert small.version == "2026.9.6"
    points = [c for c in small.calls if "compaction" in c.marks]
    assert len(points) == 1
    point = points[0]
    assert any(g.fate is Fate.COMPACTED for g in point.fated)
    after = small.calls[point.number]
    assert after.sent[0][0] > 0 and "compacted by the provider" in after.drop_rule
    assert large.calls[point.number].tokens_sent - after.tokens_sent == 2500


def test_a_2026_9_6_profile_rejects_the_keys_that_version_retired():
    doc = _openai_doc()
    doc["agents"]["defaults"]["contextPruning"]["keepLastAssistants"] = 2
    with pytest.raises(ProfileError) as err:
        profile_from_document(doc, name="p")
    assert err.value.field == "contextPruning.keepLastAssistants"


def test_the_config_schema_picks_the_version_when_the_profile_does_not_say():
    entries = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}, "entries": {"main": {}}}}
    listed = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}, "list": [{"id": "main"}]}}
    assert profile_from_document(entries, name="a").version == "2026.9.6"
    assert profile_from_document(listed, name="b").version == "2026.7.1"


def test_an_openclaw_json_with_keyed_agent_entries_is_read_as_2026_9_6():
    from simulator.config_files import read_config_text

    text = json.dumps(
        {
            "agents": {
                "defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "1h"}},
                "entries": {"main": {"name": "Main"}, "ops": {}},
            }
        }
    )
    config = read_config_text(text, filename="openclaw.json")
    assert [p.name for p in config.profiles] == ["main", "ops"]
    assert {p.version for p in config.profiles} == {"2026.9.6"}
    assert "2026.9.6 schema" in config.shape


def test_an_openclaw_json_with_a_retired_key_is_read_as_2026_7_1():
    from simulator.config_files import read_config_text

    text = json.dumps(
        {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "keepLastAssistants": 1}}}}
    )
    config = read_config_text(text, filename="openclaw.json")
    assert [p.version for p in config.profiles] == ["2026.7.1"]
