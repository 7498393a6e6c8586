"""Requests for the cache model, built from a replay, from the transcript as recorded, and checked against it.

* :func:`requests_from_result` -- one :class:`~simulator.cost.cache.Request` per ``CallRecord``: the native
  messages in the call's ``sent`` ranges in order, the breadcrumb at ``breadcrumb_at``, and each message a
  rule changed at that call (soft-trimmed, cleared, truncated, image replaced) fingerprinted by its content
  as sent, so the cached prefix ends at the first changed message. A call whose changes are told as runs
  (:class:`~simulator.replay.sent_runs.SentRuns`: OpenClaw's hard-cleared results) is built from slices of
  its runs' segments as sent, kept from call to call, and a call sent as stored after a pruned one grows the
  history of the last call sent as stored, so pricing a long pruned session costs its growth per call.
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
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from operator import itemgetter

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
from simulator.cost.rope import Piece, SegmentRope, spliced, spliced_each
from simulator.estimates import message_token_text, tiktoken_count, tiktoken_counts
from simulator.replay.model import CallRecord, IndexSlice, SimulationResult
from simulator.replay.sent_runs import SentLayer, SentRun, SentRuns
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
    def of(
        cls, transcript: Transcript, *, counted: dict[str, int] | None = None, threads: int = 1
    ) -> TranscriptTokens:
        """Fingerprint and count every message; each distinct text is counted once.

        Args:
            transcript: The transcript.
            counted: o200k counts by text, read and extended here; pass one dict for every transcript
                of a corpus so that a text repeated across sessions (a file read in each, a standard
                prompt) is counted once. A fresh one per call when omitted.
            threads: Count in up to this many threads at once (:func:`tiktoken_counts`); 1 where
                processes share the cores already (the corpus workers run one per core).
        """
        memo: dict[str, int] = {} if counted is None else counted
        texts = [message_token_text(message) for message in transcript.messages]
        new = list(dict.fromkeys(text for text in texts if text not in memo))
        memo.update(zip(new, tiktoken_counts(new, threads=threads), strict=True))
        fingerprints = [_fingerprint(m, text) for m, text in zip(transcript.messages, texts, strict=True)]
        return cls(fingerprints=tuple(fingerprints), tokens=tuple([memo[text] for text in texts]))


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


class _AsSent:
    """The segments of messages sent changed, each built once, and calls built from them.

    A pruned message is usually sent the same way at many calls: count, digest and build it once (the same
    object then compares by identity). A run of changed messages (:class:`SentRun`, or a fate over a window
    of a growing index list) is kept as a copy of the native segments with every index of the run's list so
    far as sent: a call sends slices of it, not a message at a time.
    """

    __slots__ = ("_as_sent", "_fated", "_kept", "_layers", "native")

    def __init__(self, native: list[Segment]) -> None:
        self.native = native
        self._as_sent: dict[tuple[str, Role], Segment] = {}
        self._fated: dict[tuple[str, int], Segment] = {}
        self._kept: dict[tuple[Hashable, int, int], _Kept] = {}
        self._layers: dict[tuple[tuple[Hashable, int], ...], _Layered] = {}

    def edited(self, text: str, index: int) -> Segment:
        role = self.native[index].role
        found = self._as_sent.get((text, role))
        if found is None:
            found = self._as_sent[(text, role)] = Segment(
                _digest("as-sent", text), tiktoken_count(text), role
            )
        return found

    def fated(self, fate: str, index: int) -> Segment:
        # Changed in a way the caller did not spell out: still a different message as sent.
        found = self._fated.get((fate, index))
        if found is None:
            segment = self.native[index]
            fingerprint = _digest("fate", fate, segment.fingerprint)
            found = self._fated[(fate, index)] = Segment(fingerprint, segment.tokens, segment.role)
        return found

    def marked(
        self,
        call: CallRecord,
        edited: Mapping[int, tuple[int, str]],
        fated: Mapping[int, str],
        leading: Sequence[Segment],
    ) -> list[Segment]:
        """The call's segments: unchanged runs between the changed messages as slices; only a changed one
        is built."""
        native = self.native
        sent: list[Segment] = list(leading)
        marks = sorted(edited.keys() | fated.keys())
        for start, end in call.sent:
            position = start
            for index in marks[bisect_left(marks, start) : bisect_left(marks, end)]:
                sent += native[position:index]
                if index in edited:
                    sent.append(self.edited(edited[index][1], index))
                else:
                    sent.append(self.fated(fated[index], index))
                position = index + 1
            sent += native[position:end]
        return sent

    def by_runs(
        self, call: CallRecord, edited: Mapping[int, tuple[int, str]], leading: Sequence[Segment]
    ) -> SegmentRope | None:
        """What :meth:`marked` gives, as slices of the natives and of the kept runs (a rope: nothing is
        copied); ``None`` when the changes are not runs that this can place without doubt (the caller then
        builds the call message by message)."""
        layers = edited.layers if isinstance(edited, SentRuns) else ()
        base = self._layered(layers) if layers else None
        if layers and base is None:
            return None
        plan = self._plan(call, edited, base)
        if plan is None:
            return None
        runs, singles = plan
        native = self.native
        # Between the runs: the layered copy below its frontier (where it is final), the natives above it.
        under, frontier = base if base is not None else (native, 0)
        pieces: list[Piece] = [(leading, 0, len(leading))]
        offsets: list[tuple[int, int, int]] = []
        length = len(leading)
        for start, end in call.sent:
            offsets.append((start, end, length))
            length += end - start
            position = start
            for first, last, kept in runs:
                lo, hi = max(first, position), min(last + 1, end)
                if lo < hi:
                    # Every index of the run up to ``last`` is as sent and stays so: the slice is fixed.
                    pieces += _between(under, frontier, native, position, lo)
                    pieces.append((kept, lo, hi))
                    position = hi
            pieces += _between(under, frontier, native, position, end)
        tail = (
            _layer_tail(edited, frontier, under) if base is not None and isinstance(edited, SentRuns) else {}
        )
        replacements: list[tuple[int, Segment]] = []
        for index in singles.keys() | tail.keys():
            for start, end, offset in offsets:
                if start <= index < end:
                    segment = tail.get(index)
                    if segment is None:  # a single (a layer's newest messages win over a fate only)
                        fate, text = singles[index]
                        segment = self.edited(text, index) if fate is None else self.fated(fate, index)
                    replacements.append((offset + index - start, segment))
                    break
        replacements.sort(key=_FIRST)
        if any(a[0] == b[0] for a, b in zip(replacements, replacements[1:], strict=False)):
            # Two singles at one place (ranges sent twice): the caller builds it message by message.
            return None
        return SegmentRope(spliced_each(pieces, replacements))

    def _plan(
        self, call: CallRecord, edited: Mapping[int, tuple[int, str]], base: _Base | None = None
    ) -> _Plan | None:
        """The call's runs (first and last native index, the kept segments), ascending and apart, and its
        single changes (a fate, or ``None`` and the text as sent); ``None`` when that shape does not hold.
        With ``base`` (the layers' copy and its frontier) the runs are kept over it, not over the natives."""
        if not edited and not (isinstance(edited, SentRuns) and edited.runs):
            few = _few_fates(call)
            if few is not None:
                return [], few
        return self._planned(call, edited, base)

    def _planned(
        self, call: CallRecord, edited: Mapping[int, tuple[int, str]], base: _Base | None = None
    ) -> _Plan | None:
        """:meth:`_plan` for any call (the reference its shortcut is tested against)."""
        edited_runs = edited.runs if isinstance(edited, SentRuns) else ()
        layers = edited.layers if isinstance(edited, SentRuns) else ()
        edited_singles = edited.singles if isinstance(edited, SentRuns) else edited
        runs: list[tuple[int, int, list[Segment]]] = []
        for run in edited_runs:
            kept = self._kept_run(("as-sent", run.key), run.indices, partial(self._run_edited, run), base)
            if kept is None:
                return None
            if run.indices:
                runs.append((run.indices[0], run.indices[-1], kept))
        fate_runs: list[tuple[int, int]] = []
        fate_singles: dict[int, str] = {}
        for group in call.fated:
            indices, fate = group.indices, group.fate.value
            if not indices or _covered(indices, edited_runs, edited_singles) or _layered_by(indices, layers):
                continue
            if layers and len(indices) > _FEW_MARKS:
                return None  # a fate over a layer's messages: the layer's text wins, not a slice away
            if isinstance(indices, IndexSlice) and len(indices) > _FEW_MARKS:
                kept = self._kept_run(("fate", fate), indices, partial(self.fated, fate))
                if kept is None:
                    return None
                runs.append((indices[0], indices[-1], kept))
                fate_runs.append((indices[0], indices[-1]))
            else:
                fate_singles.update(dict.fromkeys(indices, fate))
        runs.sort(key=_FIRST)
        if any(b[0] <= a[1] for a, b in zip(runs, runs[1:], strict=False)):
            return None  # runs that overlap: which one a message is sent as is not a slice away
        singles: dict[int, tuple[str | None, str]] = {}
        for index, fate in fate_singles.items():
            if (
                index in edited_singles
                or any(index in run.indices for run in edited_runs)
                or _in_layer(index, layers)
            ):
                continue  # what the caller spelled out wins over a fate
            if any(first <= index <= last for first, last in fate_runs):
                return None  # two fates for one message: the later group's wins, not the later layer's
            singles[index] = (fate, "")
        for index, (_, text) in edited_singles.items():
            singles[index] = (None, text)
        return runs, singles

    def _run_edited(self, run: SentRun, index: int) -> Segment:
        return self.edited(run.content(index)[1], index)

    def _kept_run(
        self,
        key: Hashable,
        indices: IndexSlice,
        segment_of: Callable[[int], Segment],
        base: _Base | None = None,
    ) -> list[Segment] | None:
        """The native segments with each index of ``indices``' list up to its window's end as sent.

        Between the window's first and last index exactly the window is as sent (the list ascends), so a
        slice there is the call's. ``None`` when the list does not ascend within the natives.
        """
        source = indices.source
        under, frontier = base if base is not None else (self.native, len(self.native))
        entry = self._kept.get((key, id(source), id(under)))
        if entry is None or entry.source is not source or entry.base is not under:
            # The entry holds both lists, so their ids are not reused while kept.
            entry = _Kept(source, list(self.native), under)
            self._kept[(key, id(source), id(under))] = entry
        segments, stop = entry.segments, indices.stop
        if stop > len(source):
            return None
        while entry.filled < stop:
            index = source[entry.filled]
            if index >= len(segments) or (entry.filled and index <= source[entry.filled - 1]):
                return None
            if base is not None:
                if index >= frontier:
                    return None  # the layers may still change what lies before it
                # What lies between the run's messages is the layers' (final below their frontier).
                segments[entry.copied : index] = under[entry.copied : index]
                entry.copied = index + 1
            segments[index] = segment_of(index)
            entry.filled += 1
        return segments

    def _layered(self, layers: Sequence[SentLayer]) -> _Base | None:
        """The natives with every layer's window as sent, one list kept for every call of the same layers,
        and its frontier: the lowest index a layer may still change, below which the list is this call's
        and every later one's. ``None`` when a window is not a prefix of an ascending list of the natives."""
        key = tuple((layer.key, id(layer.indices.source)) for layer in layers)
        sources = tuple(layer.indices.source for layer in layers)
        entry = self._layers.get(key)
        frontier = None
        if entry is not None and all(a is b for a, b in zip(entry.sources, sources, strict=True)):
            frontier = self._fill(entry, layers)
        if frontier is None:
            # New layers, or a change below what calls before were handed: a copy of its own from here on
            # (the pieces handed out keep the old one).
            entry = _Layered(sources, list(self.native), [0] * len(layers))
            frontier = self._fill(entry, layers)
            if frontier is None:
                return None
            self._layers[key] = entry
        assert entry is not None
        entry.handed = max(entry.handed, frontier)
        return entry.segments, frontier

    def _fill(self, entry: _Layered, layers: Sequence[SentLayer]) -> int | None:
        """Every layer's new indices written as sent; the frontier, or ``None`` when a write would fall
        below what was handed out or a window is not a growing prefix."""
        segments = entry.segments
        frontier = len(segments)
        for k, layer in enumerate(layers):
            window = layer.indices
            source, stop = window.source, window.stop
            if window.start != 0 or stop < entry.filled[k] or stop > len(source):
                return None
            for j in range(entry.filled[k], stop):
                index = source[j]
                if index < entry.handed or index >= len(segments) or (j and index <= source[j - 1]):
                    return None
                if any(index in earlier.indices for earlier in layers[:k]):
                    continue  # an earlier layer tells it (and wins, as in ``SentRuns``)
                segments[index] = self.edited(layer.content(index)[1], index)
            entry.filled[k] = stop
            # The next index this list can change: its next item, else (a list still growing) past its last.
            following = source[stop] if stop < len(source) else (source[-1] + 1 if source else 0)
            frontier = min(frontier, following)
        return frontier


_Plan = tuple[list[tuple[int, int, list[Segment]]], dict[int, tuple[str | None, str]]]
_FEW_MARKS = 8
"""Up to this many, a fate's messages are placed one by one rather than kept as a run."""
_FIRST = itemgetter(0)


_Base = tuple[list[Segment], int]
"""The layers' copy of the natives and its frontier (:meth:`_AsSent._layered`)."""


@dataclass(slots=True)
class _Kept:
    source: Sequence[int]
    segments: list[Segment]
    base: Sequence[Segment]
    """What lies between the run's messages: the natives, or the layers' copy."""
    filled: int = 0
    """How many of ``source``'s indices are as sent in ``segments``."""
    copied: int = 0
    """Up to where ``segments`` holds the layers' copy (with a layers' base)."""


@dataclass(slots=True)
class _Layered:
    """The natives with every layer's window so far as sent: one list shared by the calls' pieces."""

    sources: tuple[Sequence[int], ...]
    segments: list[Segment]
    filled: list[int]
    """Per layer, how many of its list's indices are as sent in ``segments``."""
    handed: int = 0
    """Positions below this are in pieces handed out, so never written again."""


def _layered_by(indices: Sequence[int], layers: Sequence[SentLayer]) -> bool:
    """Whether ``indices`` are a layer's window (the record's fate of the messages a layer tells)."""
    source = getattr(indices, "source", None)
    if source is None:
        return False
    start, stop = getattr(indices, "start", None), getattr(indices, "stop", None)
    return any(
        layer.indices.source is source and (layer.indices.start, layer.indices.stop) == (start, stop)
        for layer in layers
    )


def _between(under: list[Segment], frontier: int, native: list[Segment], lo: int, hi: int) -> list[Piece]:
    """``natives[lo:hi]`` as sent between runs: the layers' copy below its frontier, the natives above it."""
    if lo >= hi:
        return []
    if frontier <= lo:
        return [(native, lo, hi)]
    if frontier >= hi:
        return [(under, lo, hi)]
    return [(under, lo, frontier), (native, frontier, hi)]


def _in_layer(index: int, layers: Sequence[SentLayer]) -> bool:
    return any(index in layer.indices for layer in layers)


def _layer_tail(edited: SentRuns, frontier: int, under: list[Segment]) -> dict[int, Segment]:
    """The layers' messages at or past the frontier (a few: the newest), each as sent, but where a single
    or a run tells the message (they win over a layer)."""
    out: dict[int, Segment] = {}
    for layer in edited.layers:
        window = layer.indices
        source = window.source
        for j in range(bisect_left(source, frontier, 0, window.stop), window.stop):
            index = source[j]
            if index in edited.singles or any(index in run.indices for run in edited.runs):
                continue
            out.setdefault(index, under[index])
    return out


def _covered(indices: Sequence[int], runs: Sequence[SentRun], singles: Mapping[int, tuple[int, str]]) -> bool:
    """Whether every index is one the caller spelled out (so a fate for it changes nothing)."""
    for run in runs:
        window = run.indices
        if len(window) != len(indices):
            continue
        if isinstance(indices, IndexSlice) and window.source is indices.source:
            if (window.start, window.stop) == (indices.start, indices.stop):
                return True
        elif tuple(window) == tuple(indices):
            # The replay's record and the call recomputed on demand keep lists of their own: compared in C.
            return True
    return len(indices) <= len(singles) and all(i in singles for i in indices)


def _few_fates(call: CallRecord) -> dict[int, tuple[str | None, str]] | None:
    """:meth:`_AsSent._plan`'s singles for a call that changed no content and whose fates are each a few
    messages (ai-profile re-adds its first message at every call), else ``None``: the later group's fate
    wins, as there."""
    singles: dict[int, tuple[str | None, str]] = {}
    for group in call.fated:
        indices = group.indices
        if isinstance(indices, IndexSlice) and len(indices) > _FEW_MARKS:
            return None
        if indices:
            singles.update(dict.fromkeys(indices, (group.fate.value, "")))
    return singles


def _has_fated(call: CallRecord) -> bool:
    return any(len(group.indices) for group in call.fated)


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
            profile); without it a changed message still ends the cached prefix but keeps its size. A
            :class:`~simulator.replay.sent_runs.SentRuns` answer is built from slices of its runs.
        policy: Breakpoint policy; by default the one the replay's runtime uses.
        gap_seconds: Assumed gap between calls without timestamps.
        tokens: Precomputed per-message tokens.
    """
    tokens = tokens or TranscriptTokens.of(transcript)
    messages = transcript.messages
    place = _policy(result.runtime, policy)
    native, held = _native_segments(messages, result.origins, tokens)
    # System messages the runtime sends outside its history (ai-profile, OpenClaw) lead every request.
    # Lists made once: a rope holds a list piece as it is (a tuple's is copied), so the ropes of two
    # calls share these pieces and the cache model passes them by identity.
    leading = [
        Segment(tokens.fingerprints[i], tokens.tokens[i], "system")
        for i, m in enumerate(messages)
        if m.role is MessageRole.SYSTEM and i not in held
    ]
    crumb = Segment(BREADCRUMB_FINGERPRINT, tiktoken_count(BREADCRUMB_TEXT), "user")
    crumbs = [crumb]
    times = call_times(transcript, [c.message_index for c in result.calls], gap_seconds)
    out: list[Request] = []
    built = _AsSent(native)
    previous: SharedPrefix | None = None
    previous_shape: _Shape | None = None
    plain_shape: _Shape | None = None
    plain: SharedPrefix | None = None
    """The last request sent as stored, and its shape."""
    for call, at in zip(result.calls, times, strict=True):
        reply = messages[call.message_index]
        output = _output_tokens(reply, tokens.tokens[call.message_index])
        fated = bool(call.fated) and _has_fated(call)
        edited: Mapping[int, tuple[int, str]] = {}
        if changed is not None and (fated or result.content_changes):
            edited = changed(call)
        shape = _Shape(call.sent, call.breadcrumb_at) if not edited and not fated else None
        growth = _growth(previous_shape, shape)
        base = previous
        if (
            growth is None
            and plain is not previous
            and plain is not None
            and plain.length == len(plain.history)
        ):
            # A call sent as stored after a pruned one grows the last call sent as stored.
            growth, base = _growth(plain_shape, shape), plain
        previous_shape = shape
        if growth is not None and base is not None:
            # The request is the one before plus messages after it (spans compared, not messages): it
            # extends the shared history by what is new, without building the request again.
            for start, end in growth:
                base.history.extend(native[start:end])
            frozen = previous = base.history.prefix(len(base.history))
            plain_shape, plain = shape, frozen
            out.append(Request(frozen, at, output, place(frozen) if frozen else ()))
            continue
        roped = built.by_runs(call, edited, leading) if shape is None else None
        if roped is not None:
            # A call with runs changed: told as slices of the natives and the runs as sent, so a long
            # session pruned at every pause holds its pieces, not the square of its length.
            if call.breadcrumb_at is not None:
                roped = SegmentRope(spliced(roped.pieces, len(leading) + call.breadcrumb_at, crumbs, 0))
            previous = None
            out.append(Request(roped, at, output, place(roped) if roped else ()))
            continue
        sent: list[Segment] = list(leading)
        if shape is not None:
            # Nothing changed as sent: the native segments span by span (slices, not a loop per message).
            for start, end in call.sent:
                sent += native[start:end]
        else:
            marks = {i: group.fate.value for group in call.fated for i in group.indices}
            sent = built.marked(call, edited, marks, leading)
        if call.breadcrumb_at is not None:
            sent.insert(len(leading) + call.breadcrumb_at, crumb)
        # A request that extends the one before shares its history instead of copying it.
        frozen = previous = extends(previous, sent)
        if shape is not None:
            plain_shape, plain = shape, frozen
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
