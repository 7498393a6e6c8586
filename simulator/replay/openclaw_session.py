"""What an OpenClaw replay reads from a transcript before the first call: messages, attempts, times, routes.

OpenClaw (``runEmbeddedAttempt``) runs one *attempt* per user message: the first model call and every
tool-loop continuation until the reply. The replay needs, per model call, the history handed to
``transformContext`` and ``Date.now()`` at the call, and per attempt its route and the time its reply's
entry was written (the ``openclaw.cache-ttl`` marker is stamped then). Read from the transcript:

* native messages: an OpenClaw session's own ``AgentMessage`` payloads (``Message.raw``) as recorded, so what
  the replay sends is byte for byte what OpenClaw would; other formats are converted (``to_openclaw``);
* a call's time: its reply's ``timestamp`` (pi stamps an assistant message when its request starts), else
  the newest time before it. ``simulator.replay.simulate`` never hands this a transcript with no times at
  all: it stamps one first with the assumed gap (``simulator.assumed_times``, the same gap the cost model
  reads). Called directly (the fast-against-reference tests), such a transcript gets calls a day apart,
  every attempt after the first past the TTL (said in a warning), so those tests exercise the pruner; no
  conformance vector takes this path (their sessions carry timestamps);
* an attempt's end: the reply entry's own ISO ``timestamp`` (``Message.written_ms``: after the reply
  finished), else the reply's ``timestamp``;
* the route: the reply's recorded ``provider``/``model``/``api``, else the transcript's, else the profile's
  ``[model]``, else ``anthropic`` (said in a warning);
* recorded markers: the transcript's ``openclaw.cache-ttl`` entries, by position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import TypeAlias

import msgspec

from simulator.convert import to_openclaw
from simulator.jsonvalue import JSON
from simulator.replay.loop import ModelCall, model_calls
from simulator.replay.model import slot_builder
from simulator.replay.openclaw_facts_2026_9 import SessionFacts
from simulator.replay.openclaw_natives_fast import NATIVE_ROLES, NativeColumns, natives_with_facts
from simulator.runtimes.openclaw.attempt import AttemptConfig, CacheTtlMarker
from simulator.runtimes.openclaw.estimate import StripFacts
from simulator.runtimes.openclaw.messages import AgentMessage, messages_from_json
from simulator.runtimes.openclaw.route import ModelRoute
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.runtimes.openclaw.v2026_9_6.compaction import DEFAULT_SUMMARY_TOKENS
from simulator.transcript import Message, Role, Transcript

DAY_MS = 86_400_000
DEFAULT_PROVIDER = "anthropic"


class PlannedCall(msgspec.Struct, frozen=True, gc=False):
    """One model call: where it stands, its time, and whether it opens or closes an attempt.

    A frozen struct, not a dataclass: a replay plans every call of the session again (a struct is built
    in C, several times faster), and holds no value that can refer back to it (``gc=False``)."""

    call: ModelCall
    now: float
    starts_attempt: bool
    attempt_end: float | None
    """Set on an attempt's last call: when its reply's entry was written."""
    route: ModelRoute
    route_source: str


@dataclass(frozen=True, slots=True)
class RecordedMarker:
    """A marker the transcript records, and the transcript index it stands before."""

    before_message: int
    marker: CacheTtlMarker


@dataclass(frozen=True, slots=True)
class SessionPlan:
    natives: tuple[AgentMessage, ...]
    origins: tuple[tuple[int, ...], ...]
    calls: tuple[PlannedCall, ...]
    recorded: tuple[RecordedMarker, ...]
    config: AttemptConfig
    warnings: tuple[str, ...]
    prepared: OpenClawNatives


def native_messages(transcript: Transcript) -> tuple[AgentMessage, ...]:
    """The transcript's native messages alone (no sizes, no calls): for one call's contents on demand."""
    return _natives(transcript)[0]


def _natives(transcript: Transcript) -> tuple[tuple[AgentMessage, ...], tuple[tuple[int, ...], ...]]:
    if transcript.format != "openclaw":
        converted = to_openclaw(transcript.messages)
        return messages_from_json(list(converted.messages)), tuple(tuple(o) for o in converted.origins)
    # An OpenClaw session's own payloads, as recorded; only a message without one is converted (each
    # non-system message is one native of its own, so converting it alone gives what converting all would).
    raws: list[JSON] = []
    origins: list[tuple[int, ...]] = []
    for index, message in enumerate(transcript.messages):
        if message.role is Role.SYSTEM:
            continue
        raw = message.raw
        if not (isinstance(raw, dict) and raw.get("role") in NATIVE_ROLES):
            raw = to_openclaw((message,)).messages[0]
        raws.append(raw)
        origins.append((index,))
    return messages_from_json(raws), tuple(origins)


def _read_natives(
    transcript: Transcript,
) -> tuple[NativeColumns, tuple[tuple[int, ...], ...], tuple[ModelCall, ...]]:
    """What :func:`_natives` reads, each message with its facts (``natives_with_facts``), and the model
    calls (``model_calls``)."""
    if transcript.format != "openclaw":
        converted = to_openclaw(transcript.messages)
        origins = tuple(tuple(o) for o in converted.origins)
        return natives_with_facts(converted.messages), origins, model_calls(transcript, origins)
    messages = transcript.messages
    system = Role.SYSTEM
    indexes = [index for index, message in enumerate(messages) if message.role is not system]

    def convert_one(k: int) -> JSON:
        return to_openclaw((messages[indexes[k]],)).messages[0]

    read = natives_with_facts([messages[index].raw for index in indexes], convert_one)
    return read, tuple(zip(indexes)), _own_native_calls(messages, indexes)  # one-element origins, made in C


_model_call = ModelCall
"""``ModelCall(...)`` positionally, one per call (a struct, built in C; the name is where tests swap in a
broken builder)."""


def _own_native_calls(messages: Sequence[Message], indexes: Sequence[int]) -> tuple[ModelCall, ...]:
    """``model_calls`` when every message but the system ones is a native of its own (``indexes``, as an
    OpenClaw session's are): each assistant message is a call holding the natives before it.

    Found without ``model_calls``' check of each origin against each message; tests compare the two.
    """
    assistant, build = Role.ASSISTANT, _model_call
    found = [(held, index) for held, index in enumerate(indexes) if messages[index].role is assistant]
    return tuple(
        [build(number, held, index, messages[index].error) for number, (held, index) in enumerate(found, 1)]
    )


def attempt_config(settings: OpenClawSettings) -> AttemptConfig:
    """The attempt inputs a profile sets."""
    r = settings.route
    return AttemptConfig(
        context_pruning=settings.context_pruning_json() or None,
        context_tokens=settings.context_tokens,
        context_token_budget=r.context_token_budget,
        auth="oauth" if r.auth == "oauth" else "api_key",
        params=dict(r.params),
        compaction_summary_tokens=DEFAULT_SUMMARY_TOKENS
        if r.compaction_summary_tokens is None
        else r.compaction_summary_tokens,
        apply_provider_compaction=r.model_compaction is not False,
    )


def _route(message: Message, transcript: Transcript, settings: OpenClawSettings) -> tuple[ModelRoute, str]:
    r = settings.route
    raw = message.raw if isinstance(message.raw, dict) else {}
    provider, model, source = message.provider, message.model, "the transcript"
    if not provider:
        provider, model = transcript.provider, model or transcript.model
    if not provider:
        provider, model, source = r.provider, model or r.model_id, "the profile"
    if not provider:
        provider, source = DEFAULT_PROVIDER, "the default"
    same = r.provider is None or r.provider.strip().lower() == provider.strip().lower()
    api = raw.get("api")
    # The recorded api belongs to the recorded provider only.
    recorded_api = api if isinstance(api, str) and source == "the transcript" and message.provider else None
    route = ModelRoute(
        provider=provider,
        model_id=model or (r.model_id if same else None) or "",
        api=recorded_api or (r.api if same else None),
        context_window=settings.model_context_window,
        context_tokens=r.context_tokens,
        max_tokens=r.max_tokens,
        base_url=r.base_url if same else None,
    )
    return route, source


@dataclass(frozen=True, slots=True, eq=False)
class OpenClawNatives:
    """A transcript as every OpenClaw replay reads it, whatever the settings or version: made once."""

    natives: tuple[AgentMessage, ...]
    origins: tuple[tuple[int, ...], ...]
    calls: tuple[ModelCall, ...]
    chars: tuple[int, ...]
    """The pruner's estimate of each native message as stored (``estimate_message_chars``)."""
    prefix: tuple[int, ...]
    """Running sums of ``chars``."""
    guard_chars: tuple[int, ...]
    """The context guard's own estimate of each native message as stored (``guard_message_chars``)."""
    media_and_thinking: tuple[tuple[int, ...], tuple[int, ...]]
    """The natives image cleanup may change, and the assistants with thinking (``media_and_thinking_of``)."""
    strips: tuple[StripFacts | None, ...]
    """Per assistant with thinking: what stripping it changes, when read with its blocks (``None`` where the
    reference functions read it: sized when a replay strips it)."""
    timed: tuple[CallTimes, ...]
    """Per call of ``calls``: when it is made, whether it opens an attempt, when its attempt ended (on an
    attempt's last call) and the route its reply records (:func:`timed_calls`)."""
    clocked: bool
    """Whether any message of the transcript has a time."""
    recorded: tuple[RecordedMarker, ...]
    """The transcript's ``openclaw.cache-ttl`` markers (:func:`recorded_markers`)."""
    kept_2026_9: list[SessionFacts] = field(default_factory=list, repr=False)
    """What OpenClaw 2026.9.6's fast replay works out of these messages alone (:class:`SessionFacts`): the
    first 2026.9.6 replay of the transcript makes it, every later one (a knob change, another profile)
    reads it. Empty until then (2026.7.1 never reads it, so preparing does not make it)."""


def prepare_openclaw(transcript: Transcript) -> OpenClawNatives:
    """``transcript``'s native messages, its model calls, each message's two estimates and each call's
    times, made once."""
    # Each message read and sized once (the reference functions for any shape this does not recognise).
    read, origins, calls = _read_natives(transcript)
    chars = read.estimates
    clocked = any(m.timestamp_ms is not None for m in transcript.messages)
    return OpenClawNatives(
        read.natives,
        origins,
        calls,
        chars,
        tuple(accumulate(chars, initial=0)),
        read.guards,
        (read.media, read.thinking),
        read.strips,
        timed_calls(transcript.messages, calls, clocked),
        clocked,
        recorded_markers(transcript),
    )


_recorded_marker = slot_builder(RecordedMarker)
"""``RecordedMarker(...)`` positionally, and the marker below (one each per turn of a long session: see
:func:`slot_builder`)."""
_cache_ttl_marker = slot_builder(CacheTtlMarker)


def recorded_markers(transcript: Transcript) -> tuple[RecordedMarker, ...]:
    """The ``openclaw.cache-ttl`` markers the transcript records, each with the message it stands before."""
    return tuple(
        [
            _recorded_marker(m.after_message, _cache_ttl_marker(m.timestamp_ms, m.provider, m.model_id))
            for m in transcript.cache_ttl_markers
        ]
    )


RouteKey: TypeAlias = tuple[str | None, str | None, str | None]
"""A reply's recorded provider, model and api: the route it is replayed on is a function of it."""
CallTimes: TypeAlias = tuple[float, bool, float | None, RouteKey]
"""A call's time, whether it opens an attempt, its attempt's end (on the attempt's last call) and its
reply's :data:`RouteKey`."""


def timed_calls(
    messages: Sequence[Message], calls: Sequence[ModelCall], clocked: bool
) -> tuple[CallTimes, ...]:
    """What a replay reads per call from the transcript alone (whatever the settings), in one pass.

    A call's time is its reply's ``timestamp``, else the newest time before it (a day per call when the
    transcript has no times); an attempt opens at the first call and at each call after a real user
    message; it ends when its last reply's entry was written (:func:`_end_of`).
    """
    out: list[CallTimes] = []
    latest: float | None = None
    seen = 0
    user = Role.USER
    # The call before, until this one tells whether it ended its attempt (kept in four names, not a tuple
    # made and taken apart per call).
    p_call: ModelCall | None = None
    p_now: float = 0
    p_starts = False
    p_key: RouteKey = (None, None, None)
    for call in calls:
        index = call.message_index
        starts = call.number == 1
        while seen < index:  # the messages since the last reply: mostly one
            message = messages[seen]
            seen += 1
            stamp = message.timestamp_ms
            if stamp is not None and (latest is None or stamp > latest):  # max(latest, stamp)
                latest = stamp
            if message.role is user and message.tool_result is None:
                starts = True
        seen = index + 1
        reply = messages[index]
        stamp = reply.timestamp_ms
        if not clocked:
            now: float = call.number * DAY_MS
        elif stamp is not None:
            now = stamp
        else:
            now = latest if latest is not None else 0
        if stamp is not None and (latest is None or stamp > latest):
            latest = stamp
        if p_call is not None:
            out.append((p_now, p_starts, _end_of(p_call, p_now, messages) if starts else None, p_key))
        raw = reply.raw
        api = raw.get("api") if isinstance(raw, dict) else None
        p_call, p_now, p_starts = call, now, starts
        p_key = (reply.provider, reply.model, api if isinstance(api, str) else None)
    if p_call is not None:  # the last call ends its attempt
        out.append((p_now, p_starts, _end_of(p_call, p_now, messages), p_key))
    return tuple(out)


def plan_session(
    transcript: Transcript, settings: OpenClawSettings, prepared: OpenClawNatives | None = None
) -> SessionPlan:
    """Everything the replay reads from ``transcript`` once (``prepared``: :func:`prepare_openclaw` of it)."""
    if prepared is None:
        prepared = prepare_openclaw(transcript)
    natives, origins = prepared.natives, prepared.origins
    clocked = prepared.clocked
    planned, sources = _planned(prepared.calls, prepared.timed, transcript, settings)
    warnings: list[str] = []
    if not clocked:
        warnings.append(
            "the transcript has no timestamps: calls are taken a day apart, so every attempt after the first "
            "finds the cache TTL expired"
        )
    if "the default" in sources:
        warnings.append(
            f"the transcript does not record its provider: replayed as {DEFAULT_PROVIDER} "
            "(set model.provider in the profile)"
        )
    return SessionPlan(
        natives, origins, planned, prepared.recorded, attempt_config(settings), tuple(warnings), prepared
    )


def _planned(
    calls: Sequence[ModelCall], timed: Sequence[CallTimes], transcript: Transcript, settings: OpenClawSettings
) -> tuple[tuple[PlannedCall, ...], set[str]]:
    """Each call with its route, and its attempt's end on an attempt's last call; the route sources seen.

    Routes are made once per recorded provider, model and api (a session's replies mostly share them).
    """
    messages = transcript.messages
    routes: dict[RouteKey, tuple[ModelRoute, str]] = {}
    planned: list[PlannedCall] = []
    build = PlannedCall
    for call, (now, starts, end, key) in zip(calls, timed, strict=True):
        found = routes.get(key)
        if found is None:
            found = routes[key] = _route(messages[call.message_index], transcript, settings)
        planned.append(build(call, now, starts, end, found[0], found[1]))
    return tuple(planned), {source for _, source in routes.values()}


def _end_of(call: ModelCall, now: float, messages: Sequence[Message]) -> float:
    reply = messages[call.message_index]
    if reply.written_ms is not None:
        return reply.written_ms
    return reply.timestamp_ms if reply.timestamp_ms is not None else now
