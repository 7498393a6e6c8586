"""What each stored message of a replayed session weighs for OpenClaw 2026.9.6's transforms, worked out once.

The history only grows between a replay's calls and its messages are the same objects call after call, so
:class:`StoredFacts` works out, in one pass over the session at the first call, projection keys, the
provider budget's text budget, the guard's size, running sums over them, where the users and assistants
are and which messages history image cleanup would change; completed turns are counted as they arrive
(the cleanup's boundary). ``cacheTtlMessageChars`` is summed only once a call needs it (a route with
server-side tool clearing and no compaction never does).

The one-pass part (:class:`SessionFacts`, with what each message the cleanup changes weighs once cleaned)
depends on the messages alone: a replay of a prepared session keeps it with the preparation, so a knob
change or another profile reads the facts its first replay made.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate, compress, repeat
from operator import is_, lt

from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.runtimes.openclaw.image_prune import (
    PRESERVE_RECENT_COMPLETED_TURNS,
    cleaned_message,
    cleanup_changes,
)
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    message_kinds,
)
from simulator.runtimes.openclaw.v2026_9_6 import provider_budget
from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import (
    IMAGE_CHARS,
    message_chars,
    projection_key,
    source_texts,
)
from simulator.runtimes.openclaw.v2026_9_6.context_guard import TOOL_IMAGE_CHARS, guard_message_chars


@dataclass(slots=True)
class Weights:
    """What a message weighs for each transform (a stored one's own, or a rewrite's)."""

    mc: int
    """``cacheTtlMessageChars``."""
    tb: int
    """The provider budget's text budget (0 for a message that is not a tool result)."""
    guard: int
    """The 2026.9.6 guard's size (0 for a stored message that is not a tool result: nothing else is cut)."""


def weights_of(message: AgentMessage) -> Weights:
    return Weights(message_chars(message), provider_budget.text_budget(message), guard_message_chars(message))


def typed_weights(message: AgentMessage) -> Weights | None:
    """:func:`weights_of` of a tool result whose blocks are ASCII text and images holding only their own
    fields (so each block's JSON type is its class's), read from the blocks' classes; else ``None``.

    A screenshot result, stored or cleaned (its image a text marker), is one: the general functions build
    every block's JSON three times over to ask its type. On ASCII a text weighs its length (twice it for
    the guard), an image the pass's and the guard's fixed estimates; an excluded result weighs nothing to
    the guard."""
    if type(message) is not ToolResultMessage:
        return None
    content = message.content
    if type(content) is not tuple:
        return None
    chars = images = 0
    for block in content:
        kind = type(block)
        if kind is TextContent and not block.extra:  # type: ignore[union-attr]
            text = block.text  # type: ignore[union-attr]
            if not text.isascii():
                return None
            chars += len(text)
        elif kind is ImageContent and not block.extra:  # type: ignore[union-attr]
            images += 1
        else:
            return None
    for name, value in message.extra:
        if name == "excludeFromContext" and value is True:
            return Weights(chars + IMAGE_CHARS * images, chars, 0)
    return Weights(chars + IMAGE_CHARS * images, chars, 2 * chars + TOOL_IMAGE_CHARS * images)


def weights_typed_or_of(message: AgentMessage) -> Weights:
    """:func:`typed_weights` when it answers, else :func:`weights_of` (the reference)."""
    return typed_weights(message) or weights_of(message)


def plain_text_chars(message: AgentMessage) -> int:
    """Σ of the lengths of a message's texts when every text is ASCII and every block plain, else -1.

    Plain: a user's string content, or a tuple of :class:`TextContent` blocks (and, for an assistant,
    :class:`ToolCall` blocks, counted 0 here). On ASCII every 2026.9.6 weighting is the length itself (and
    2026.7.1's too), so such a message's ``cacheTtlMessageChars`` is its 2026.7.1 estimate, and a tool
    result's text budget is this sum (its guard size twice it), without building any block's JSON.
    """
    if isinstance(message, UserMessage):
        content = message.content
        if isinstance(content, str):
            return len(content) if content.isascii() else -1
        calls = False
    elif isinstance(message, ToolResultMessage):
        content, calls = message.content, False
    elif isinstance(message, AssistantMessage):
        content, calls = message.content, True
    else:
        return -1
    if not isinstance(content, tuple):
        return -1
    total = 0
    for block in content:
        if isinstance(block, TextContent):
            if not block.text.isascii():
                return -1
            total += len(block.text)
        elif not (calls and isinstance(block, ToolCall)):
            return -1
    return total


def _result_weights(message: ToolResultMessage) -> tuple[int, int]:
    """A stored tool result's text budget and 2026.9.6 guard size."""
    plain = plain_text_chars(message)
    if plain < 0:
        typed = typed_weights(message)
        if typed is not None:
            return typed.tb, typed.guard  # a screenshot's result
        return provider_budget.text_budget(message), guard_message_chars(message)
    # The guard counts a result's text twice, or nothing when it is excluded from the context.
    excluded = any(name == "excludeFromContext" and value is True for name, value in message.extra)
    return plain, 0 if excluded else 2 * plain


_MAX_SAFE = 2**53
"""Below it in size an integer's JavaScript text is its decimal text (``js_number_to_string``)."""


def _result_facts(message: ToolResultMessage) -> tuple[str | None, int, int, tuple[str, ...] | None]:
    """A stored tool result's projection key, text budget, 2026.9.6 guard size and source texts when it
    has one text block (``None`` otherwise), its extra fields read once for all (``projection_key`` and
    :func:`_result_weights`, one text block read directly)."""
    timestamp: object = None
    excluded = False
    key: str | None
    for name, value in message.extra:
        if name == "timestamp":
            timestamp = value  # the last one named wins, as in a dict of them
        elif name == "excludeFromContext" and value is True:
            excluded = True
    if type(timestamp) is int and -_MAX_SAFE < timestamp < _MAX_SAFE:
        # js_number_to_string of a safe integer is its decimal text (one string made, not two).
        call_id = message.tool_call_id
        key = f"tool:{call_id}:{timestamp}" if call_id else f"timestamp:{timestamp}"
    else:
        key = projection_key(message)
    content = message.content
    texts: tuple[str, ...] | None = None
    if type(content) is tuple and len(content) == 1 and type(content[0]) is TextContent:
        text = content[0].text
        texts = (text,)  # source_texts of one text block
        if text.isascii():
            return key, len(text), 0 if excluded else 2 * len(text), texts
    tb, guard = _result_weights(message)
    return key, tb, guard, texts


def sources_of(message: AgentMessage) -> tuple[str, ...]:
    """:func:`source_texts`, read straight from text blocks when every block is one (their JSON is theirs)."""
    content = message.content if isinstance(message, ToolResultMessage) else None
    if isinstance(content, tuple) and len(content) == 1 and type(content[0]) is TextContent:
        return (content[0].text,)  # one text block (most results)
    if isinstance(content, tuple) and all(isinstance(b, TextContent) for b in content):
        return tuple([b.text for b in content if isinstance(b, TextContent)])  # every block is one
    return source_texts(message)


@dataclass(frozen=True, slots=True, eq=False)
class CleanedWeights:
    """What a message history image cleanup changes weighs once cleaned (what sending it cleaned moves in
    the sums: ``FastTransforms2026_9._set_current`` of the cleaned message)."""

    same: bool
    """The cleaned copy equals the stored message (it is sent as stored)."""
    weights: Weights
    """Its weights (a message that is not a tool result weighs only its ``cacheTtlMessageChars``)."""
    estimate: int
    """Its ``estimate_message_chars``."""
    dirty: bool
    """History image cleanup's second pass would change it again (``cleanup_changes``)."""


def cleaned_weights(native: AgentMessage, cleaned: AgentMessage) -> CleanedWeights:
    """:class:`CleanedWeights` of ``cleaned``, the copy of ``native`` history image cleanup sends."""
    if cleaned is native or cleaned == native:
        return CleanedWeights(True, Weights(0, 0, 0), -1, False)  # the stored message's own weights apply
    if isinstance(native, ToolResultMessage):
        weights = weights_typed_or_of(cleaned)
    else:
        weights = Weights(message_chars(cleaned), 0, 0)  # as the stored message's own
    return CleanedWeights(False, weights, estimate_message_chars(cleaned), cleanup_changes(cleaned))


@dataclass(frozen=True, slots=True, eq=False)
class SessionFacts:
    """What :class:`StoredFacts` works out of a session's stored messages in one pass: a function of the
    messages (and the positions cleanup may change) alone, so every 2026.9.6 replay of the session (a knob
    change, another profile) reads the one its first replay made. Never changed once made (the lists and
    dicts are read, not grown: what grows per replay is :class:`StoredFacts`' own)."""

    kinds: list[type | None]
    users: list[int]
    assistants: list[int]
    keys: list[str | None]
    tb_own: list[int]
    guard_own: list[int]
    texts: list[tuple[str, ...] | None]
    position: dict[str, int]
    first_bad: int
    result_positions: list[int]
    keyed: list[int]
    tb: list[int]
    tbn: list[int]
    results: list[int]
    cleaned: dict[int, AgentMessage]
    cleaned_weights: dict[int, CleanedWeights]
    cleanable: list[int]


def session_facts(natives: Sequence[AgentMessage], media: Sequence[int]) -> SessionFacts:
    """:class:`SessionFacts` of ``natives`` (``media``: the natives history image cleanup may change, an
    over-approximation)."""
    count = len(natives)
    kinds = message_kinds(natives)
    # The positions of each kind, and the running count of results, selected in C (no loop here).
    is_result = list(map(is_, kinds, repeat(ToolResultMessage)))
    results = list(compress(range(count), is_result))
    users = list(compress(range(count), map(is_, kinds, repeat(UserMessage))))
    assistants = list(compress(range(count), map(is_, kinds, repeat(AssistantMessage))))
    keys: list[str | None] = [None] * count
    tb_own, guard_own = [0] * count, [0] * count
    texts: list[tuple[str, ...] | None] = [None] * count
    position: dict[str, int] = {}
    first_bad = count
    for i in results:
        message = natives[i]
        assert isinstance(message, ToolResultMessage)
        key, tb_own[i], guard_own[i], found = _result_facts(message)
        keys[i] = key
        if key is None or key in position:
            first_bad = min(first_bad, i)
        else:
            position[key] = i
        # A keyed result's source texts are logged when it is first sent: read once, here.
        texts[i] = found if found is not None or key is None else sources_of(message)
    cleaned: dict[int, AgentMessage] = {}
    weights: dict[int, CleanedWeights] = {}
    for i in sorted(set(media)):
        native = natives[i]
        message = cleaned_message(native)
        if message is not native:  # cleanup_changes(native), from the copy it makes anyway
            cleaned[i] = message
            weights[i] = cleaned_weights(native, message)
    return SessionFacts(
        kinds,
        users,
        assistants,
        keys,
        tb_own,
        guard_own,
        texts,
        position,
        first_bad,
        results,
        [i for i in results if keys[i] is not None],
        list(accumulate(tb_own, initial=0)),
        list(accumulate(map(lt, repeat(0), tb_own), initial=0)),  # results with some text
        list(accumulate(is_result, initial=0)),
        cleaned,
        weights,
        list(cleaned),
    )


@dataclass(slots=True)
class _Turns:
    """``completed_turn_starts`` (2026.9.6: closed turns only) over ``natives[lo:]``, grown call by call."""

    starts: list[int] = field(default_factory=list)
    current: int = -1
    replied: bool = False
    fed: int = -1


class StoredFacts:
    """Facts of ``natives[:fed]``; :meth:`feed` grows them to a call's history."""

    def __init__(
        self,
        natives: Sequence[AgentMessage],
        media: Sequence[int],
        chars: Sequence[int] | None = None,
        kept: list[SessionFacts] | None = None,
    ) -> None:
        self.natives = natives
        self.chars = chars
        """Each stored message's ``estimate_message_chars``, when the caller made them once (prepared)."""
        n = len(natives)
        self._media = media
        """The natives history image cleanup may change (an over-approximation)."""
        self._kept = kept
        """Where the session's :class:`SessionFacts` are kept between replays (``[]`` until the first
        replay made them; ``None``: made for this replay alone)."""
        self.cleanable: list[int] = []
        """Stored messages history image cleanup changes once they are old enough, ascending."""
        self.cleaned: dict[int, AgentMessage] = {}
        """Each of ``cleanable`` as the cleanup sends it (``cleaned_message``): told once, when fed, since
        telling whether the cleanup changes a message is making its cleaned copy."""
        self.cleaned_weights: dict[int, CleanedWeights] = {}
        """Each of ``cleanable``'s weights once cleaned."""
        self._turns: dict[int, _Turns] = {}
        self.fed = 0
        self.keys: list[str | None] = []
        self.texts: list[tuple[str, ...] | None] = []
        """A keyed tool result's source texts (``source_texts``), else ``None``."""
        self.tb_own: list[int] = []
        self.guard_own: list[int] = []
        self.mc = [0]
        """Running sums of ``cacheTtlMessageChars``, grown by :meth:`mc_to` only."""
        self.tb = [0]
        """Running sums of the tool results' text budgets."""
        self.tbn = [0]
        """Running counts of tool results with some text."""
        self.results = [0]
        """Running counts of tool results."""
        self.users: list[int] = []
        self.assistants: list[int] = []
        self.kinds: list[type | None] = []
        """Each message's kind (``message_kinds``), once fed."""
        self.position: dict[str, int] = {}
        """Projection key → the tool result that has it."""
        self.first_bad = n
        """The first tool result whose key is missing or repeats (every call past it falls back)."""
        self.result_positions: list[int] = []
        """The tool results' positions, ascending."""
        self.keyed: list[int] = []
        """The positions of the tool results with a projection key, ascending."""

    def feed(self, end: int) -> None:
        """Facts of the whole session, worked out the first time a call needs any (``end`` past ``fed``), or
        read from an earlier replay of the session (:class:`SessionFacts`).

        Every fact is the message's own (or a sum over the messages before it), so facts of messages past a
        call's history change nothing the call reads: its readers bound every search by the call's end. One
        pass over the session costs less than growing the facts call by call."""
        if self.fed >= end:
            return
        kept = self._kept
        if kept:
            facts = kept[0]
        else:
            facts = session_facts(self.natives, self._media)
            if kept is not None:
                kept.append(facts)  # two replays at once may both make them: equal facts, the first kept
        self.kinds, self.users, self.assistants = facts.kinds, facts.users, facts.assistants
        self.keys, self.tb_own, self.guard_own, self.texts = (
            facts.keys,
            facts.tb_own,
            facts.guard_own,
            facts.texts,
        )
        self.position, self.first_bad = facts.position, facts.first_bad
        self.result_positions, self.keyed = facts.result_positions, facts.keyed
        self.tb, self.tbn, self.results = facts.tb, facts.tbn, facts.results
        self.cleaned, self.cleaned_weights, self.cleanable = (
            facts.cleaned,
            facts.cleaned_weights,
            facts.cleanable,
        )
        self.fed = len(self.natives)

    def own(self, position: int) -> Weights:
        """A stored message's weights."""
        return Weights(self.mc_of(position), self.tb_own[position], self.guard_own[position])

    def estimate(self, position: int) -> int:
        """A stored message's ``estimate_message_chars``."""
        if self.chars is not None:
            return self.chars[position]
        return estimate_message_chars(self.natives[position])

    def mc_to(self, end: int) -> list[int]:
        """The running sums of ``cacheTtlMessageChars``, grown to cover the first ``end`` messages."""
        mc = self.mc
        if len(mc) > end:
            return mc
        own = self._own_mc
        for position in range(len(mc) - 1, end):
            mc.append(mc[-1] + own(position))
        return mc

    def mc_of(self, position: int) -> int:
        mc = self.mc
        if len(mc) > position + 1:
            return mc[position + 1] - mc[position]
        # Sized alone: a cleanup or a strip of a session no pass ran in needs no running sums before it.
        return self._own_mc(position)

    def _own_mc(self, position: int) -> int:
        """One stored message's ``cacheTtlMessageChars``."""
        message, chars = self.natives[position], self.chars
        # A plain ASCII message weighs its 2026.7.1 estimate (made once, when prepared).
        if chars is not None and plain_text_chars(message) >= 0:
            return chars[position]
        typed = typed_weights(message)
        return typed.mc if typed is not None else message_chars(message)

    def next_user(self, end: int) -> int:
        """The first user message at or after ``end`` (the session's length when none is, or when the
        facts are not fed yet: then ``end``). History image cleanup's cutoff over ``natives[lo:e]`` is
        the same for every ``e`` from ``end`` up to it: only a user message closes a turn."""
        if self.fed < len(self.natives):
            return end
        users = self.users
        k = bisect_left(users, end)
        return users[k] if k < len(users) else len(self.natives)

    def _count_turns(self, turns: _Turns, end: int) -> None:
        """:meth:`_count_turns_read` from the messages' kinds (compared, not asked of each message), the
        turn's state in locals: a replay counts every message of the session once."""
        kinds, starts = self.kinds, turns.starts
        fed, current, replied = turns.fed, turns.current, turns.replied
        user, result, assistant = UserMessage, ToolResultMessage, AssistantMessage
        for kind in kinds[fed:end]:
            if kind is user:
                if current >= 0 and replied:
                    starts.append(current)
                current, replied = fed, False
            elif kind is result:
                if current < 0:
                    current, replied = fed, False
            elif kind is assistant and current >= 0:
                replied = True
            fed += 1
        turns.fed, turns.current, turns.replied = fed, current, replied

    def _count_turns_read(self, turns: _Turns, end: int) -> None:
        """Completed turns over ``natives[turns.fed:end]`` counted into ``turns`` (``completed_turn_starts``
        with 2026.9.6's rule), each message asked its class (the reference of :meth:`_count_turns`)."""
        natives = self.natives
        while turns.fed < end:
            message = natives[turns.fed]
            if isinstance(message, UserMessage):
                if turns.current >= 0 and turns.replied:
                    turns.starts.append(turns.current)
                turns.current, turns.replied = turns.fed, False
            elif isinstance(message, ToolResultMessage):
                if turns.current < 0:
                    turns.current, turns.replied = turns.fed, False
            elif isinstance(message, AssistantMessage) and turns.current >= 0:
                turns.replied = True
            turns.fed += 1

    def cutoff(self, lo: int, end: int) -> int:
        """History image cleanup's boundary over ``natives[lo:end]``: messages before it are cleaned (``lo``
        when none are). A compaction's summary is no turn, so the count over the tail is the context's."""
        turns = self._turns.get(lo)
        if turns is None:
            turns = self._turns[lo] = _Turns(fed=lo)
        if turns.fed < end:
            if len(self.kinds) >= end:
                self._count_turns(turns, end)
            else:
                self._count_turns_read(turns, end)
        starts = turns.starts
        keep = PRESERVE_RECENT_COMPLETED_TURNS
        return starts[-keep] if len(starts) > keep else lo
