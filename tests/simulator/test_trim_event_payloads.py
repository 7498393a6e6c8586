"""HistoryTrimmed payloads carry the transcript's own session id and say an unknown time is unknown.

Checked in every wire shape (WebSocket, SSE, RPC, ACP), through the simulator and the CLI's ``--json``.
"""

from __future__ import annotations

import json

from simulator import parse_transcript, profile_from_document, result_to_json, simulate, wire_shapes
from simulator.cli import main
from tests.support import tool_heavy_chat

TIGHT = {
    "trimscope": {"runtime": "zeroclaw", "version": "documented"},
    "runtime_profiles": {"default": {"max_context_tokens": 1500}},
}


def _claude_code_without_times(session_id: str) -> str:
    lines, parent = [], None
    for i in range(10):
        user = {"type": "user", "sessionId": session_id, "uuid": f"u{i}", "parentUuid": parent}
        user["message"] = {"role": "user", "content": "q" * 3000}
        reply = {"type": "assistant", "sessionId": session_id, "uuid": f"a{i}", "parentUuid": f"u{i}"}
        reply["message"] = {"role": "assistant", "id": f"m{i}", "content": [{"type": "text", "text": "ok"}]}
        parent = f"a{i}"
        lines += [json.dumps(user), json.dumps(reply)]
    return "\n".join(lines)


def _shapes(text: str) -> list[tuple[dict, dict, dict, dict]]:
    result = simulate(parse_transcript(text), profile_from_document(TIGHT, name="tight"))
    trims = [t for c in result.calls for t in c.events]
    assert trims, "the tight profile must trim"
    return [(s.ws, s.sse, s.rpc, s.acp) for s in map(wire_shapes, trims)]


def test_a_transcript_with_a_session_id_and_no_times_keeps_its_id_and_says_the_time_is_unknown():
    for ws, sse, rpc, acp in _shapes(_claude_code_without_times("cc-sess-9")):
        assert rpc["session_id"] == "cc-sess-9" and acp["params"]["sessionId"] == "cc-sess-9"
        assert sse["timestamp"] is None
        assert "session_id" not in ws and "timestamp" not in ws


def test_a_transcript_without_either_says_both_are_unknown_and_invents_nothing():
    for frames in _shapes(tool_heavy_chat(10)):
        text = json.dumps(frames)
        assert "1970" not in text and '"replay"' not in text
        _, sse, rpc, acp = frames
        assert sse["timestamp"] is None and rpc["session_id"] is None and acp["params"]["sessionId"] is None


def test_a_timed_transcript_stamps_each_event_with_its_call_time():
    lines, parent = [], None
    for i in range(10):
        stamp = f"2026-03-0{1 + i % 9}T10:00:0{i % 10}.000Z"
        user = {
            "type": "user",
            "sessionId": "timed",
            "uuid": f"u{i}",
            "parentUuid": parent,
            "timestamp": stamp,
        }
        user["message"] = {"role": "user", "content": "q" * 3000}
        reply = {"type": "assistant", "sessionId": "timed", "uuid": f"a{i}", "parentUuid": f"u{i}"}
        reply |= {"timestamp": stamp, "message": {"role": "assistant", "id": f"m{i}", "content": "ok"}}
        parent = f"a{i}"
        lines += [json.dumps(user), json.dumps(reply)]
    for _, sse, rpc, _ in _shapes("\n".join(lines)):
        assert sse["timestamp"].startswith("2026-03-0") and sse["timestamp"].endswith("Z")
        assert rpc["session_id"] == "timed"


def test_the_json_report_and_the_cli_carry_the_same_frames(tmp_path, capsys):
    text = _claude_code_without_times("cc-cli")
    path = tmp_path / "session.jsonl"
    path.write_text(text)
    profile = tmp_path / "tight.json"
    profile.write_text(json.dumps(TIGHT))
    assert main(["simulate", str(path), "--profile", str(profile), "--json"]) == 0
    (cli,) = json.loads(capsys.readouterr().out)["results"]
    direct = result_to_json(simulate(parse_transcript(text), profile_from_document(TIGHT, name="tight")))
    frames = [f for c in cli["calls"] for f in c["events"]]
    assert frames and frames == [f for c in direct["calls"] for f in c["events"]]  # type: ignore[union-attr]
    rpc = [f for f in frames if "session_id" in f]
    sse = [f for f in frames if "timestamp" in f]
    assert rpc and all(f["session_id"] == "cc-cli" for f in rpc)
    assert sse and all(f["timestamp"] is None for f in sse)
    assert "1970" not in json.dumps(frames)
    # the CLI's counts are the view's counts
    assert all(c["counts"]["sent"] + c["counts"]["dropped"] == c["counts"]["held"] for c in cli["calls"])
