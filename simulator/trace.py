"""Trace a fact through a replay: which calls held a message in full, when it left or changed, and why.

Answers "why did my agent forget X?" from what a replay already records (``CallRecord.sent``, its fate
groups, ``SimulationResult.content_changes``, ``dropped_at``/``drop_rules``): nothing is re-simulated.
A query (text, regular expression, file path or tool-call id) selects transcript messages; for each,
the per-call presence (in full, changed by a content rule, gone) gives the strip the pages draw, the
first call where it stopped being sent in full, and the rule that decided it, named in the issue's
terms (dropped turn, turn-count cap, soft-trimmed, hard-cleared, image removed, truncated, overflow
retry). For a soft-trimmed or truncated message the text as sent is compared with the original to say
whether the matched text survived in the kept head or tail.

Re-reads after forgetting: the agent calling the same tool with the same arguments again at a call
where the earlier result was no longer in the context in full — the visible cost of forgetting.

Cost: one pass over the transcript for matching and re-reads; per matched message one pass over the
calls with an O(ranges + groups) membership test each, so a trace is linear in session length for a
given number of matches.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from simulator.errors import SimulatorError
from simulator.jsonvalue import JSON
from simulator.long_lived import collector_paused
from simulator.replay.model import CallRecord, Change, Fate, SimulationResult
from simulator.transcript import Message, Transcript

RuleKind = Literal[
    "dropped-turn",
    "turn-cap",
    "soft-trimmed",
    "hard-cleared",
    "image-removed",
    "truncated",
    "overflow-retry",
    "thinking-dropped",
    "compacted",
]
State = Literal["full", "changed", "gone"]
Survival = Literal["head", "tail", "head and tail", "cut"]

_CONTENT_FATES: Mapping[Fate, RuleKind] = {
    Fate.SOFT_TRIMMED: "soft-trimmed",
    Fate.HARD_CLEARED: "hard-cleared",
    Fate.TRUNCATED: "truncated",
    Fate.IMAGE_REPLACED: "image-removed",
    # OpenClaw's attempt pipeline: thinking blocks dropped, history folded into a compaction summary.
    Fate.THINKING_DROPPED: "thinking-dropped",
    Fate.COMPACTED: "compacted",
}


class TraceQueryError(SimulatorError):
    """A trace query that cannot be searched for (empty, or a regular expression that does not compile)."""

    def __init__(self, problem: str, *, query: str, name: str = "--find") -> None:
        self.problem = problem
        super().__init__(f"{name} {query!r}: {problem}", {"field": name, "query": query, "problem": problem})


@dataclass(frozen=True, slots=True)
class Query:
    """What to look for. Plain text matches case-insensitively; a regular expression as written."""

    text: str
    pattern: re.Pattern[str]

    @classmethod
    def parse(cls, text: str, *, regex: bool = False, name: str = "--find") -> Query:
        """Compile ``text``.

        Args:
            text: The query.
            regex: Read ``text`` as a regular expression.
            name: What the caller calls the query (``--find`` on the CLI, ``find`` in the API), for errors.

        Raises:
            TraceQueryError: empty query, or an invalid regular expression (with the position).
        """
        if not text.strip():
            raise TraceQueryError("empty query", query=text, name=name)
        try:
            pattern = re.compile(text if regex else re.escape(text), 0 if regex else re.IGNORECASE)
        except re.error as exc:
            where = f" at position {exc.pos}" if exc.pos is not None else ""
            problem = f"invalid regular expression: {exc.msg}{where}"
            raise TraceQueryError(problem, query=text, name=name) from exc
        return cls(text, pattern)

    def spans(self, text: str) -> tuple[tuple[int, int], ...]:
        return tuple(m.span() for m in self.pattern.finditer(text) if m.end() > m.start())


@dataclass(frozen=True, slots=True)
class PresenceRun:
    """Consecutive calls ``first..last`` (1-based, inclusive) at which a message had one state."""

    first: int
    last: int
    state: State


@dataclass(frozen=True, slots=True)
class Departure:
    """The call at which a message stopped being sent in full, and the rule that decided it."""

    call: int
    kind: RuleKind
    rule: str
    survived: Survival | None = None
    """For a soft-trimmed or truncated message whose text matched: where the matched text survived."""
    native: int | None = None
    """The native message the rule changed or dropped (for the before/after view)."""


@dataclass(frozen=True, slots=True)
class Match:
    message_index: int
    role: str
    natives: tuple[int, ...]
    """The runtime's native messages built from it (empty: sent outside the trimmed history)."""
    in_context: tuple[int, int] | None
    """First and last call at which it was sent in full (``None``: never)."""
    departure: Departure | None
    """``None``: it never left or changed while the session lasted."""
    runs: tuple[PresenceRun, ...]
    excerpt: str


@dataclass(frozen=True, slots=True)
class Reread:
    """The same tool with the same arguments called again after its earlier result left the context."""

    tool: str
    arguments: str
    first_call_index: int
    """Transcript index of the assistant message that made the earlier call."""
    result_index: int
    """Transcript index of the earlier result."""
    again_index: int
    """Transcript index of the assistant message that called it again."""
    again_call: int
    """Model call number whose reply made the repeated call."""
    state: State
    """What had become of the earlier result at that call."""
    left_at_call: int | None
    kind: RuleKind | None


@dataclass(frozen=True, slots=True)
class Trace:
    query: str
    calls: int
    matches: tuple[Match, ...]
    rereads: tuple[Reread, ...]
    more: int = 0
    """Matching messages beyond ``limit``: counted, not followed."""


# -- where a native message stands at one call -------------------------------------------------------------


def _sent(call: CallRecord, native: int) -> bool:
    return any(start <= native < end for start, end in call.sent)


def _drop_kind(rule: str, call: CallRecord, *, own: bool) -> RuleKind:
    """The issue's name for a drop. ``own``: the rule is the message's own (ZeroClaw records which rule
    dropped each message for good); otherwise it is the call's, and a call that needed overflow
    retries dropped what its first attempt kept."""
    if rule.startswith("provider") or (not own and call.retries and call.overflow != "none"):
        return "overflow-retry"
    if "max_history_messages" in rule:
        return "turn-cap"
    return "dropped-turn"


def _native_state(
    result: SimulationResult, call: CallRecord, native: int, entry: Mapping[int, Change]
) -> tuple[State, RuleKind | None, str]:
    if not _sent(call, native):
        own = result.drop_rules[native] if native < len(result.drop_rules) else ""
        rule = own or call.drop_rule or "not sent"
        return "gone", _drop_kind(rule, call, own=bool(own)), rule
    for group in call.fated:
        kind = _CONTENT_FATES.get(group.fate)
        if kind is not None and native in group.indices:
            return "changed", kind, group.rule
    change = entry.get(native)
    if change is not None and change.call <= call.number:
        return "changed", _CONTENT_FATES.get(change.fate, "truncated"), change.rule
    return "full", None, ""


def _message_state(
    result: SimulationResult, call: CallRecord, natives: Sequence[int], entry: Mapping[int, Change]
) -> tuple[State, RuleKind | None, str, int | None]:
    """The worst state of a transcript message's natives at ``call``, with the native that has it."""
    worst: tuple[State, RuleKind | None, str, int | None] = ("full", None, "", None)
    for native in natives:
        state, kind, rule = _native_state(result, call, native, entry)
        if state == "gone":
            return state, kind, rule, native
        if state == "changed" and worst[0] == "full":
            worst = (state, kind, rule, native)
    return worst


# -- matching ------------------------------------------------------------------------------------------


def searchable_text(message: Message) -> str:
    """Everything a query can match in a message: its text, tool calls (name, id, arguments), result id."""
    parts = [message.text]
    parts += [f"{c.name} {c.id} {c.arguments}" for c in message.tool_calls]
    if message.tool_result is not None:
        parts.append(message.tool_result.call_id)
    return "\n".join(p for p in parts if p)


def _excerpt(text: str, span: tuple[int, int] | None, width: int = 60) -> str:
    if span is None:
        flat = " ".join(text.split())
        return flat[: 2 * width] + ("…" if len(flat) > 2 * width else "")
    start, end = span
    left, right = max(0, start - width), min(len(text), end + width)
    body = " ".join(text[left:right].split())
    return ("…" if left else "") + body + ("…" if right < len(text) else "")


# -- what was cut -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Piece:
    text: str
    kind: Literal["kept", "cut", "added"]


@dataclass(frozen=True, slots=True)
class BeforeAfter:
    """A changed message's text before and as sent, split into kept, cut and added pieces."""

    before: tuple[Piece, ...]
    after: tuple[Piece, ...]
    head: int
    """Characters of the original kept at the start."""
    tail: int
    """Characters of the original kept at the end."""


def before_after(before: str, after: str) -> BeforeAfter:
    """Split a rule's rewrite into the kept head, the cut middle and the kept tail.

    Content rules keep a head and/or a tail of the original and insert a note (OpenClaw's soft trim
    keeps both ends, a hard clear neither), so the longest prefix of the original found in the new
    text and the longest suffix found after it are what survived. A wrapper around the kept text
    (ZeroClaw sends a tool result as a JSON object) shows as added.
    """
    # Any prefix of a prefix found in ``after`` is found too (and so for suffixes): binary searches.
    low, high = 0, len(before)
    while low < high:
        mid = (low + high + 1) // 2
        if before[:mid] in after:
            low = mid
        else:
            high = mid - 1
    head = low
    # A head of a few characters is a coincidence (a bracket, a space), not a kept head.
    if head < 8 and head < len(before):
        head = 0
    start = after.find(before[:head]) if head else 0
    rest = after[start + head :]
    low, high = 0, len(before) - head
    while low < high:
        mid = (low + high + 1) // 2
        if before[len(before) - mid :] in rest:
            low = mid
        else:
            high = mid - 1
    tail = low
    # A tail of a few characters is a coincidence (a closing bracket), not a kept tail.
    if tail < 8 and tail < len(before) - head:
        tail = 0
    cut_end = len(before) - tail
    at = rest.find(before[cut_end:]) + start + head if tail else len(after)
    pieces_before = [Piece(before[:head], "kept"), Piece(before[head:cut_end], "cut")]
    pieces_before.append(Piece(before[cut_end:], "kept"))
    pieces_after = [Piece(after[:start], "added"), Piece(after[start : start + head], "kept")]
    pieces_after.append(Piece(after[start + head : at], "added"))
    pieces_after += [Piece(after[at : at + tail], "kept"), Piece(after[at + tail :], "added")]
    return BeforeAfter(
        tuple(p for p in pieces_before if p.text),
        tuple(p for p in pieces_after if p.text),
        head,
        tail,
    )


def sent_text(content: str) -> str:
    """The message text inside a native content: ZeroClaw holds a tool result as ``{"content": ...}`` JSON."""
    if content.startswith("{"):
        try:
            value: JSON = json.loads(content)
        except ValueError:
            return content
        inner = value.get("content") if isinstance(value, dict) else None
        if isinstance(inner, str):
            return inner
    return content


def survival(text: str, spans: Sequence[tuple[int, int]], cut: BeforeAfter) -> Survival | None:
    """Where the matched text survived a rewrite of ``text``: in the kept head, tail, both, or neither."""
    if not spans:
        return None
    in_head = any(end <= cut.head for _, end in spans)
    in_tail = any(start >= len(text) - cut.tail for start, _ in spans) if cut.tail else False
    if in_head and in_tail:
        return "head and tail"
    return "head" if in_head else "tail" if in_tail else "cut"


# -- the trace ----------------------------------------------------------------------------------------------


def _natives_of(result: SimulationResult) -> dict[int, list[int]]:
    natives: dict[int, list[int]] = {}
    for native, origin in enumerate(result.origins):
        for index in origin:
            natives.setdefault(index, []).append(native)
    return natives


def _first_call(result: SimulationResult, index: int) -> int:
    """0-based position of the first call that comes after transcript message ``index``."""
    calls = result.calls
    low, high = 0, len(calls)
    while low < high:
        mid = (low + high) // 2
        if calls[mid].message_index <= index:
            low = mid + 1
        else:
            high = mid
    return low


def _states(
    result: SimulationResult, index: int, natives: Sequence[int], entry: Mapping[int, Change]
) -> Iterator[tuple[CallRecord, State, RuleKind | None, str, int | None]]:
    for call in result.calls[_first_call(result, index) :]:
        if not natives:
            yield call, "full", None, "", None
            continue
        yield call, *_message_state(result, call, natives, entry)


ContentsAt = Callable[[int], Mapping[int, tuple[int, str]]]
"""Per call number: the text as sent of each native message a rule changed (``changed_contents``)."""


def _match(
    transcript: Transcript,
    result: SimulationResult,
    index: int,
    natives: Sequence[int],
    entry: Mapping[int, Change],
    spans: Sequence[tuple[int, int]],
    contents_at: ContentsAt | None,
) -> Match:
    message = transcript.messages[index]
    runs: list[PresenceRun] = []
    first_full = last_full = None
    departure: Departure | None = None
    for call, state, kind, rule, native in _states(result, index, natives, entry):
        if state == "full":
            first_full = first_full or call.number
            last_full = call.number
        elif departure is None and kind is not None:
            survived = None
            if state == "changed" and native is not None and contents_at is not None:
                after = contents_at(call.number).get(native)
                text = message.text
                if after is not None and text:
                    survived = survival(
                        text, [s for s in spans if s[1] <= len(text)], before_after(text, sent_text(after[1]))
                    )
            departure = Departure(call.number, kind, rule, survived, native)
        if runs and runs[-1].state == state and runs[-1].last == call.number - 1:
            runs[-1] = PresenceRun(runs[-1].first, call.number, state)
        else:
            runs.append(PresenceRun(call.number, call.number, state))
    in_context = (first_full, last_full) if first_full is not None and last_full is not None else None
    text = searchable_text(message)
    return Match(
        index,
        message.role.value,
        tuple(natives),
        in_context,
        departure,
        tuple(runs),
        _excerpt(text, spans[0] if spans else None),
    )


@lru_cache(maxsize=4096)
def _arguments_key(arguments: str) -> str:
    """Arguments compared as JSON values where they parse (key order and spacing do not matter).

    Memoised: a corpus evaluation asks again for every profile, and agents repeat their tool calls.
    """
    try:
        return json.dumps(json.loads(arguments), sort_keys=True, separators=(",", ":"))
    except ValueError:
        return arguments.strip()


def rereads(transcript: Transcript, result: SimulationResult) -> tuple[Reread, ...]:
    """Every tool call repeated (same tool, same arguments) after its earlier result left the context.

    One pass over the transcript; each repeat is checked at the one call whose reply made it. The
    collector is paused as a replay pauses it: the pass makes many small objects while a long session's
    are all alive, and a collection would walk them all.
    """
    with collector_paused():
        return _rereads(transcript, result)


def _rereads(transcript: Transcript, result: SimulationResult) -> tuple[Reread, ...]:
    natives = _natives_of(result)
    entry = {c.native_index: c for c in result.content_changes}
    call_of = {c.message_index: c for c in result.calls}
    result_of: dict[str, int] = {}
    for index, message in enumerate(transcript.messages):
        if message.tool_result is not None:
            result_of.setdefault(message.tool_result.call_id, index)
    latest: dict[tuple[str, str], tuple[int, int]] = {}
    found: list[Reread] = []
    departures: dict[int, tuple[int | None, RuleKind | None]] = {}
    forgotten: tuple[tuple[int, list[int]] | None] | None = None  # worked out at the first repeat
    for index, message in enumerate(transcript.messages):
        for tool_call in message.tool_calls:
            key = (tool_call.name, _arguments_key(tool_call.arguments))
            earlier = latest.get(key)
            call = call_of.get(index)
            if earlier is not None and call is not None:
                first_index, result_index = earlier
                state, kind, _, _ = _message_state(result, call, natives.get(result_index, ()), entry)
                if state != "full":
                    if result_index not in departures:
                        if forgotten is None:
                            forgotten = (_forgotten_from(result),)
                        departures[result_index] = _departure_call(
                            result, result_index, natives, entry, forgotten[0]
                        )
                    left, left_kind = departures[result_index]
                    found.append(
                        Reread(
                            tool_call.name,
                            tool_call.arguments,
                            first_index,
                            result_index,
                            index,
                            call.number,
                            state,
                            left,
                            left_kind or kind,
                        )
                    )
            answered = result_of.get(tool_call.id)
            if answered is not None:
                latest[key] = (index, answered)
    return tuple(found)


def _forgotten_from(result: SimulationResult) -> tuple[int, list[int]] | None:
    """``(head, starts)`` when every call forgets one run of natives ``head <= n < starts[call]`` (a kept
    head, then the most recent messages up to the call's end), ``head`` is the same at every call that
    forgets anything, no rule changed a message's content, and the starts never decrease (a runtime that
    forgets from the oldest message, as ZeroClaw and ai-profile do); else ``None``.

    Then a message is sent in full at a call exactly while it is in the head or not before that call's
    start, and the call where it departs is found by bisection instead of a pass over the calls.
    """
    if result.content_changes:
        return None
    forgotten: list[tuple[int, int]] = []
    for call in result.calls:
        if any(group.fate in _CONTENT_FATES for group in call.fated):
            return None
        sent = call.sent
        if not sent:
            if call.available:
                return None
            forgotten.append((0, 0))
        elif sent[-1][1] != call.available:
            return None
        elif len(sent) == 1:
            forgotten.append((0, sent[0][0]))
        elif len(sent) == 2 and sent[0][0] == 0 and sent[0][1] <= sent[1][0]:
            forgotten.append((sent[0][1], sent[1][0]))
        else:
            return None
    heads = {low for low, high in forgotten if high > low}
    if len(heads) > 1:
        return None
    head = heads.pop() if heads else 0
    starts: list[int] = []
    for low, high in forgotten:
        start = high if high > low else head
        if starts and start < starts[-1]:
            return None
        starts.append(start)
    return head, starts


def _departure_call(
    result: SimulationResult,
    index: int,
    natives: Mapping[int, Sequence[int]],
    entry: Mapping[int, Change],
    forgotten: tuple[int, Sequence[int]] | None = None,
) -> tuple[int | None, RuleKind | None]:
    """The first call after message ``index`` that did not send it in full, and why (as ``_states``).

    Most calls send it unchanged: those are recognised with a few comparisons, and only the call where
    it departs goes through :func:`_message_state` for its state and kind. ``forgotten`` (from
    :func:`_forgotten_from`) finds that call by bisection.
    """
    own = natives.get(index, ())
    if not own:
        return None, None
    first = _first_call(result, index)
    if forgotten is not None:
        head, starts = forgotten
        at = min(len(starts) if native < head else bisect_right(starts, native, lo=first) for native in own)
        if at == len(result.calls):
            return None, None
        state, kind, _, _ = _message_state(result, result.calls[at], own, entry)
        if state != "full":
            return result.calls[at].number, kind
        first = at  # not expected: the call-by-call pass below decides from there
    changed_from = min((entry[n].call for n in own if n in entry), default=None)
    # Read on from ``first`` without a copy of the calls after it: a message most often departs a few
    # calls later, and a long pruned session asks this for thousands of them.
    calls = result.calls
    for position in range(first, len(calls)):
        call = calls[position]
        if _unchanged(call, own) and (changed_from is None or changed_from > call.number):
            continue
        state, kind, _, _ = _message_state(result, call, own, entry)
        if state != "full":
            return call.number, kind
    return None, None


def _unchanged(call: CallRecord, natives: Sequence[int]) -> bool:
    """Every one of ``natives`` sent at ``call`` and none in a group a content rule changed there."""
    for native in natives:
        for start, end in call.sent:
            if start <= native < end:
                break
        else:
            return False
    return not any(
        group.fate in _CONTENT_FATES and any(n in group.indices for n in natives) for group in call.fated
    )


def trace(
    transcript: Transcript,
    result: SimulationResult,
    query: Query,
    *,
    contents_at: ContentsAt | None = None,
    limit: int | None = None,
) -> Trace:
    """Every transcript message matching ``query``, followed through ``result``'s calls.

    Args:
        transcript: The replayed transcript.
        result: Its replay.
        query: What to look for (``Query.parse``).
        contents_at: Text as sent of the messages a rule changed at a call (the facade's
            ``changed_contents`` bound to the profile); without it head/tail survival is not said.
        limit: Follow at most this many matches (each costs a pass over the calls); the rest are
            only counted, so a query matching most of a long session stays cheap.

    Returns:
        The matches in transcript order and the session's re-reads after forgetting.
    """
    natives = _natives_of(result)
    entry = {c.native_index: c for c in result.content_changes}
    cache: dict[int, Mapping[int, tuple[int, str]]] = {}

    def cached(number: int) -> Mapping[int, tuple[int, str]]:
        if number not in cache and contents_at is not None:
            cache[number] = contents_at(number)
        return cache.get(number, {})

    matches: list[Match] = []
    more = 0
    for index, message in enumerate(transcript.messages):
        spans = query.spans(message.text)
        if not spans and not query.spans(searchable_text(message)):
            continue
        if limit is not None and len(matches) >= limit:
            more += 1
            continue
        matches.append(
            _match(
                transcript,
                result,
                index,
                natives.get(index, ()),
                entry,
                spans,
                cached if contents_at is not None else None,
            )
        )
    return Trace(query.text, len(result.calls), tuple(matches), rereads(transcript, result), more)


def match_before_after(transcript: Transcript, match: Match, contents_at: ContentsAt) -> BeforeAfter | None:
    """The matched message before and as sent where a content rule changed it (``None``: unchanged)."""
    departure = match.departure
    if departure is None or departure.native is None or departure.kind not in _CONTENT_FATES.values():
        return None
    after = contents_at(departure.call).get(departure.native)
    if after is None:
        return None
    return before_after(transcript.messages[match.message_index].text, sent_text(after[1]))


def trace_to_json(found: Trace) -> dict[str, object]:
    """The CLI's ``--json`` shape: matches with their calls in context, departure and rule; re-reads;
    ``more``: matches past a ``limit``, counted but not followed."""
    return {
        "query": found.query,
        "calls": found.calls,
        "more": found.more,
        "matches": [
            {
                "message_index": m.message_index,
                "role": m.role,
                "in_context_calls": list(m.in_context) if m.in_context is not None else None,
                "left_at_call": m.departure.call if m.departure is not None else None,
                "rule": m.departure.kind if m.departure is not None else None,
                "rule_detail": m.departure.rule if m.departure is not None else None,
                "survived": m.departure.survived if m.departure is not None else None,
            }
            for m in found.matches
        ],
        "rereads": [
            {
                "tool": r.tool,
                "arguments": r.arguments,
                "result_index": r.result_index,
                "again_index": r.again_index,
                "again_call": r.again_call,
                "left_at_call": r.left_at_call,
                "rule": r.kind,
            }
            for r in found.rereads
        ],
    }
