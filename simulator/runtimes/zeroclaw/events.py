"""The ``HistoryTrimmed`` turn event and its four wire shapes (master 15d28660).

``TurnEvent::HistoryTrimmed { dropped_messages, kept_turns, reason }`` is emitted only when a trim
actually dropped something. It reaches clients as:

- gateway WebSocket: ``{"type": "history_trimmed", "dropped_messages", "kept_turns", "reason"}``;
- SSE / observability: adds ``"source": "observability"`` and an RFC 3339 ``timestamp``, plus
  ``channel``, ``agent_alias`` and ``turn_id`` only when present (the turn loop passes none);
- RPC ``SessionUpdateEvent``: ``{"type": "history_trimmed", "session_id", ...}``;
- ACP JSON-RPC notification ``_zeroclaw/history_trimmed`` with camelCase params.

The timestamp is an argument: this module never reads a clock. Divergence: a replay of a transcript
without timestamps or session id has neither to give, so both may be ``None`` (rendered ``null``)
where upstream always has the wall clock and the live session.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.jsonvalue import JSON
from simulator.runtimes.zeroclaw.texts import REASON_BUDGET, REASON_MESSAGE_CAP

EVENT_TYPE = "history_trimmed"
ACP_METHOD = "_zeroclaw/history_trimmed"


@dataclass(frozen=True, slots=True)
class HistoryTrimmed:
    """One ``TurnEvent::HistoryTrimmed``."""

    dropped_messages: int
    kept_turns: int
    reason: str

    @classmethod
    def budget(cls, dropped_messages: int, kept_turns: int) -> HistoryTrimmed:
        """Event for a token-budget trim (also used by reactive recovery)."""
        return cls(dropped_messages, kept_turns, REASON_BUDGET)

    @classmethod
    def message_cap(cls, dropped_messages: int, kept_turns: int) -> HistoryTrimmed:
        """Event for the structured message cap."""
        return cls(dropped_messages, kept_turns, REASON_MESSAGE_CAP)

    def to_ws(self) -> dict[str, JSON]:
        """Gateway WebSocket frame."""
        return {
            "type": EVENT_TYPE,
            "dropped_messages": self.dropped_messages,
            "kept_turns": self.kept_turns,
            "reason": self.reason,
        }

    def to_sse(
        self,
        timestamp: str | None,
        *,
        channel: str | None = None,
        agent_alias: str | None = None,
        turn_id: str | None = None,
    ) -> dict[str, JSON]:
        """SSE / observability frame.

        Args:
            timestamp: RFC 3339 time of the event, supplied by the caller (``None``: unknown).
            channel: Channel name, omitted when ``None``.
            agent_alias: Agent alias, omitted when ``None``.
            turn_id: Turn id, omitted when ``None`` (always ``None`` from the turn loop).

        Returns:
            The JSON frame.
        """
        frame: dict[str, JSON] = {
            "type": EVENT_TYPE,
            "source": "observability",
            "dropped_messages": self.dropped_messages,
            "kept_turns": self.kept_turns,
            "reason": self.reason,
            "timestamp": timestamp,
        }
        for key, value in (("channel", channel), ("agent_alias", agent_alias), ("turn_id", turn_id)):
            if value is not None:
                frame[key] = value
        return frame

    def to_rpc(self, session_id: str | None) -> dict[str, JSON]:
        """RPC ``SessionUpdateEvent``."""
        return {
            "type": EVENT_TYPE,
            "session_id": session_id,
            "dropped_messages": self.dropped_messages,
            "kept_turns": self.kept_turns,
            "reason": self.reason,
        }

    def to_acp(self, session_id: str | None) -> dict[str, JSON]:
        """ACP JSON-RPC 2.0 notification (no ``id``)."""
        return {
            "jsonrpc": "2.0",
            "method": ACP_METHOD,
            "params": {
                "sessionId": session_id,
                "droppedMessages": self.dropped_messages,
                "keptTurns": self.kept_turns,
                "reason": self.reason,
            },
        }
