"""Tool-call/tool-result pairing repairs (``agent/history_pruner.rs``, master 15d28660).

Native tool calls live as JSON inside ``ChatMessage.content``: an assistant row
``{"content", "tool_calls": [{"id", ...}]}`` and tool rows ``{"tool_call_id", "content"}``.

``remove_orphaned_tool_messages``
    Pass 1 removes an assistant with parseable tool-call ids that directly follows another assistant
    (its calls can never have been answered in between), plus the directly following tool rows
    whose id is among its ids or unparseable. Pass 2 removes each tool row whose nearest assistant in
    the contiguous assistant/tool run is missing, has no parseable ids, or does not list the row's id;
    a tool row with no parseable id after a tool-calling assistant is kept.
``strip_orphaned_tool_calls_from_assistants``
    Removes calls with no later tool result; an assistant left with no calls becomes its trimmed
    ``content`` text, or disappears when that is null or empty.

Interpretation: the spec phrases pass 1 as "previous assistant with unresolved ids"; an adjacent
assistant never has results between the two, and an assistant without ids counts as unresolved (as in
every stored upstream version), so the rule reduces to "previous message is an assistant".
Whole-turn trimming never creates orphans; these sweeps repair histories from other sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from simulator.jsonvalue import JSON
from simulator.runtimes.zeroclaw import serde
from simulator.runtimes.zeroclaw.messages import ASSISTANT, TOOL, ChatMessage


@dataclass(frozen=True, slots=True)
class OrphanSweepResult:
    """Outcome of ``remove_orphaned_tool_messages``."""

    history: tuple[ChatMessage, ...]
    removed: int
    orphan_tool_call_ids: tuple[str, ...]
    kept_indices: tuple[int, ...]

    def to_json(self) -> JSON:
        """The vector shape."""
        return {
            "history": [m.to_json() for m in self.history],
            "removed": self.removed,
            "orphan_tool_call_ids": list(self.orphan_tool_call_ids),
        }


@dataclass(frozen=True, slots=True)
class StripResult:
    """Outcome of ``strip_orphaned_tool_calls_from_assistants``."""

    history: tuple[ChatMessage, ...]
    stripped: int
    kept_indices: tuple[int, ...]

    def to_json(self) -> JSON:
        """The vector shape."""
        return {"history": [m.to_json() for m in self.history], "stripped": self.stripped}


# Both extractors are pure functions of immutable text, memoised because a replay sweeps the same held
# messages before every model call.
@lru_cache(maxsize=1 << 14)
def extract_tool_call_id(content: str) -> str | None:
    """The ``tool_call_id`` string of a tool row's JSON content, if any."""
    ok, value = serde.parse_or_none(content)
    return serde.get_str(value, "tool_call_id") if ok else None


@lru_cache(maxsize=1 << 14)
def extract_assistant_tool_call_ids(content: str) -> tuple[str, ...] | None:
    """The string ids in an assistant row's ``tool_calls`` array; ``None`` when there are none."""
    ok, value = serde.parse_or_none(content)
    if not ok or not isinstance(value, dict):
        return None
    calls = value.get("tool_calls")
    if not isinstance(calls, list):
        return None
    ids = tuple(i for i in (serde.get_str(c, "id") for c in calls) if i is not None)
    return ids or None


def remove_orphaned_tool_messages(history: Sequence[ChatMessage]) -> OrphanSweepResult:
    """Remove tool rows (and doubled tool-calling assistants) that lost their pairing.

    Args:
        history: Provider-facing messages.

    Returns:
        The swept history, how many rows were removed and the tool-call ids that lost their pairing
        (pass-1 assistant ids, then pass-2 tool-row ids, in order).
    """
    rows: list[tuple[int, ChatMessage]] = list(enumerate(history))
    removed = 0
    orphan_ids: list[str] = []

    i = 0
    while i < len(rows):
        message = rows[i][1]
        doomed = extract_assistant_tool_call_ids(message.content) if message.role == ASSISTANT else None
        if doomed is not None and i > 0 and rows[i - 1][1].role == ASSISTANT:
            orphan_ids.extend(doomed)
            del rows[i]
            removed += 1
            while i < len(rows) and rows[i][1].role == TOOL:
                tool_id = extract_tool_call_id(rows[i][1].content)
                if tool_id is not None and tool_id not in doomed:
                    break
                del rows[i]
                removed += 1
        else:
            i += 1

    i = 0
    while i < len(rows):
        message = rows[i][1]
        if message.role != TOOL:
            i += 1
            continue
        owner: ChatMessage | None = None
        for j in range(i - 1, -1, -1):
            role = rows[j][1].role
            if role not in (ASSISTANT, TOOL):
                break
            if role == ASSISTANT:
                owner = rows[j][1]
                break
        tool_id = extract_tool_call_id(message.content)
        owner_ids = extract_assistant_tool_call_ids(owner.content) if owner is not None else None
        if owner_ids is None:
            orphan = True
        else:
            orphan = tool_id is not None and tool_id not in owner_ids
        if orphan:
            if tool_id is not None:
                orphan_ids.append(tool_id)
            del rows[i]
            removed += 1
        else:
            i += 1

    return OrphanSweepResult(
        history=tuple(m for _, m in rows),
        removed=removed,
        orphan_tool_call_ids=tuple(orphan_ids),
        kept_indices=tuple(idx for idx, _ in rows),
    )


def strip_orphaned_tool_calls_from_assistants(history: Sequence[ChatMessage]) -> StripResult:
    """Drop assistant tool calls that no later tool row answers.

    Args:
        history: Provider-facing messages.

    Returns:
        The repaired history and how many assistant rows were changed or removed.
    """
    later_ids: set[str] = set()
    kept: list[tuple[int, ChatMessage]] = []
    stripped = 0
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        replacement = _strip_one(message, later_ids)
        if message.role == TOOL:
            tool_id = extract_tool_call_id(message.content)
            if tool_id is not None:
                later_ids.add(tool_id)
        if replacement is message:
            kept.append((index, message))
            continue
        stripped += 1
        if replacement is not None:
            kept.append((index, replacement))
    kept.reverse()
    return StripResult(tuple(m for _, m in kept), stripped, tuple(i for i, _ in kept))


def _strip_one(message: ChatMessage, later_ids: set[str]) -> ChatMessage | None:
    """The message itself when nothing changes, a rewritten copy, or ``None`` to delete it."""
    if message.role != ASSISTANT or "tool_calls" not in message.content:
        return message
    ok, value = serde.parse_or_none(message.content)
    if not ok or not isinstance(value, dict):
        return message
    calls = value.get("tool_calls")
    if not isinstance(calls, list):
        return message
    paired = [c for c in calls if (cid := serde.get_str(c, "id")) is not None and cid in later_ids]
    if len(paired) == len(calls):
        return message
    if paired:
        rewritten = dict(value)
        rewritten["tool_calls"] = paired
        return ChatMessage(message.role, serde.to_string(rewritten))
    text = value.get("content")
    if isinstance(text, str) and text.strip():
        return ChatMessage(message.role, text.strip())
    return None
