"""Requests for the cache model, built from a replay, from the transcript as recorded, and checked against it.

* :func:`requests_from_result` -- one :class:`~simulator.cost.cache.Request` per ``CallRecord``: the native
  messages in the call's ``sent`` ranges in order, the breadcrumb at ``breadcrumb_at``, and each message a
  rule changed at that call (soft-trimmed, cleared, truncated, image replaced) fingerprinted by its content
  as sent, so the cached prefix ends at the first changed message.
* :func:`as_recorded_requests` -- the ``as-recorded`` baseline: no context management, every message held
  before a call is sent.
* :func:`compare_with_recorded` -- the model's prediction beside the cache usage the transcript recorded
  (Claude Code / Anthropic ``cache_creation_input_tokens`` / ``cache_read_input_tokens``, OpenClaw/pi
  ``usage.cacheRead`` / ``cacheWrite``, Codex ``cached_input_tokens``, OpenAI
  ``prompt_tokens_details.cached_tokens``; the importers keep all of them on ``Message.usage``).

Token counts: one tokenizer for every runtime, o200k_base over each message's text, thinking and tool-call
arguments (``simulator.estimates``), so runtimes compare on one scale; images count 0 and per-message
framing, tool definitions and a system prompt the transcript does not hold are not counted. Output tokens
are the recorded ones where the transcript has them, else the o200k count of the reply.

Time of a call: the timestamp of the last message before the reply (the request's newest input), else the
reply's own; with no timestamp, the previous call's time plus the assumed gap (one knob, ``gap_seconds``,
by default ``simulator.assumed_times.DEFAULT_GAP_SECONDS``, the one OpenClaw's replay reads too).
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from simulator.assumed_times import DEFAULT_GAP_SECONDS
from simulator.cost.breakpoints import (
    BREAKPOINT_POLICIES,
    RUNTIME_POLICY,
    BreakpointPolicy,
    PolicyName,
    policy_for_format,
)
from simulator.cost.cache import (
    CallCost,
    Request,
    Role,
    Segment,
    SegmentHistory,
    SessionCost,
    SharedPrefix,
    extends,
)
from simulator.estimates import message_token_text, tiktoken_count
from simulator.replay.model import CallRecord, SimulationResult
from simulator.runtimes.zeroclaw.texts import BREADCRUMB_TEXT
from simulator.transcript import ImagePart, Message, Transcript
from simulator.transcript import Role as MessageRole

BREADCRUMB_FINGERPRINT = "zeroclaw:breadcrumb"

ChangedContents = Callable[[CallRecord], Mapping[int, tuple[int, str]]]
"""Per call: ``(runtime tokens, text as sent)`` of each native message a rule changed at that call."""


def _digest(*parts: str) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def message_fingerprint(message: Message) -> str:
    """A digest of what a message sends: role, text, thinking, tool calls, tool-result id and images."""
    return _fingerprint(message, message_token_text(message))


def _fingerprint(message: Message, token_text: str) -> str:
    images = "".join(f"{p.source}:{p.media_type}:{p.data}" for p in message.parts if isinstance(p, ImagePart))
    result = message.tool_result.call_id if message.tool_result is not None else ""
    return _digest(message.role.value, token_text, images, result)


_ROLES: Mapping[MessageRole, Role] = {
    MessageRole.SYSTEM: "system",
    MessageRole.USER: "user",
    MessageRole.ASSISTANT: "assistant",
    MessageRole.TOOL: "tool",
}


def _role(message: Message) -> Role:
    return _ROLES[message.role]


def _cacheable_end(message: Message) -> bool:
    # An assistant message that ends in tool calls ends in a tool_use block, which takes no cache_control.
    return not (message.role is MessageRole.ASSISTANT and message.tool_calls)


@dataclass(frozen=True, slots=True)
class TranscriptTokens:
    """Per transcript message: its fingerprint and o200k tokens (computed once per transcript)."""

    fingerprints: tuple[str, ...]
    tokens: tuple[int, ...]

    @classmethod
    def of(cls, transcript: Transcript, *, counted: dict[str, int] | None = None) -> TranscriptTokens:
        """Fingerprint and count every message; each distinct text is counted once.

        Args:
            transcript: The transcript.
            counted: o200k counts by text, read and extended here; pass one dict for every transcript
                of a corpus so that a text repeated across sessions (a file read in each, a standard
                prompt) is counted once. A fresh one per call when omitted.
        """
        memo: dict[str, int] = {} if counted is None else counted
        fingerprints: list[str] = []
        tokens: list[int] = []
        for message in transcript.messages:
            text = message_token_text(message)
            count = memo.get(text)
            if count is None:
                count = memo[text] = tiktoken_count(text)
            tokens.append(count)
            fingerprints.append(_fingerprint(message, text))
        return cls(fingerprints=tuple(fingerprints), tokens=tuple(tokens))


def _output_tokens(message: Message, counted: int) -> int:
    if message.usage is not None and message.usage.output_tokens is not None:
        return message.usage.output_tokens
    return counted


def call_times(transcript: Transcript, reply_indices: Sequence[int], gap_seconds: float) -> tuple[float, ...]:
    """Seconds since the first call for each call, from timestamps, filled with ``gap_seconds``."""
    messages = transcript.messages
    stamps: list[int | None] = []
    for index in reply_indices:
        before = messages[index - 1].timestamp_ms if index > 0 else None
        stamps.append(before if before is not None else messages[index].timestamp_ms)
    origin = next((s for s in stamps if s is not None), None)
    out: list[float] = []
    for stamp in stamps:
        if stamp is not None and origin is not None:
            at = (stamp - origin) / 1000
            # Never earlier than the call before: clocks in transcripts can step back.
            out.append(max(at, out[-1]) if out else at)
        else:
            out.append(out[-1] + gap_seconds if out else 0.0)
    return tuple(out)


def _policy(runtime: str, policy: PolicyName | None) -> BreakpointPolicy:
    name = policy if policy is not None else RUNTIME_POLICY.get(runtime, "automatic")
    return BREAKPOINT_POLICIES[name]


def as_recorded_requests(
    transcript: Transcript,
    *,
    policy: PolicyName | None = None,
    gap_seconds: float = DEFAULT_GAP_SECONDS,
    tokens: TranscriptTokens | None = None,
) -> tuple[Request, ...]:
    """The ``as-recorded`` baseline: every assistant message is a call whose request is everything before it.

    Args:
        transcript: The imported session.
        policy: Where Anthropic breakpoints go; by default the policy of the runtime that wrote the
            transcript's format (``policy_for_format``).
        gap_seconds: Assumed gap between calls without timestamps.
        tokens: Precomputed per-message tokens (computed here when omitted).
    """
    tokens = tokens or TranscriptTokens.of(transcript)
    messages = transcript.messages
    replies = [i for i, m in enumerate(messages) if m.role is MessageRole.ASSISTANT]
    times = call_times(transcript, replies, gap_seconds)
    place = BREAKPOINT_POLICIES[policy if policy is not None else policy_for_format(transcript.format)]
    # Every request is a prefix of the transcript: one shared history, not a tuple per call.
    history = SegmentHistory(
        Segment(tokens.fingerprints[i], tokens.tokens[i], _role(m), _cacheable_end(m))
        for i, m in enumerate(messages)
    )
    out: list[Request] = []
    for reply, at in zip(replies, times, strict=True):
        sent = history.prefix(reply)
        out.append(
            Request(
                segments=sent,
                at_seconds=at,
                output_tokens=_output_tokens(messages[reply], tokens.tokens[reply]),
                breakpoints=place(sent) if sent else (),
            )
        )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Shape:
    """What a call sends when no rule changed a message in it: native spans and the breadcrumb's place."""

    spans: tuple[tuple[int, int], ...]
    breadcrumb_at: int | None


def _growth(before: _Shape | None, after: _Shape | None) -> list[tuple[int, int]] | None:
    """The native spans ``after`` sends beyond ``before`` when ``before``'s request is a prefix of
    ``after``'s (same spans, the last one possibly longer, then more; the breadcrumb in the same place
    within what ``before`` sends), else ``None``."""
    if before is None or after is None or before.breadcrumb_at != after.breadcrumb_at:
        return None
    old, new = before.spans, after.spans
    if not old or len(new) < len(old) or new[: len(old) - 1] != old[:-1]:
        return None
    (start, end), (new_start, new_end) = old[-1], new[len(old) - 1]
    if new_start != start or new_end < end:
        return None
    crumb = before.breadcrumb_at
    if crumb is not None and crumb > sum(b - a for a, b in old):
        return None  # the breadcrumb closed the request before: more after it is not an extension
    return [(end, new_end), *new[len(old) :]]


def _native_segments(
    messages: Sequence[Message], origins: Sequence[Sequence[int]], tokens: TranscriptTokens
) -> tuple[list[Segment], set[int]]:
    """One segment per native message, and the transcript messages the natives hold.

    A native made of one transcript message is fingerprinted as that message: the cache model only
    compares fingerprints, and a digest of one digest tells no more (most natives are one message, and
    the digest was a third of building a session's requests).
    """
    fingerprints, counts = tokens.fingerprints, tokens.tokens
    native: list[Segment] = []
    held: set[int] = set()
    for origin in origins:
        if len(origin) == 1:
            index = origin[0]
            held.add(index)
            message = messages[index]
            role = message.role
            native.append(
                Segment(
                    fingerprints[index],
                    counts[index],
                    _ROLES[role],
                    not (role is MessageRole.ASSISTANT and message.tool_calls),  # ``_cacheable_end``
                )
            )
            continue
        held.update(origin)
        if not origin:
            native.append(Segment(_digest("empty"), 0))
            continue
        native.append(
            Segment(
                fingerprint=_digest(*(fingerprints[i] for i in origin)),
                tokens=sum(counts[i] for i in origin),
                role=_role(messages[origin[0]]),
                cacheable_end=_cacheable_end(messages[origin[-1]]),
            )
        )
    return native, held


def requests_from_result(
    transcript: Transcript,
    result: SimulationResult,
    *,
    changed: ChangedContents | None = None,
    policy: PolicyName | None = None,
    gap_seconds: float = DEFAULT_GAP_SECONDS,
    tokens: TranscriptTokens | None = None,
) -> tuple[Request, ...]:
    """One request per replayed call, as the runtime sent it.

    Args:
        transcript: The transcript the replay ran on.
        result: The replay.
        changed: The content each rule left, per call (``simulator.replay.changed_contents`` bound to the
            profile); without it a changed message still ends the cached prefix but keeps its size.
        policy: Breakpoint policy; by default the one the replay's runtime uses.
        gap_seconds: Assumed gap between calls without timestamps.
        tokens: Precomputed per-message tokens.
    """
    tokens = tokens or TranscriptTokens.of(transcript)
    messages = transcript.messages
    place = _policy(result.runtime, policy)
    native, held = _native_segments(messages, result.origins, tokens)
    # System messages the runtime sends outside its history (ai-profile, OpenClaw) lead every request.
    leading = tuple(
        Segment(tokens.fingerprints[i], tokens.tokens[i], "system")
        for i, m in enumerate(messages)
        if m.role is MessageRole.SYSTEM and i not in held
    )
    crumb = Segment(BREADCRUMB_FINGERPRINT, tiktoken_count(BREADCRUMB_TEXT), "user")
    times = call_times(transcript, [c.message_index for c in result.calls], gap_seconds)
    out: list[Request] = []
    as_sent: dict[tuple[str, Role], Segment] = {}
    fated_as_sent: dict[tuple[str, int], Segment] = {}
    previous: SharedPrefix | None = None
    previous_shape: _Shape | None = None
    for call, at in zip(result.calls, times, strict=True):
        reply = messages[call.message_index]
        output = _output_tokens(reply, tokens.tokens[call.message_index])
        fated = {i: group.fate.value for group in call.fated for i in group.indices} if call.fated else {}
        edited: Mapping[int, tuple[int, str]] = {}
        if changed is not None and (fated or result.content_changes):
            edited = changed(call)
        shape = _Shape(call.sent, call.breadcrumb_at) if not edited and not fated else None
        growth = _growth(previous_shape, shape)
        previous_shape = shape
        if growth is not None and previous is not None:
            # The request is the one before plus messages after it (spans compared, not messages): it
            # extends the shared history by what is new, without building the request again.
            for start, end in growth:
                previous.history.extend(native[start:end])
            frozen = previous = previous.history.prefix(len(previous.history))
            out.append(Request(frozen, at, output, place(frozen) if frozen else ()))
            continue
        sent: list[Segment] = list(leading)
        if shape is not None:
            # Nothing changed as sent: the native segments span by span (slices, not a loop per message).
            for start, end in call.sent:
                sent += native[start:end]
        else:
            # Unchanged runs between the changed messages as slices; only a changed one is built.
            marks = sorted(edited.keys() | fated.keys())
            for start, end in call.sent:
                position = start
                for index in marks[bisect_left(marks, start) : bisect_left(marks, end)]:
                    sent += native[position:index]
                    segment = native[index]
                    if index in edited:
                        # A pruned message is usually sent the same way at many calls: count, digest and
                        # build it once (the same object then compares by identity).
                        key = (edited[index][1], segment.role)
                        rebuilt = as_sent.get(key)
                        if rebuilt is None:
                            text = key[0]
                            rebuilt = as_sent[key] = Segment(
                                _digest("as-sent", text), tiktoken_count(text), segment.role
                            )
                    else:
                        # Changed in a way the caller did not spell out: still a different message as sent.
                        fate = (fated[index], index)
                        rebuilt = fated_as_sent.get(fate)
                        if rebuilt is None:
                            fingerprint = _digest("fate", fate[0], segment.fingerprint)
                            rebuilt = fated_as_sent[fate] = Segment(fingerprint, segment.tokens, segment.role)
                    segment = rebuilt
                    sent.append(segment)
                    position = index + 1
                sent += native[position:end]
        if call.breadcrumb_at is not None:
            sent.insert(len(leading) + call.breadcrumb_at, crumb)
        # A request that extends the one before shares its history instead of copying it.
        frozen = previous = extends(previous, sent)
        out.append(
            Request(
                segments=frozen,
                at_seconds=at,
                output_tokens=output,
                breakpoints=place(frozen) if frozen else (),
            )
        )
    return tuple(out)


# -- recorded usage ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecordedUsage:
    """What the provider reported for one call (``input_tokens`` = uncached input)."""

    input_tokens: int | None
    cache_write_tokens: int | None
    cache_read_tokens: int | None
    output_tokens: int | None


@dataclass(frozen=True, slots=True)
class ComparedCall:
    number: int
    message_index: int
    predicted: CallCost
    recorded: RecordedUsage | None


@dataclass(frozen=True, slots=True)
class FieldError:
    """Predicted against recorded over the calls that recorded the field."""

    predicted: int
    recorded: int
    calls: int

    @property
    def relative(self) -> float | None:
        """(predicted - recorded) / recorded, or ``None`` when nothing was recorded."""
        if self.recorded == 0:
            return None
        return (self.predicted - self.recorded) / self.recorded


@dataclass(frozen=True, slots=True)
class UsageComparison:
    calls: tuple[ComparedCall, ...]
    input: FieldError
    cache_write: FieldError
    cache_read: FieldError
    output: FieldError

    @property
    def recorded_calls(self) -> int:
        return sum(1 for c in self.calls if c.recorded is not None)


def _field(pairs: Sequence[tuple[int, int | None]]) -> FieldError:
    predicted = recorded = calls = 0
    for p, r in pairs:
        if r is None:
            continue
        predicted += p
        recorded += r
        calls += 1
    return FieldError(predicted=predicted, recorded=recorded, calls=calls)


def compare_with_recorded(transcript: Transcript, baseline: SessionCost) -> UsageComparison:
    """The ``as-recorded`` prediction beside the usage each reply recorded, and the error over the session.

    Args:
        transcript: The transcript whose assistant messages carry ``usage``.
        baseline: :func:`as_recorded_requests` priced with :func:`~simulator.cost.cache.price_requests`.
    """
    replies = [i for i, m in enumerate(transcript.messages) if m.role is MessageRole.ASSISTANT]
    calls: list[ComparedCall] = []
    for number, (index, predicted) in enumerate(zip(replies, baseline.calls, strict=True), start=1):
        usage = transcript.messages[index].usage
        recorded = (
            None
            if usage is None
            else RecordedUsage(
                input_tokens=usage.input_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                output_tokens=usage.output_tokens,
            )
        )
        calls.append(ComparedCall(number, index, predicted, recorded))

    def pairs(pick: Callable[[CallCost, RecordedUsage], tuple[int, int | None]]) -> FieldError:
        return _field([pick(c.predicted, c.recorded) for c in calls if c.recorded is not None])

    return UsageComparison(
        calls=tuple(calls),
        input=pairs(lambda p, r: (p.input_tokens, r.input_tokens)),
        cache_write=pairs(lambda p, r: (p.cache_write_tokens, r.cache_write_tokens)),
        cache_read=pairs(lambda p, r: (p.cache_read_tokens, r.cache_read_tokens)),
        output=pairs(lambda p, r: (p.output_tokens, r.output_tokens)),
    )


__all__ = [
    "BREADCRUMB_FINGERPRINT",
    "DEFAULT_GAP_SECONDS",
    "ChangedContents",
    "ComparedCall",
    "FieldError",
    "RecordedUsage",
    "TranscriptTokens",
    "UsageComparison",
    "as_recorded_requests",
    "call_times",
    "compare_with_recorded",
    "message_fingerprint",
    "requests_from_result",
]
