"""The trim-event frames runtimes may send, as strict schemas (an undeclared field is an error).

ZeroClaw's own ``history_trimmed`` wire shapes (spec zeroclaw.md §8) are accepted as they are, plus a
Trimscope envelope ``{runtime, session_id, seq, sent_at, event}`` whose event may carry richer fields.
The same classes validate WebSocket frames, ``POST /api/events`` and what is stored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

Count = Annotated[int, Field(ge=0, le=2**53)]
Text = Annotated[str, Field(max_length=500)]
Id = Annotated[str, Field(min_length=1, max_length=200)]


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
    timestamp: Annotated[datetime, Field(strict=False)]
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
    trim_target: Annotated[str, Field(max_length=60)] | None = None
    overflow_recovery: Literal["recovered", "failed"] | None = None
    call_number: Count | None = None
    channel: Text | None = None
    agent_alias: Text | None = None
    turn_id: Text | None = None


class Envelope(_Strict):
    """``{runtime, session_id, seq, sent_at, event}``: ``seq`` makes resends idempotent."""

    runtime: Annotated[str, Field(max_length=120)] | None = None
    session_id: Id
    seq: Count
    sent_at: Annotated[datetime, Field(strict=False)]
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
