"""ZeroClaw v0.8.4's legacy message cap told from bookkeeping instead of re-running it over the held history.

Once a session passes the cap (``max_history_messages``, 50 by default), the released runtime runs
``history::trim_history`` before every model call: it drops the middle of the history, runs the orphan
sweep (``remove_orphaned_tool_messages``) over what is left and merges every system message into one.
Run as written, that is two passes over ~50 messages at every call. In a history the sweep finds nothing
to repair and with at most one system message, first and non-empty, the whole step is a cut of the held
history: :func:`legacy_cut` says where, or ``None`` when the runtime's function must run.

Why the sweep can be told without running it: both of its passes only look backwards through a run of
assistant and tool rows, and never remove a user or system row. A row's verdict therefore depends only on
the rows of its run before it, and the sweep changes nothing exactly when no row is *dirty*: an assistant
with tool-call ids right after an assistant (pass 1), or a tool row whose nearest assistant in its run is
missing, lists no ids, or does not list the row's id (pass 2). :class:`SweepWatch` keeps the number of
dirty held rows as messages enter. When there is none, the cap's cut changes one verdict only: the tool
rows that open the run after the cut have lost their call, and the sweep removes them with the middle.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.replay.zeroclaw_history import History
from simulator.runtimes.zeroclaw.messages import ASSISTANT, SYSTEM, TOOL, USER, ChatMessage
from simulator.runtimes.zeroclaw.orphans import extract_assistant_tool_call_ids, extract_tool_call_id


@dataclass(slots=True)
class SweepWatch:
    """The dirty rows of the held history and the state of its last assistant/tool run."""

    generation: int = -1
    """:attr:`History.generation` the counts below were made for (``-1``: never)."""
    seen: int = 0
    """Held rows already looked at."""
    dirty: int = 0
    systems: int = 0
    """Held ``system`` rows."""
    previous: str | None = None
    """Role of the last row looked at (``None``: none)."""
    owner_ids: tuple[str, ...] | None = None
    """Tool-call ids of the nearest assistant of the current run (``None``: none, or it lists no ids)."""

    def catch_up(self, history: History) -> None:
        """Look at the rows that entered since the last look; start over after any other trim."""
        if self.generation != history.generation:
            self.generation, self.seen, self.dirty, self.systems = history.generation, 0, 0, 0
            self.previous = self.owner_ids = None
        held = history.held
        for k in range(self.seen, len(held)):
            self._look(held[k])
        self.seen = len(held)

    def _look(self, message: ChatMessage) -> None:
        role = message.role
        if role == ASSISTANT:
            ids = extract_assistant_tool_call_ids(message.content)
            self.dirty += ids is not None and self.previous == ASSISTANT
            self.owner_ids = ids
        elif role == TOOL:
            self.dirty += _orphan(message, self.owner_ids)
        else:
            self.owner_ids = None
            self.systems += role == SYSTEM
        self.previous = role

    def after_cut(self, history: History) -> None:
        """The cut :func:`legacy_cut` allowed was made: every held row is clean, the last run unchanged."""
        self.generation, self.seen, self.dirty = history.generation, len(history.held), 0


def _orphan(message: ChatMessage, owner_ids: tuple[str, ...] | None) -> bool:
    if owner_ids is None:
        return True
    tool_id = extract_tool_call_id(message.content)
    return tool_id is not None and tool_id not in owner_ids


def legacy_cut(history: History, max_history: int, watch: SweepWatch) -> tuple[int, int] | None:
    """Where ``trim_history(history.held, max_history)`` cuts, when the cut is all it does.

    Call it only when the held non-system messages exceed ``max_history``.

    Returns:
        ``(start, stop)``: the trim keeps ``held[:start]`` and ``held[stop:]`` as they are; ``None`` when
        the orphan sweep or the system merge would change something (run the runtime's function).
    """
    watch.catch_up(history)
    held = history.held
    has_system = bool(held) and held[0].role == SYSTEM
    offset = 1 if has_system else 0
    if watch.dirty or watch.systems != offset or (has_system and not held[0].content):
        return None
    # The drop range of ``trim_history``: the middle after the anchor, else the oldest excess.
    non_system = len(held) - offset
    anchor = next((i for i in range(offset, len(held)) if held[i].role == USER), None)
    start = stop = 0
    if anchor is not None and max_history >= 2:
        tail_start = max(0, len(held) - (max_history - 1))
        if tail_start > anchor + 1:
            start, stop = anchor + 1, tail_start
    if stop == 0:
        start, stop = offset, offset + non_system - max_history
    # The row before the cut is the anchor (a user), the system row or nothing, so the run the cut opens
    # starts afresh and is the only one whose verdicts change: its leading tool rows lose their call and
    # go. Every later row keeps the owner and predecessor it was judged clean with.
    while stop < len(held) and held[stop].role == TOOL:
        stop += 1
    return (start, stop) if stop < len(held) else None  # all cut: the last run's state would change
