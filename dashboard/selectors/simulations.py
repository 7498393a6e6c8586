"""Reads for the simulation and compare screens: replays memoised by transcript content and profile."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from dashboard.models import Profile, Transcript
from dashboard.selectors.profiles import profile_document_from_form
from dashboard.selectors.transcripts import transcript_parsed
from simulator.estimates import message_token_text, tiktoken_count
from simulator.jsonvalue import JSON
from simulator.profiles import Profile as DomainProfile
from simulator.profiles import profile_from_document, profile_to_document
from simulator.replay import SimulationResult, changed_contents, simulate
from simulator.replay.compare import Comparison, compare
from simulator.replay.view import CallView, Timeline, call_view, timeline


def simulation_document(*, profile: Profile, knob_values: Mapping[str, str] | None = None) -> dict[str, JSON]:
    """The stored profile's document with the simulation screen's knob edits on top (not validated)."""
    document: dict[str, JSON] = dict(profile.settings)
    if not knob_values:
        return document
    return profile_document_from_form(
        text=json.dumps(document), knob_values=knob_values, knobs_runtime=profile.runtime, source="knobs"
    )


def simulation_profile(*, profile: Profile, knob_values: Mapping[str, str] | None = None) -> DomainProfile:
    """The stored profile, with the simulation screen's knob edits on top when there are any.

    Raises:
        ProfileError: naming the knob whose value is not allowed.
    """
    return profile_from_document(
        simulation_document(profile=profile, knob_values=knob_values), name=profile.name
    )


@lru_cache(maxsize=32)
def _replay(sha256: str, fmt: str, document: str, name: str, transcript_id: int) -> SimulationResult:
    del sha256, fmt  # part of the key: the parsed transcript below is memoised on them
    row = Transcript.objects.get(pk=transcript_id)
    return simulate(transcript_parsed(transcript=row), profile_from_document(json.loads(document), name=name))


def simulation_result(*, transcript: Transcript, profile: DomainProfile) -> SimulationResult:
    document = json.dumps(profile_to_document(profile), sort_keys=True)
    return _replay(transcript.sha256, transcript.format, document, profile.name, transcript.pk)


@dataclass(frozen=True, slots=True)
class SimulationScreen:
    result: SimulationResult
    timeline: Timeline
    call: CallView
    changed_texts: Mapping[int, str]


def default_call(result: SimulationResult) -> int:
    """The call to open first: the first one where something was trimmed, else the last one."""
    return next((c.number for c in result.calls if c.trimmed), len(result.calls))


def simulation_screen(
    *, transcript: Transcript, profile: DomainProfile, call: int | None
) -> SimulationScreen:
    result = simulation_result(transcript=transcript, profile=profile)
    number = min(max(call or default_call(result), 1), len(result.calls))
    parsed = transcript_parsed(transcript=transcript)
    changed = changed_contents(parsed, profile, result, number)
    view = call_view(parsed, result, number, changed=changed)
    return SimulationScreen(result, timeline(result), view, {k: v[1] for k, v in changed.items()})


@lru_cache(maxsize=20_000)
def _message_tokens(sha256: str, index: int, text: str) -> int:
    del sha256, index
    return tiktoken_count(text)


def simulation_tokenizer_count(*, transcript: Transcript, screen: SimulationScreen) -> tuple[int, int]:
    """o200k tokens of what the call sent and of everything available (text, thinking, tool calls)."""
    parsed = transcript_parsed(transcript=transcript)
    result, call = screen.result, screen.call.call
    sent_natives = set(call.sent_indices())
    sent = full = 0
    for native, origin in enumerate(result.origins[: call.available]):
        for index in origin:
            count = _message_tokens(transcript.sha256, index, message_token_text(parsed.messages[index]))
            full += count
            if native in sent_natives:
                changed = screen.changed_texts.get(native)
                sent += count if changed is None or index != origin[0] else tiktoken_count(changed)
    # System prompts that a runtime sends outside its history count for both.
    in_history = {i for origin in result.origins for i in origin}
    for index, message in enumerate(parsed.messages[: call.message_index]):
        if index not in in_history:
            count = _message_tokens(transcript.sha256, index, message_token_text(message))
            sent += count
            full += count
    return sent, full


def comparison(
    *, transcript: Transcript, profiles: list[DomainProfile]
) -> tuple[list[SimulationResult], Comparison]:
    results = [simulation_result(transcript=transcript, profile=p) for p in profiles]
    return results, compare(transcript_parsed(transcript=transcript), results)
