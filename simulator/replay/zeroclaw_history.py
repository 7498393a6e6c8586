"""The history a ZeroClaw replay holds between calls, with what each trim dropped for good.

ZeroClaw forgets: a trim replaces the held history, and what it left out is gone for every later
call. :class:`History` holds the messages, where each came from (``None`` for the breadcrumb), the
running estimate, turn and non-system counts, and the sent ranges; it is the replay state's one
growing buffer.

Recounting after a trim is the only per-call cost that grows with the history. :class:`CachedFacts`
reuses what was known about a message when it entered as long as the trim kept that very message
(fast); :class:`RecountedFacts` recomputes every message (reference). They are interchangeable
behind :class:`MessageFacts` and give the same records.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Protocol, TypeAlias

from simulator.replay.common import ranges
from simulator.replay.model import Change
from simulator.runtimes.zeroclaw import ChatMessage
from simulator.runtimes.zeroclaw.estimate import estimate_message_tokens
from simulator.runtimes.zeroclaw.messages import SYSTEM, USER
from simulator.runtimes.zeroclaw.turns import leading_system_count

Facts: TypeAlias = tuple[int, bool, bool]
"""A held message's estimate, whether it opens a turn, whether it is a system message."""
Boundary: TypeAlias = Callable[[ChatMessage], bool]


class MessageFacts(Protocol):
    def entered(self, index: int, message: ChatMessage) -> Facts:
        """Facts of native message ``index`` as it enters the history."""
        ...

    def count(self, held: Sequence[ChatMessage], sources: Sequence[int | None]) -> tuple[int, int, int]:
        """Estimate, turns and non-system messages of a history a trim kept (``sources``: where each
        message came from, ``None`` = breadcrumb)."""
        ...

    def of(self, message: ChatMessage, source: int | None) -> Facts:
        """Facts of one held message, as :meth:`count` counts it."""
        ...

    def stored_facts(self) -> tuple[list[ChatMessage | None], list[int], list[bool], list[bool]] | None:
        """The facts of native messages by index, when they are kept in lists (``None``: ask each)."""
        ...


def _facts(message: ChatMessage, is_boundary: Boundary) -> Facts:
    return estimate_message_tokens(message), is_boundary(message), message.role == "system"


class RecountedFacts:
    """Every message counted afresh (the reference)."""

    def __init__(self, size: int, is_boundary: Boundary) -> None:
        self._is_boundary = is_boundary

    def entered(self, index: int, message: ChatMessage) -> Facts:
        return _facts(message, self._is_boundary)

    def of(self, message: ChatMessage, source: int | None) -> Facts:
        return _facts(message, self._is_boundary)

    def stored_facts(self) -> None:
        return None

    def count(self, held: Sequence[ChatMessage], sources: Sequence[int | None]) -> tuple[int, int, int]:
        tokens = turns = non_system = 0
        for message in held:
            size, boundary, system = _facts(message, self._is_boundary)
            tokens += size
            turns += boundary
            non_system += not system
        return tokens, turns, non_system


class CachedFacts:
    """A kept message that is the very object that entered reuses its entry facts."""

    def __init__(
        self,
        size: int,
        is_boundary: Boundary,
        stored: tuple[Sequence[ChatMessage], Sequence[int]] | None = None,
        flags: tuple[Sequence[bool], Sequence[bool]] | None = None,
    ) -> None:
        """``stored``: the native messages and their estimates, made once; ``flags``: whether each opens a
        turn (``is_boundary``) and whether it is a system message, when the caller knows them.

        A message's facts are a function of the message alone, so the stored natives' are filled in at
        once: a native entering unchanged is not sized or looked at again.
        """
        self._is_boundary = is_boundary
        self._stored = stored
        self._other: ChatMessage | None = None
        """The last message asked about that is not a native as it entered (a breadcrumb), and its facts."""
        self._other_facts: Facts = (0, False, False)
        self._message: list[ChatMessage | None]
        if stored is None:
            self._message = [None] * size
            self._tokens = [0] * size
            self._boundary = [False] * size
            self._system = [False] * size
            return
        natives = stored[0]
        if flags is None:
            flags = [is_boundary(m) for m in natives], [m.role == SYSTEM for m in natives]
        self._message, self._tokens = list(natives), list(stored[1])
        self._boundary, self._system = list(flags[0]), list(flags[1])

    def entered(self, index: int, message: ChatMessage) -> Facts:
        if self._message[index] is message and self._stored is not None:
            return self._tokens[index], self._boundary[index], self._system[index]
        tokens = estimate_message_tokens(message)
        boundary, system = self._is_boundary(message), message.role == "system"
        self._message[index] = message
        self._tokens[index], self._boundary[index], self._system[index] = tokens, boundary, system
        return tokens, boundary, system

    def stored_facts(self) -> tuple[list[ChatMessage | None], list[int], list[bool], list[bool]] | None:
        """Messages, estimates, turn openings and system flags by native index (``None`` without stored
        natives): what :meth:`History.enter_natives` reads for a native entering unchanged."""
        if self._stored is None:
            return None
        return self._message, self._tokens, self._boundary, self._system

    def of(self, message: ChatMessage, source: int | None) -> Facts:
        if source is not None and self._message[source] is message:
            return self._tokens[source], self._boundary[source], self._system[source]
        if message is self._other:
            return self._other_facts
        facts = _facts(message, self._is_boundary)
        # Kept for the next ask: a breadcrumb is held, and asked about, until the next trim.
        self._other, self._other_facts = message, facts
        return facts

    def count(self, held: Sequence[ChatMessage], sources: Sequence[int | None]) -> tuple[int, int, int]:
        # The one loop whose cost grows with the history at every trim: kept inline on purpose.
        tokens = turns = non_system = 0
        for message, source in zip(held, sources, strict=True):
            if source is not None and self._message[source] is message:
                tokens += self._tokens[source]
                turns += self._boundary[source]
                non_system += not self._system[source]
            else:
                tokens += estimate_message_tokens(message)
                turns += self._is_boundary(message)
                non_system += message.role != "system"
        return tokens, turns, non_system


class History:
    """The held history and the per-native bookkeeping of drops (``dropped_at``: call number, 0 = never)."""

    def __init__(self, size: int, facts: MessageFacts) -> None:
        self.held: list[ChatMessage] = []
        self.src: list[int | None] = []
        self.tokens = 0
        self.turns = 0
        self.non_system = 0
        self.spans: list[tuple[int, int]] = []
        self.crumb_at: int | None = None
        self.dropped_at = [0] * size
        self.drop_rules = [""] * size
        self.changes: list[Change] = []
        """Content changes made as messages entered (truncation); they stay with the message."""
        self._facts = facts
        self._stored = facts.stored_facts()
        """The facts' lists by native index (the same lists as they fill in), or ``None``."""
        self._system_tokens = 0
        """The estimate of every held ``system`` message (``estimate_system_floor_tokens``)."""
        self._stale = False
        """After :meth:`adopt`: the two sums below are worked out again when next asked for."""
        self._users: list[int] = []
        """Sources of the held ``user`` messages (breadcrumbs aside), ascending, from ``_users_from`` on."""
        self._users_from = 0
        self.generation = 0
        self._entered_sums: list[int] | None = [0]
        """``[k]``: the entry estimates of natives ``[0, k)``; ``None`` once natives entered out of order."""
        """Counts the trims (:meth:`adopt`, :meth:`cut`): bookkeeping of held rows made before is stale."""

    def enter(self, index: int, message: ChatMessage) -> None:
        """Append native message ``index`` (as it enters, e.g. truncated)."""
        tokens, boundary, system = self._facts.entered(index, message)
        sums = self._entered_sums
        if sums is not None:
            if index == len(sums) - 1:
                sums.append(sums[-1] + tokens)
            else:
                self._entered_sums = None
        self.held.append(message)
        self.src.append(index)
        if self.spans and self.spans[-1][1] == index:
            self.spans[-1] = (self.spans[-1][0], index + 1)
        else:
            self.spans.append((index, index + 1))
        self.tokens += tokens
        self.turns += boundary
        self.non_system += not system
        self._system_tokens += tokens if system else 0
        if message.role == USER:
            self._users.append(index)

    def enter_natives(self, natives: Sequence[ChatMessage], start: int, stop: int) -> None:
        """:meth:`enter` of ``natives[start:stop]``, each as it is (no truncation), in order.

        The natives' facts are read from the lists the facts keep, in one loop (a replay enters every
        message of the transcript); a native they do not hold as it is enters through :meth:`enter`.
        """
        stored = self._stored
        if stored is None:
            for index in range(start, stop):
                self.enter(index, natives[index])
            return
        messages, sizes, boundaries, systems = stored
        held, src, users, sums = self.held, self.src, self._users, self._entered_sums
        tokens = turns = non_system = system_tokens = 0
        run = start  # the natives from ``run`` on entered here: their sent range is added once, after them
        for index in range(start, stop):
            message = natives[index]
            if messages[index] is not message:
                self._add_span(run, index)
                self.enter(index, message)  # counts itself: the sums below are added to its
                sums, run = self._entered_sums, index + 1
                continue
            size = sizes[index]
            if sums is not None:
                if index == len(sums) - 1:
                    sums.append(sums[-1] + size)
                else:
                    sums = self._entered_sums = None
            held.append(message)
            src.append(index)
            tokens += size
            turns += boundaries[index]
            if systems[index]:
                system_tokens += size
            else:
                non_system += 1
            if message.role == USER:
                users.append(index)
        self._add_span(run, stop)
        self.tokens += tokens
        self.turns += turns
        self.non_system += non_system
        self._system_tokens += system_tokens

    def _add_span(self, start: int, stop: int) -> None:
        """Natives ``[start, stop)`` entered in order: the sent ranges grow as :meth:`enter` grows them."""
        if start < stop:
            spans = self.spans
            if spans and spans[-1][1] == start:
                spans[-1] = (spans[-1][0], stop)
            else:
                spans.append((start, stop))

    def sources(self, held_indices: Sequence[int | None]) -> list[int | None]:
        """Native sources of positions in the held history (``None`` stays the breadcrumb)."""
        return [None if k is None else self.src[k] for k in held_indices]

    def adopt(self, history: Sequence[ChatMessage], sources: list[int | None], call: int, rule: str) -> None:
        """Replace the held history with a trim's result; what it left out is dropped at ``call``."""
        kept = {s for s in sources if s is not None}
        for s in self.src:
            if s is not None and s not in kept and self.dropped_at[s] == 0:
                self.dropped_at[s] = call
                self.drop_rules[s] = rule
        self.held, self.src = list(history), sources
        self.generation += 1
        spans, self.crumb_at = ranges(sources)
        self.spans = list(spans)
        self.tokens, self.turns, self.non_system = self._facts.count(self.held, sources)
        self._stale = True

    def _refresh(self) -> None:
        if self._stale:
            pairs = list(zip(self.held, self.src, strict=True))
            self._users = [s for m, s in pairs if s is not None and m.role == USER]
            self._users_from = 0
            self._system_tokens = sum(self._facts.of(m, s)[0] for m, s in pairs if m.role == SYSTEM)
            self._stale = False

    def system_tokens(self) -> int:
        """``estimate_system_floor_tokens`` of the held history, kept as a running sum."""
        if self._stale:
            self._refresh()
        return self._system_tokens

    def recent_turns(self, max_turns: int, flag: bool) -> tuple[int, int, int] | None:
        """PR 9368 ``trim_to_recent_turn_count`` of the held history, told from the bookkeeping.

        Returns:
            ``(prefix, first kept position, kept turns)`` when it trims, ``None`` when it keeps all.

        Raises:
            LookupError: when the held history is not one the bookkeeping can answer for (a
                breadcrumb after the prefix); the caller then runs the runtime's function.
        """
        if self._stale:
            self._refresh()
        held, src = self.held, self.src
        leading = leading_system_count(held)
        prefix = leading + (1 if flag and len(held) > leading else 0)
        if self.crumb_at is not None and self.crumb_at >= prefix:
            raise LookupError("a breadcrumb inside the body")
        if prefix >= len(held):
            return None
        # Body boundaries (any ``user`` row) are the held user messages from the body's first source on:
        # sources ascend through the held history, and the prefix holds systems and the breadcrumb only.
        first = src[prefix]
        assert first is not None
        lo = bisect_left(self._users, first, self._users_from)
        total = len(self._users) - lo
        if total <= max_turns or total <= 1:
            return None
        kept = min(max(max_turns, 1), total)
        start = bisect_left(src, self._users[lo + total - kept], prefix)  # type: ignore[type-var]
        return prefix, start, kept

    def recent_turns_within(self, budget: int, flag: bool) -> tuple[int, int, int, int] | None:
        """PR 9368 ``trim_to_recent_turns_pr9368`` of the held history, told from the bookkeeping.

        The estimate of the body from any held user on is a difference of running sums of the entry
        estimates, so the oldest turn whose drop makes the history fit is found by bisection.

        Returns:
            ``(prefix, first kept position, kept turns, estimate after)`` when it trims, ``None`` when
            it keeps all.

        Raises:
            LookupError: when the held history is not one the bookkeeping can answer for (a breadcrumb
                after the prefix, a body that is not one run of natives as they entered); the caller
                then runs the runtime's function.
        """
        if self._stale:
            self._refresh()
        held, src, sums = self.held, self.src, self._entered_sums
        leading, size = 0, len(held)
        while leading < size and held[leading].role == SYSTEM:  # ``leading_system_count``, inlined
            leading += 1
        prefix = leading + (1 if flag and len(held) > leading else 0)
        if sums is None or (self.crumb_at is not None and self.crumb_at >= prefix):
            raise LookupError("a breadcrumb inside the body, or natives entered out of order")
        if prefix >= len(held):
            return None
        first, last = src[prefix], src[-1]
        assert first is not None and last is not None
        lo = bisect_left(self._users, first, self._users_from)
        total = len(self._users) - lo
        if budget == 0 or self.tokens <= budget or total <= 1:
            return None
        prefix_tokens = 0
        for k in range(prefix):  # the leading systems and the breadcrumb: a message or two
            prefix_tokens += self._facts.of(held[k], src[k])[0]
        end = sums[last + 1]
        if last - first != len(held) - prefix - 1 or prefix_tokens + end - sums[first] != self.tokens:
            raise LookupError("the body is not one run of natives as they entered")
        # The first user after the body's first whose suffix fits; the newest turn stays regardless.
        room, users = budget - prefix_tokens, self._users
        a, b = lo + 1, lo + total
        while a < b:
            mid = (a + b) // 2
            if end - sums[users[mid]] <= room:
                b = mid
            else:
                a = mid + 1
        k = min(a, lo + total - 1)
        return prefix, prefix + users[k] - first, total - (k - lo), prefix_tokens + end - sums[users[k]]

    def cut(self, start: int, stop: int, crumb: ChatMessage | None, call: int, rule: str) -> None:
        """:meth:`adopt` of a trim that kept ``held[:start]`` and ``held[stop:]`` and put ``crumb`` (if any)
        at ``start``, at the cost of what it dropped (the body's sources ascend, with no breadcrumb)."""
        if self._stale:
            self._refresh()
        self.generation += 1
        held, src, facts = self.held, self.src, self._facts
        dropped_at, drop_rules = self.dropped_at, self.drop_rules
        # The stored natives' facts read in place (the facts' own answer for them), others asked.
        stored = self._stored or ((), (), (), ())
        messages, sizes, boundaries, systems = stored
        tokens = turns = non_system = users = system_tokens = 0
        first: int | None = None
        for k in range(start, stop):
            message, source = held[k], src[k]
            if source is None:
                size, boundary, system = facts.of(message, source)
            else:
                if first is None:
                    first = source
                if messages and messages[source] is message:
                    size, boundary, system = sizes[source], boundaries[source], systems[source]
                else:
                    size, boundary, system = facts.of(message, source)
                users += message.role == USER
                if dropped_at[source] == 0:
                    dropped_at[source] = call
                    drop_rules[source] = rule
            tokens += size
            turns += boundary
            if system:
                system_tokens += size
            else:
                non_system += 1
        if users:
            # The dropped users are one block of ``_users``: its front (a turn cap), or the block after a
            # kept anchor (the legacy cap).
            assert first is not None
            lo = bisect_left(self._users, first, self._users_from)
            if lo == self._users_from:
                self._users_from += users
            else:
                del self._users[lo : lo + users]
        del held[start:stop], src[start:stop]
        self.tokens -= tokens
        self.turns -= turns
        self.non_system -= non_system
        self._system_tokens -= system_tokens
        body = start
        if crumb is not None:
            held.insert(start, crumb)
            src.insert(start, None)
            size, boundary, system = facts.of(crumb, None)
            self.tokens += size
            self.turns += boundary
            self.non_system += not system
            self._system_tokens += size if system else 0
            body += 1
        self._respan(body)

    def _respan(self, body: int) -> None:
        """Sent ranges and breadcrumb position after a cut: the head counted, the body one range."""
        src = self.src
        if body == 1 and src[0] is None:  # the head is the breadcrumb alone (most trims)
            self.spans, self.crumb_at = [], 0
        else:
            spans, self.crumb_at = ranges(src[:body])
            self.spans = list(spans)
        if body < len(src):
            first, last = src[body], src[-1]
            assert first is not None and last is not None
            if last - first != len(src) - body - 1:
                spans, self.crumb_at = ranges(src)  # not one run: counted in full
                self.spans = list(spans)
            elif self.spans and self.spans[-1][1] == first:
                self.spans[-1] = (self.spans[-1][0], last + 1)
            else:
                self.spans.append((first, last + 1))
