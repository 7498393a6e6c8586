"""Checks the OpenClaw *replay* (not only ``attempt.py``) against the whole-session vectors.

Each vector (``tests/vectors/openclaw/<version>/``, from the real dists through ``tools/openclaw-harness``)
is turned into what the replay reads in real use: an OpenClaw session JSONL file (the messages as
``message`` entries, the reply that ends each attempt written at the attempt's ``endedAt``, the recorded
``openclaw.cache-ttl`` markers as ``custom`` entries; with ``write_markers`` also the markers the runtime
appended after each attempt) and a profile document (the session's ``contextPruning``, model route, auth and
params; a 2026.9.6 profile leaves out the keys 2026.9.6 retired, which its dist does not read). The file is
parsed by the importer and replayed by :func:`simulator.replay.simulate`; per call the check compares:

* the history sent: its length and every message the replay did not change, with the vector's input;
* every message the replay says it changed, with its exact content (:func:`sent_messages`), and its text as
  the page shows it (:func:`simulator.replay.changed_contents`), with the vector's ``changed``;
* which stage changed what (pruning, guard, image cleanup, provider budget, transcript policy) with the
  vector's ``stages``, read from the call's fates;
* the preemptive overflow, and that a route without pruning says so.

Provider-side compaction is only marked (``trimscope.modelCompaction = false``): the vectors hold what the
dist sends, not what a provider would do with it.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from dataclasses import dataclass

from simulator.importers import parse_transcript
from simulator.jsonvalue import JSON, as_int, as_list, as_object, as_str
from simulator.profiles import Profile, profile_from_document
from simulator.replay import changed_contents, simulate
from simulator.replay.model import CallRecord, Fate, SimulationResult
from simulator.replay.openclaw import message_text, sent_messages
from simulator.runtimes.openclaw.messages import AgentMessage, messages_from_json
from simulator.runtimes.openclaw.versions import RETIRED_CONTEXT_PRUNING_KEYS
from simulator.specs.openclaw.spec import own_settings
from simulator.transcript import Transcript


@dataclass(frozen=True, slots=True)
class ReplayedSession:
    """One session vector through the replay: passed, or the first difference with its place."""

    name: str
    calls: int
    passed: bool
    detail: str = ""


def _iso(ms: int) -> str:
    stamp = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def session_jsonl(vector: JSON, *, write_markers: bool) -> str:
    """The vector's session as an OpenClaw session file (v3 JSONL)."""
    case = as_object(vector, "vector")
    session = as_object(case.get("input"), "input")
    expected = as_object(case.get("expected"), "expected")
    messages = as_list(session.get("messages"), "messages")
    attempts = as_list(session.get("attempts"), "attempts")
    model = as_object(session.get("model"), "model")
    ended: dict[int, int] = {}
    appended: dict[int, int] = {}
    for attempt, want in zip(attempts, as_list(expected.get("attempts"), "attempts"), strict=True):
        calls = as_list(as_object(attempt, "attempt").get("calls"), "calls")
        last = as_int(as_object(calls[-1], "call").get("messageCount"), "messageCount")
        end = as_int(as_object(attempt, "attempt").get("endedAt"), "endedAt")
        ended[last] = end
        if as_object(want, "attempt").get("markerAppended") is True:
            appended[last] = end
    first = as_object(messages[0], "message").get("timestamp") if messages else 0
    start = first if isinstance(first, int) else 0
    lines: list[JSON] = [
        {
            "type": "session",
            "version": 3,
            "id": as_str(case.get("name"), "name"),
            "timestamp": _iso(start),
            "cwd": "/",
        }
    ]
    parent: str | None = None

    def entry(record: dict[str, JSON], stamp: int) -> None:
        nonlocal parent
        entry_id = f"e{len(lines)}"
        lines.append({**record, "id": entry_id, "parentId": parent, "timestamp": _iso(stamp)})
        parent = entry_id

    for marker in as_list(session.get("markers", []), "markers"):
        data = as_object(marker, "marker")
        ts = data.get("timestamp")
        entry(
            {"type": "custom", "customType": "openclaw.cache-ttl", "data": data},
            ts if isinstance(ts, int) else start,
        )
    for index, raw in enumerate(messages):
        ts = as_object(raw, "message").get("timestamp")
        stamp = ended.get(index, ts if isinstance(ts, int) else start)
        entry({"type": "message", "message": raw}, stamp)
        if write_markers and index in appended:
            appended_data: dict[str, JSON] = {
                "timestamp": appended[index],
                "provider": model.get("provider"),
                "modelId": model.get("id"),
            }
            marker_entry: dict[str, JSON] = {"type": "custom", "customType": "openclaw.cache-ttl"}
            entry({**marker_entry, "data": appended_data}, appended[index])
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def profile_document(vector: JSON, version: str) -> dict[str, JSON]:
    """The profile a session vector was run with, in the profile document's keys."""
    session = as_object(as_object(vector, "vector").get("input"), "input")
    config = as_object(session.get("config"), "config")
    defaults = dict(as_object(as_object(config.get("agents"), "agents").get("defaults"), "defaults"))
    pruning = defaults.get("contextPruning")
    if version != "2026.7.1" and isinstance(pruning, dict):
        defaults["contextPruning"] = {
            k: v for k, v in pruning.items() if k not in RETIRED_CONTEXT_PRUNING_KEYS
        }
    model = as_object(session.get("model"), "model")
    route: dict[str, JSON] = {
        k: model[k]
        for k in ("provider", "id", "api", "baseUrl", "contextWindow", "contextTokens", "maxTokens")
        if k in model
    }
    route["params"] = session.get("extraParams") or {}
    meta: dict[str, JSON] = {"runtime": "openclaw", "version": version, "modelCompaction": False}
    if session.get("auth") == "oauth":
        meta["auth"] = "oauth"
    if session.get("contextTokenBudget") is not None:
        meta["contextTokenBudget"] = session.get("contextTokenBudget")
    return {"trimscope": meta, "agents": {"defaults": defaults}, "model": route}


_STAGE_RULES = {
    "guard": "tool-result context guard",
    "images": "history image cleanup",
    "transcriptPolicy": "transcript policy",
    "providerTruncation": "provider-bound tool-result budget",
}


def _stage(record: CallRecord, name: str) -> list[int]:
    if name == "pruning":
        fates = (Fate.SOFT_TRIMMED, Fate.HARD_CLEARED)
        found = {
            i
            for g in record.fated
            if g.fate in fates
            or (g.fate is Fate.IMAGE_REPLACED and g.rule.startswith("images in tool results"))
            for i in g.indices
        }
        return sorted(found)
    prefix = _STAGE_RULES[name]
    return sorted({i for g in record.fated if g.rule.startswith(prefix) for i in g.indices})


def _compare_call(
    transcript: Transcript,
    profile: Profile,
    result: SimulationResult,
    record: CallRecord,
    call: dict[str, JSON],
    want: dict[str, JSON],
    natives: Sequence[AgentMessage],
    version: str,
) -> str | None:
    count = as_int(call.get("messageCount"), "messageCount")
    if record.available != count:
        return f"history of {record.available} messages, want {count}"
    overflow = want.get("overflow") is True
    if (record.overflow == "failed") != overflow:
        return f"overflow {record.overflow}, want {overflow}"
    if overflow:
        return None
    settings = own_settings(profile.settings)
    if settings is None:
        return f"the profile is not an OpenClaw profile ({profile.runtime})"
    sent = sent_messages(transcript, settings, result, record.number, natives)
    changed = {str(i): m.to_json() for i, m in sent.items()}
    wanted = as_object(want.get("changed"), "changed")
    if changed != wanted:
        keys = sorted(set(changed) ^ set(wanted)) or [k for k in wanted if changed.get(k) != wanted[k]]
        return f"changed messages differ at {keys[:5]}"
    # The page's text of each changed message: recomputed the page's way only where something changed.
    texts = changed_contents(transcript, profile, result, record.number) if wanted else {}
    for key, message in wanted.items():
        native = messages_from_json([message])[0]
        if texts.get(int(key), (0, None))[1] != message_text(native):
            return f"changed_contents text of message {key} differs"
    stages = as_object(want.get("stages"), "stages")
    names = (
        ("pruning", "guard", "images", "transcriptPolicy")
        if version == "2026.7.1"
        else ("providerTruncation", "transcriptPolicy")
    )
    for name in names:
        if _stage(record, name) != stages.get(name):
            return f"stage {name}: {_stage(record, name)}, want {stages.get(name)}"
    return None


def run_replay_session(vector: JSON, version: str, *, write_markers: bool = True) -> ReplayedSession:
    """One session vector through the importer and the replay, compared call by call."""
    case = as_object(vector, "vector")
    name = as_str(case.get("name"), "name")
    session = as_object(case.get("input"), "input")
    transcript = parse_transcript(session_jsonl(vector, write_markers=write_markers), format="openclaw")
    profile = profile_from_document(profile_document(vector, version), name=name)
    result = simulate(transcript, profile)
    roundtrip = [m.to_json() for m in messages_from_json(as_list(session.get("messages"), "messages"))]
    if roundtrip != as_list(session.get("messages"), "messages"):
        return ReplayedSession(name, 0, False, "the session's messages do not round-trip")
    calls = [
        as_object(c, "call")
        for a in as_list(session.get("attempts"), "attempts")
        for c in as_list(as_object(a, "attempt").get("calls"), "calls")
    ]
    expected = [
        as_object(c, "call")
        for a in as_list(as_object(case.get("expected"), "expected").get("attempts"), "attempts")
        for c in as_list(as_object(a, "attempt").get("calls"), "calls")
    ]
    if len(result.calls) != len(calls):
        return ReplayedSession(
            name, len(result.calls), False, f"{len(result.calls)} calls, want {len(calls)}"
        )
    attempts = as_list(as_object(case.get("expected"), "expected").get("attempts"), "attempts")
    active = [
        as_object(a, "attempt").get("pruningActive")
        for a in attempts
        for _ in as_list(as_object(a, "attempt").get("calls"), "calls")
    ]
    natives = messages_from_json(as_list(session.get("messages"), "messages"))
    for record, call, want, on in zip(result.calls, calls, expected, active, strict=True):
        difference = _compare_call(transcript, profile, result, record, call, want, natives, version)
        if (
            difference is None
            and on is False
            and not any(
                n.startswith(("context pruning is not active", "contextPruning settings"))
                for n in record.notes
            )
        ):
            mode = _mode(session)
            if mode == "cache-ttl":
                difference = "pruning is not installed but the call does not say so"
        if difference is not None:
            return ReplayedSession(name, record.number, False, f"call {record.number}: {difference}")
    return ReplayedSession(name, len(calls), True)


def _mode(session: dict[str, JSON]) -> JSON:
    config = as_object(session.get("config"), "config")
    defaults = as_object(as_object(config.get("agents"), "agents").get("defaults"), "defaults")
    pruning = defaults.get("contextPruning")
    return pruning.get("mode") if isinstance(pruning, dict) else None


def run_replay_sessions(
    vectors: JSON, version: str, *, write_markers: bool = True
) -> tuple[ReplayedSession, ...]:
    """Every session vector of one version through the replay."""
    return tuple(
        run_replay_session(v, version, write_markers=write_markers) for v in as_list(vectors, "vectors")
    )
