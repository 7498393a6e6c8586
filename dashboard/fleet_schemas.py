"""The trim-event frames runtimes may send, as strict schemas (an undeclared field is an error).

ZeroClaw's own ``history_trimmed`` wire shapes (spec zeroclaw.md §8) are accepted as they are, plus a
Trimscope envelope ``{runtime, session_id, seq, sent_at, event}`` whose event may carry richer fields.
The same classes validate WebSocket frames, ``POST /api/events`` and what is stored, so what the schema
accepts is what both databases store: text without NUL or lone surrogates (PostgreSQL and the UTF-8
codecs refuse them), counts up to 2**53 (the columns are 64-bit), times within Python's and the
databases' range once moved to UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


def storable_text(value: str) -> str:
    """Text both databases can store: no NUL (PostgreSQL refuses it) and valid UTF-8 (no lone surrogate)."""
    if "\x00" in value:
        raise ValueError("contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"contains a lone surrogate (U+{ord(value[exc.start]):04X})") from None
    return value


def storable_time(value: datetime) -> datetime:
    """A time as stored: in UTC (naive times are taken as UTC), within years 1-9999 once moved there."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        # e.g. 9999-12-31T23:59:59-12:00 is in year 10000 in UTC, which neither Python nor SQLite holds.
        raise ValueError("is outside the years 1-9999 once converted to UTC") from None


Count = Annotated[int, Field(ge=0, le=2**53)]
Text = Annotated[str, Field(max_length=500), AfterValidator(storable_text)]
Id = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(storable_text)]
Time = Annotated[datetime, Field(strict=False), AfterValidator(storable_time)]


class _Strict(BaseModel):
    # An undeclared field is a schema mismatch: fail at validation, not silently later.
    model_config = ConfigDict(extra="forbid", strict=True)


class WsHistoryTrimmed(_Strict):
    """Gateway WebSocket frame."""

    type: Literal["history_trimmed"]
    dropped_messages: Count
    kept_turns: Count
    reason: Text


class SseHistoryTrimmed(_Strict):
    """SSE / observability frame."""

    type: Literal["history_trimmed"]
    source: Literal["observability"]
    dropped_messages: Count
    kept_turns: Count
    reason: Text
    timestamp: Time
    channel: Text | None = None
    agent_alias: Text | None = None
    turn_id: Text | None = None


class RpcHistoryTrimmed(_Strict):
    """RPC ``SessionUpdateEvent``."""

    type: Literal["history_trimmed"]
    session_id: Id
    dropped_messages: Count
    kept_turns: Count
    reason: Text


class AcpParams(_Strict):
    sessionId: Id  # noqa: N815 - the wire name
    droppedMessages: Count  # noqa: N815
    keptTurns: Count  # noqa: N815
    reason: Text


class AcpHistoryTrimmed(_Strict):
    """ACP JSON-RPC notification ``_zeroclaw/history_trimmed``."""

    jsonrpc: Literal["2.0"]
    method: Literal["_zeroclaw/history_trimmed"]
    params: AcpParams


class RichHistoryTrimmed(_Strict):
    """The event inside a Trimscope envelope: ZeroClaw's fields plus what the runtime also knows."""

    type: Literal["history_trimmed"]
    dropped_messages: Count
    kept_turns: Count
    reason: Text
    id: Id | None = None
    dropped_turns: Count | None = None
    tokens_before: Count | None = None
    tokens_after: Count | None = None
    budget: Count | None = None
    trim_target: Annotated[str, Field(max_length=60), AfterValidator(storable_text)] | None = None
    overflow_recovery: Literal["recovered", "failed"] | None = None
    call_number: Count | None = None
    provider_input_tokens: Count | None = None
    """The provider's reported input tokens for the request ``tokens_before`` estimated (drift alert)."""
    channel: Text | None = None
    agent_alias: Text | None = None
    turn_id: Text | None = None


class Envelope(_Strict):
    """``{runtime, session_id, seq, sent_at, event}``: ``seq`` makes resends idempotent."""

    runtime: Annotated[str, Field(max_length=120), AfterValidator(storable_text)] | None = None
    session_id: Id
    seq: Count
    sent_at: Time
    event: RichHistoryTrimmed


Frame = Envelope | AcpHistoryTrimmed | SseHistoryTrimmed | RpcHistoryTrimmed | WsHistoryTrimmed
FRAME_ADAPTER: TypeAdapter[Frame] = TypeAdapter(Frame)


class FrameError(ValueError):
    """A frame that is not one of the accepted shapes: ``field`` is the path of the first problem."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field


def _shape_of(data: dict[str, object]) -> type[_Strict]:
    # Pick the shape by its distinguishing key, so a bad frame gets the errors of the shape it meant.
    if "jsonrpc" in data or "method" in data:
        return AcpHistoryTrimmed
    if "event" in data or "seq" in data:
        return Envelope
    if "source" in data:
        return SseHistoryTrimmed
    if "session_id" in data:
        return RpcHistoryTrimmed
    return WsHistoryTrimmed


def parse_frame(data: object) -> Frame:
    """Validate one decoded JSON frame against the accepted shapes.

    Raises:
        FrameError: naming the shape tried, the field and the problem.
    """
    if not isinstance(data, dict):
        raise FrameError(f"a frame must be a JSON object, got {type(data).__name__}")
    shape = _shape_of(data)
    try:
        frame: Frame = shape.model_validate(data)  # type: ignore[assignment]  # one of Frame's members
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise FrameError(f"{shape.__name__}: {field or 'frame'}: {first['msg']}", field) from exc
    return frame


def check_runtime(
    item: tuple[Frame, dict[str, object]], runtime_name: str
) -> tuple[Frame, dict[str, object]] | FrameError:
    """The frame, or an error when its envelope names another runtime than the token's.

    The token decides which runtime an event is stored under; an envelope claiming another one is a
    misconfigured sender (two runtimes sharing a token, a copied config), so it is refused, not filed
    under the token's runtime without a word.
    """
    frame = item[0]
    if isinstance(frame, Envelope) and frame.runtime is not None and frame.runtime != runtime_name:
        return FrameError(
            f"Envelope: runtime: {frame.runtime!r} is not the runtime this token belongs to "
            f"({runtime_name!r}); nothing was stored",
            "runtime",
        )
    return item
