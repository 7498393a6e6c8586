"""Cache-TTL pruning in OpenClaw 2026.9.6: sticky projections of old tool results.

Upstream, openclaw@2026.9.6 ``src/agents/embedded-agent-runner/tool-result-truncation.ts``
(``resolveCacheTtlPruningSettings``, ``pruneExpiredCacheTtlToolResults``, ``softPruneCacheTtlToolResult``,
``cacheTtlMessageChars``, ``projectToolResultBranch``) and ``session-prompt-state.ts``. Against 2026.7.1:

* It is a ``transformContext`` wrapper installed by ``installEmbeddedAttemptContextGuards``, not an extension,
  and its window is the attempt's context budget (the guard's), not ``resolveContextWindowInfo``.
* Only ``mode``, ``ttl``, ``tools.allow/deny`` and ``hardClear.enabled/placeholder`` are read; the ratios
  (0.3 / 0.5), ``keepLastAssistants`` (3), ``minPrunableToolChars`` (50,000) and the soft-trim sizes
  (4,000 / 1,500 / 1,500) are fixed (the config keys are retired: ``openclaw doctor`` strips them).
* A projection, once made, is kept: every later call (TTL expired or not, later attempts too) sends the
  soft-trimmed or cleared tool result again, so the provider's prompt cache stays valid. A hard-cleared
  result is no longer a candidate; a soft-trimmed one stays a candidate for hard clear.
* New rounds are not pruned locally when Anthropic server-side tool clearing is on (``pruneNewRounds``).
* Soft trim slices are surrogate-safe; sizes use the 2026.9.6 CJK weights.

State is immutable here: :class:`ProjectionState` maps a tool result's key (``tool:<toolCallId>:<timestamp>``)
to its projection and the texts it was made from (a changed source is not projected).

Deliberate divergences: duplicate keys (the same toolCallId and timestamp twice), which upstream resolves
with content-hash fallback keys, are not modelled (the first projection wins); restoring projections from a
marker snapshot in a new process is modelled as the in-memory state continuing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final, Literal

import msgspec

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.duration import DurationError, parse_duration_ms
from simulator.runtimes.openclaw.estimate import drop_thinking_blocks
from simulator.runtimes.openclaw.jsstr import js_json_stringify, js_len, js_number_to_string, js_trim
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ContentBlock,
    TextContent,
    ToolResultMessage,
    UserMessage,
    block_json,
    text_block,
)
from simulator.runtimes.openclaw.tools import ToolPrunablePredicate, make_tool_prunable_predicate
from simulator.runtimes.openclaw.v2026_9_6.budget_chars import estimate_budget_chars, slice_utf16_safe

IMAGE_CHARS: Final = 8_000
IMAGE_MARKER: Final = "[image removed during context pruning]"
DEFAULT_PLACEHOLDER: Final = "[Old tool result content cleared]"
DEFAULT_TTL_MS: Final = 300_000
SOFT_TRIM_RATIO: Final = 0.3
HARD_CLEAR_RATIO: Final = 0.5
MIN_PRUNABLE_TOOL_CHARS: Final = 50_000
KEEP_LAST_ASSISTANTS: Final = 3
SOFT_MAX_CHARS: Final = 4_000
SOFT_HEAD_CHARS: Final = 1_500
SOFT_TAIL_CHARS: Final = 1_500

Mode = Literal["soft", "hard"]
"""A cache-TTL projection; ``None`` on a :class:`Projection` is an ordinary (provider-budget) one."""


@dataclass(frozen=True, slots=True)
class CacheTtlSettings:
    """``resolveCacheTtlPruningSettings``."""

    ttl_ms: int
    hard_clear: bool
    placeholder: str
    is_tool_prunable: ToolPrunablePredicate


def resolve_cache_ttl_settings(raw: JSON) -> CacheTtlSettings | None:
    """The 2026.9.6 settings of a ``contextPruning`` block, or None when its mode is not ``"cache-ttl"``."""
    if not isinstance(raw, dict) or raw.get("mode") != "cache-ttl":
        return None
    ttl_ms = DEFAULT_TTL_MS
    ttl = raw.get("ttl")
    if isinstance(ttl, str) and ttl:
        try:
            ttl_ms = parse_duration_ms(ttl, "m")
        except DurationError:
            ttl_ms = DEFAULT_TTL_MS
    hard = raw.get("hardClear")
    enabled = hard.get("enabled") if isinstance(hard, dict) else None
    placeholder = hard.get("placeholder") if isinstance(hard, dict) else None
    trimmed = js_trim(placeholder) if isinstance(placeholder, str) else ""
    tools = raw.get("tools")
    predicate_input: JSON = (
        {k: v for k, v in tools.items() if k in ("allow", "deny")} if isinstance(tools, dict) else {}
    )
    return CacheTtlSettings(
        ttl_ms=ttl_ms,
        hard_clear=enabled if isinstance(enabled, bool) else True,
        placeholder=trimmed or DEFAULT_PLACEHOLDER,
        is_tool_prunable=make_tool_prunable_predicate(predicate_input),
    )


@dataclass(frozen=True, slots=True)
class Projection:
    """A tool result's recorded projection (``recordToolResultPromptProjection``).

    A cache-TTL projection keeps the whole content; an ordinary one keeps only its text blocks, which
    later replace the texts of the source message one for one.
    """

    mode: Mode | None
    content: tuple[ContentBlock, ...]


_NO_KEYS: frozenset[str] = frozenset()


class ProjectionState:
    """The session's ``toolResultPromptProjectionState``: projections, frozen keys, source texts.

    Immutable. Either held as its three values, or as a prefix of a :class:`ProjectionLog` (a replay keeps
    one state per call: copying every key at every call was quadratic), read into the values the first
    time one is asked for. Equality is by value either way.
    """

    __slots__ = ("_projections", "_sources", "_frozen", "_log", "_length")

    def __init__(
        self,
        projections: tuple[tuple[str, Projection], ...] = (),
        sources: tuple[tuple[str, tuple[str, ...]], ...] = (),
        frozen: frozenset[str] = frozenset(),
    ) -> None:
        self._projections = projections
        self._sources = sources
        self._frozen = frozen
        self._log: ProjectionLog | None = None
        self._length = 0

    @classmethod
    def logged(cls, log: ProjectionLog, length: int) -> ProjectionState:
        """The state after the first ``length`` events of ``log`` (read when first asked).

        Its slots set here, without ``__init__`` (a replay makes one or two a call)."""
        state = object.__new__(cls)
        state._projections, state._sources, state._frozen = (), (), _NO_KEYS
        state._log, state._length = log, length
        return state

    def _read(self) -> None:
        if self._log is not None:
            self._projections, self._sources, self._frozen = self._log.replay(self._length)
            self._log = None

    @property
    def projections(self) -> tuple[tuple[str, Projection], ...]:
        self._read()
        return self._projections

    @property
    def sources(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        self._read()
        return self._sources

    @property
    def frozen(self) -> frozenset[str]:
        self._read()
        return self._frozen

    def log_position(self) -> tuple[ProjectionLog, int] | None:
        """The log and length this state is a prefix of, while it has not been read."""
        return (self._log, self._length) if self._log is not None else None

    def values(
        self,
    ) -> tuple[tuple[tuple[str, Projection], ...], tuple[tuple[str, tuple[str, ...]], ...], frozenset[str]]:
        return self.projections, self.sources, self.frozen

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProjectionState):
            return NotImplemented
        if self is other:
            return True
        mine, theirs = self.log_position(), other.log_position()
        if mine is not None and theirs is not None and mine[0] is theirs[0] and mine[1] == theirs[1]:
            return True
        return self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        values = f"projections={self.projections!r}, sources={self.sources!r}, frozen={self.frozen!r}"
        return f"ProjectionState({values})"

    def with_values(
        self,
        *,
        projections: tuple[tuple[str, Projection], ...] | None = None,
        sources: tuple[tuple[str, tuple[str, ...]], ...] | None = None,
        frozen: frozenset[str] | None = None,
    ) -> ProjectionState:
        """A copy with the given values replaced."""
        return ProjectionState(
            self.projections if projections is None else projections,
            self.sources if sources is None else sources,
            self.frozen if frozen is None else frozen,
        )

    def lookup(self) -> Mapping[str, Projection]:
        return dict(self.projections)

    def source_of(self) -> Mapping[str, tuple[str, ...]]:
        return dict(self.sources)

    def record(self, key: str, message: ToolResultMessage, mode: Mode | None) -> ProjectionState:
        """``recordToolResultPromptProjection`` (+ freezing the key, as every caller does)."""
        projections = dict(self.projections)
        projections[key] = projection_of(message, mode)
        return self.with_values(projections=tuple(projections.items()), frozen=self.frozen | {key})


def projection_of(message: ToolResultMessage, mode: Mode | None) -> Projection:
    """What recording ``message`` keeps: its whole content, or (ordinary projection) its text blocks."""
    blocks = message.content if isinstance(message.content, tuple) else ()
    if mode is None:
        blocks = tuple(text_block(t) for b in blocks if (t := _plain_text(b)) is not None)
    return Projection(mode, blocks)


class ProjectionLog:
    """A projection state and what happened to it since, one event at a time (an append-only log).

    Events: ``("project", key, Projection)`` (set, a new key goes last), ``("source", key, texts)`` (a new
    key goes last), ``("freeze", key)``, ``("drop", key)`` (gone from all three).
    """

    __slots__ = ("_base", "events")

    def __init__(self, base: ProjectionState) -> None:
        self._base = base.values()
        self.events: list[tuple[str, str, object]] = []

    def replay(
        self, length: int
    ) -> tuple[tuple[tuple[str, Projection], ...], tuple[tuple[str, tuple[str, ...]], ...], frozenset[str]]:
        """The three values after the first ``length`` events."""
        projections = dict(self._base[0])
        sources = dict(self._base[1])
        frozen = set(self._base[2])
        for kind, key, value in self.events[:length]:
            if kind == "project":
                assert isinstance(value, Projection)
                projections[key] = value
            elif kind == "source":
                assert isinstance(value, tuple)
                sources.setdefault(key, value)
            elif kind == "freeze":
                frozen.add(key)
            else:
                projections.pop(key, None)
                sources.pop(key, None)
                frozen.discard(key)
        return tuple(projections.items()), tuple(sources.items()), frozenset(frozen)


def _plain_text(block: ContentBlock) -> str | None:
    obj = block_json(block)
    if obj is None or obj.get("type") != "text":
        return None
    text = obj.get("text")
    return text if isinstance(text, str) else None


@lru_cache(maxsize=1 << 12, typed=True)
def _number_text(value: float | int) -> str:
    return js_number_to_string(value)


def projection_key(message: AgentMessage) -> str | None:
    """``getToolResultProjectionBaseKey``."""
    if not isinstance(message, ToolResultMessage):
        return None
    # Asked of every message at every call: the extra fields scanned (the last one named wins, as in a
    # dict of them) and the number's text remembered, rather than both rebuilt each time.
    timestamp: JSON = None
    for name, value in message.extra:
        if name == "timestamp":
            timestamp = value
    has_ts = isinstance(timestamp, int | float) and not isinstance(timestamp, bool)
    ts_key = f":{_number_text(timestamp)}" if has_ts and isinstance(timestamp, int | float) else ""
    if message.tool_call_id:
        return f"tool:{message.tool_call_id}{ts_key}"
    return f"timestamp:{ts_key[1:]}" if has_ts else None


def source_texts(message: AgentMessage) -> tuple[str, ...]:
    """``getToolResultTextBlocks``: what a projection's source hash is taken over."""
    if not isinstance(message, ToolResultMessage) or not isinstance(message.content, tuple):
        return ()
    out: list[str] = []
    for block in message.content:
        obj = block_json(block)
        if obj is not None and obj.get("type") == "text":
            text = obj.get("text")
            out.append(text if isinstance(text, str) else "")
    return tuple(out)


def _text(block: ContentBlock, serialize_malformed: bool) -> str | None:
    obj = block_json(block)
    if obj is None or obj.get("type") != "text":
        return None
    text = obj.get("text")
    if isinstance(text, str):
        return text
    return js_json_stringify(obj) if serialize_malformed else None


def message_chars(message: AgentMessage) -> int:
    """``cacheTtlMessageChars``."""
    if isinstance(message, UserMessage) and isinstance(message.content, str):
        return estimate_budget_chars(message.content)
    if not isinstance(message, UserMessage | AssistantMessage | ToolResultMessage):
        return 256
    blocks = message.content if isinstance(message.content, tuple) else ()
    assistant = isinstance(message, AssistantMessage)
    chars = 0
    for block in blocks:
        obj = block_json(block)
        if obj is None:
            continue
        text = _text(block, not assistant)
        if text is not None:
            chars += estimate_budget_chars(text)
        elif obj.get("type") == "image":
            chars += IMAGE_CHARS
        elif assistant and obj.get("type") in ("thinking", "redacted_thinking"):
            keys = ("thinking", "thinkingSignature") + (
                ("data",) if obj.get("type") == "redacted_thinking" else ()
            )
            chars += sum(estimate_budget_chars(v) for v in (obj.get(k) for k in keys) if isinstance(v, str))
        elif assistant and obj.get("type") == "toolCall":
            arguments = obj.get("arguments")
            chars += js_len(js_json_stringify({} if arguments is None else arguments))
    return chars


def soft_prune(message: ToolResultMessage) -> ToolResultMessage:
    """``softPruneCacheTtlToolResult``: images become a marker, long text keeps 1,500 + 1,500."""
    blocks = message.content if isinstance(message.content, tuple) else ()
    has_image = any((obj := block_json(b)) is not None and obj.get("type") == "image" for b in blocks)
    parts: list[str] = []
    for block in blocks:
        text = _text(block, True)
        if text is not None:
            parts.append(text)
        elif (obj := block_json(block)) is not None and obj.get("type") == "image":
            parts.append(IMAGE_MARKER)
    text = "\n".join(parts)
    length = js_len(text)
    if not has_image and length <= SOFT_MAX_CHARS:
        return message
    if length > SOFT_MAX_CHARS:
        head = slice_utf16_safe(text, 0, SOFT_HEAD_CHARS)
        tail = slice_utf16_safe(text, -SOFT_TAIL_CHARS)
        kept = f"kept first {SOFT_HEAD_CHARS} chars and last {SOFT_TAIL_CHARS} chars"
        note = f"[Tool result trimmed: {kept} of {length} chars.]"
        text = f"{head}\n...\n{tail}\n\n{note}"
    return msgspec.structs.replace(message, content=(text_block(text),))


@dataclass(frozen=True, slots=True)
class CacheTtlOutcome:
    """One pass: the context, the new state, what was projected this call and whether it pruned."""

    messages: Sequence[AgentMessage]
    """The context after the pass (a replay's fast transforms give a view, equal to the tuple)."""
    state: ProjectionState
    replayed: Sequence[int]
    soft_trimmed: tuple[int, ...]
    hard_cleared: tuple[int, ...]
    pruned: bool
    ratio: float | None


def _record_sources(messages: Sequence[AgentMessage], state: ProjectionState) -> ProjectionState:
    sources = state.source_of()
    added = [
        (k, source_texts(m)) for m in messages if (k := projection_key(m)) is not None and k not in sources
    ]
    return state.with_values(sources=state.sources + tuple(dict(added).items())) if added else state


def merge_projection(
    message: ToolResultMessage, projection: Projection, source: tuple[str, ...] | None
) -> AgentMessage:
    """``mergeProjectedToolResultMessage``."""
    if not isinstance(message.content, tuple):
        return msgspec.structs.replace(message, content=projection.content)
    current = source_texts(message)
    if source is not None and current != source:
        return message
    if projection.mode is not None:
        return msgspec.structs.replace(message, content=projection.content)
    projected = [t for b in projection.content if (t := _plain_text(b)) is not None]
    if len(current) != len(projected):
        return message
    texts = iter(projected)
    merged: list[ContentBlock] = []
    for block in message.content:
        obj = block_json(block)
        if obj is not None and obj.get("type") == "text":
            merged.append(
                text_block(next(texts))
                if not isinstance(obj.get("text"), str)
                else _with_text(block, next(texts))
            )
        else:
            merged.append(block)
    return msgspec.structs.replace(message, content=tuple(merged))


def _with_text(block: ContentBlock, text: str) -> ContentBlock:
    if isinstance(block, TextContent):
        return msgspec.structs.replace(block, text=text)
    return text_block(text)


def replay_projections(
    messages: Sequence[AgentMessage], state: ProjectionState
) -> tuple[tuple[AgentMessage, ...], ProjectionState, tuple[int, ...]]:
    """``projectToolResultBranch`` (recording sources): re-send every recorded projection."""
    state = _record_sources(messages, state)
    lookup, sources = state.lookup(), state.source_of()
    out = list(messages)
    replayed: list[int] = []
    for i, message in enumerate(messages):
        key = projection_key(message)
        projection = lookup.get(key) if key is not None else None
        if projection is None or key is None or not isinstance(message, ToolResultMessage):
            continue
        merged = merge_projection(message, projection, sources.get(key))
        if merged is not message:
            out[i] = merged
            replayed.append(i)
    return tuple(out), state, tuple(replayed)


def prune_expired_cache_ttl_tool_results(
    messages: tuple[AgentMessage, ...],
    settings: CacheTtlSettings,
    state: ProjectionState,
    *,
    context_window_tokens: float,
    last_cache_touch_at: float | None,
    now: float,
    drop_thinking_blocks_for_estimate: bool,
    prune_new_rounds: bool = True,
) -> CacheTtlOutcome:
    """``pruneExpiredCacheTtlToolResults``: replay projections, then prune new rounds once the TTL expired."""
    projected, state, replayed = replay_projections(messages, state)
    lookup = state.lookup()
    expired = (
        prune_new_rounds
        and bool(last_cache_touch_at)
        and settings.ttl_ms > 0
        and last_cache_touch_at is not None
        and now - last_cache_touch_at >= settings.ttl_ms
    )
    unchanged = CacheTtlOutcome(projected, state, replayed, (), (), False, None)
    if not expired:
        return unchanged
    assistants = [i for i, m in enumerate(projected) if isinstance(m, AssistantMessage)]
    cutoff = assistants[-KEEP_LAST_ASSISTANTS] if len(assistants) >= KEEP_LAST_ASSISTANTS else -1
    start = next((i for i, m in enumerate(projected) if isinstance(m, UserMessage)), -1)
    if cutoff < 0 or start < 0:
        return unchanged
    estimate_input = drop_thinking_blocks(projected) if drop_thinking_blocks_for_estimate else projected
    chars = [message_chars(m) for m in estimate_input]
    total = sum(chars)
    char_window = context_window_tokens * 4
    if total / char_window < SOFT_TRIM_RATIO:
        return replace(unchanged, ratio=total / char_window)
    out = list(projected)
    recorded = state
    eligible: list[list[int]] = []
    soft: list[int] = []
    for index in range(start, cutoff):
        message = projected[index]
        if not isinstance(message, ToolResultMessage):
            continue
        if not settings.is_tool_prunable(message.tool_name if isinstance(message.tool_name, str) else ""):
            continue
        key = projection_key(message)
        previous = lookup.get(key) if key is not None else None
        if previous is not None and previous.mode == "hard":
            continue
        candidate = [index, chars[index]]
        eligible.append(candidate)
        if previous is not None and previous.mode == "soft":
            continue
        source = messages[index]
        if not isinstance(source, ToolResultMessage):
            continue
        trimmed = soft_prune(source)
        if trimmed is not source:
            new_chars = message_chars(trimmed)
            total += new_chars - candidate[1]
            candidate[1] = new_chars
            out[index] = trimmed
            if key is not None:
                recorded = recorded.record(key, trimmed, "soft")
            soft.append(index)
    hard: list[int] = []
    if (
        total / char_window >= HARD_CLEAR_RATIO
        and settings.hard_clear
        and sum(c[1] for c in eligible) >= MIN_PRUNABLE_TOOL_CHARS
    ):
        for index, count in eligible:
            if total / char_window < HARD_CLEAR_RATIO:
                break
            current = out[index]
            if not isinstance(current, ToolResultMessage):
                continue
            cleared = msgspec.structs.replace(current, content=(text_block(settings.placeholder),))
            total += message_chars(cleared) - count
            out[index] = cleared
            key = projection_key(current)
            if key is not None:
                recorded = recorded.record(key, cleared, "hard")
            hard.append(index)
    pruned = bool(soft or hard)
    new_state = recorded if pruned else state
    return CacheTtlOutcome(
        tuple(out) if pruned else projected,
        new_state,
        replayed,
        tuple(soft),
        tuple(hard),
        pruned,
        total / char_window,
    )


def reconcile_projections(history: Sequence[AgentMessage], state: ProjectionState) -> ProjectionState:
    """``reconcileToolResultPromptProjectionState``, once per attempt against the session history.

    A key survives only when its tool result is in the history with the texts the projection was made
    from; a result the guard had cut (so its recorded source differs from the transcript) starts over.
    """
    sources = state.source_of()
    canonical = {
        key
        for message in history
        if (key := projection_key(message)) is not None
        and (key not in sources or sources[key] == source_texts(message))
    }
    return ProjectionState(
        projections=tuple((k, p) for k, p in state.projections if k in canonical),
        sources=tuple((k, t) for k, t in state.sources if k in canonical),
        frozen=frozenset(k for k in state.frozen if k in canonical),
    )
