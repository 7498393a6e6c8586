"""A transcript as an operator reads it: turns, per-message sizes by each counter, tool links, problems.

Pure view model for the dashboard's transcript page and the upload summary. A failed provider call (an
assistant message with ``error``) is labelled as one, developer instructions as such, and the lines a
JSON-lines file had to skip are named. Sizes: the ZeroClaw
estimate of the message as ZeroClaw would hold it (⌈UTF-8 bytes / 4⌉ + 4), an o200k tokenizer count of
its text, and the provider-reported input tokens where the transcript carries them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import msgspec

from simulator.convert import zeroclaw_chat_rows
from simulator.estimates import tiktoken_count
from simulator.long_lived import collector_paused
from simulator.runtimes.zeroclaw.estimate import estimate_text_tokens
from simulator.transcript import Message, Role, SkippedLine, Transcript
from simulator.turns import lint_tool_pairs, segment_turns

PREVIEW_CHARS = 280
LONG_CHARS = 1200
SKIPPED_SHOWN = 5
"""How many skipped lines are named one by one (the rest are counted)."""


@dataclass(frozen=True, slots=True)
class CallLink:
    id: str
    name: str
    arguments: str
    result_index: int | None


@dataclass(frozen=True, slots=True)
class ResultLink:
    call_id: str
    call_index: int | None
    is_error: bool


@dataclass(frozen=True, slots=True)
class MessageRow:
    index: int
    role: str
    role_label: str
    text: str
    preview: str
    char_count: int
    is_long: bool
    estimated_tokens: int
    tokenizer_tokens: int | None
    """The tokenizer count; None when not counted (yet)."""
    provider_input_tokens: int | None
    tool_calls: tuple[CallLink, ...]
    result_of: ResultLink | None
    flags: tuple[str, ...]
    images: int
    thinking: int
    error: str | None = None
    """The provider error of a failed call (the row is a failed call, not a reply)."""


@dataclass(frozen=True, slots=True)
class TurnBlock:
    key: str
    kind: Literal["system", "preamble", "turn"]
    label: str
    rows: tuple[MessageRow, ...]

    @property
    def estimated_tokens(self) -> int:
        return sum(r.estimated_tokens for r in self.rows)


@dataclass(frozen=True, slots=True)
class TranscriptSummary:
    message_count: int
    turn_count: int
    tool_pair_count: int
    orphan_count: int
    estimated_tokens: int


@dataclass(frozen=True, slots=True)
class TranscriptOverview:
    format: str
    message_count: int
    turn_count: int
    tool_pair_count: int
    estimated_tokens: int
    tokenizer_tokens: int
    provider_input_tokens: int | None
    blocks: tuple[TurnBlock, ...]
    problems: tuple[str, ...]
    warnings: tuple[str, ...]
    skipped_lines: tuple[SkippedLine, ...] = ()
    failed_calls: int = 0

    @property
    def skipped_note(self) -> str | None:
        """One sentence naming the skipped lines (count, then the first few with their reason)."""
        return skipped_lines_note(self.skipped_lines)


def skipped_lines_note(skipped: tuple[SkippedLine, ...]) -> str | None:
    """``"2 malformed lines skipped: line 3 (invalid JSON: …); line 9 (…)"``, or None when none was.

    Args:
        skipped: the transcript's skipped lines.

    Returns:
        The sentence, naming at most :data:`SKIPPED_SHOWN` lines and counting the rest.
    """
    if not skipped:
        return None
    shown = "; ".join(f"line {s.line} ({s.reason})" for s in skipped[:SKIPPED_SHOWN])
    more = f"; and {len(skipped) - SKIPPED_SHOWN} more" if len(skipped) > SKIPPED_SHOWN else ""
    plural = "s" if len(skipped) != 1 else ""
    return f"{len(skipped)} malformed line{plural} skipped: {shown}{more}"


def summarize(transcript: Transcript) -> TranscriptSummary:
    """The numbers stored with an upload (cheap: no tokenizer)."""
    pairs = lint_tool_pairs(transcript.messages)
    turns = segment_turns(transcript.messages)
    return TranscriptSummary(
        message_count=len(transcript.messages),
        turn_count=sum(1 for t in turns if t.kind == "turn"),
        tool_pair_count=len(pairs.pairs),
        orphan_count=len(pairs.orphan_calls) + len(pairs.orphan_results),
        estimated_tokens=sum(_zeroclaw_sizes(transcript.messages)),
    )


def _zeroclaw_sizes(messages: tuple[Message, ...]) -> list[int]:
    """Per transcript message: the ZeroClaw estimate of the native message(s) it became."""
    rows, origins_of = zeroclaw_chat_rows(messages)
    sizes = [0] * len(messages)
    for (_, content), origins in zip(rows, origins_of, strict=True):
        # A native message built from several transcript messages is charged to the first of them.
        if origins:
            sizes[origins[0]] += estimate_text_tokens(content)
    return sizes


def _role_label(message: Message) -> str:
    if message.error is not None:
        return "assistant · failed call"
    if message.variant == "developer_instructions":
        return "developer instructions"
    if message.role is Role.TOOL and message.tool_result is not None:
        name = message.tool_result.name
        return f"tool result · {name}" if name else "tool result"
    if message.role is Role.ASSISTANT and message.tool_calls:
        n = len(message.tool_calls)
        return f"assistant · {n} tool call{'s' if n != 1 else ''}"
    return message.role.value


class TurnSpan(msgspec.Struct, frozen=True, gc=False):
    """One group of the transcript page: messages ``[start, end)`` under a label.

    A struct, not a slotted dataclass: a long session's stored page index holds one per turn, and a
    dataclass unpickles through a Python ``__setstate__`` each.
    """

    key: str
    kind: Literal["system", "preamble", "turn"]
    label: str
    start: int
    end: int

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class TranscriptIndex:
    """What the transcript page needs of the whole transcript, computed once; rows are built per range.

    Holds no per-row text, so a page of a long transcript builds only its own rows
    (:func:`message_rows`) and a tokenizer count is asked for only for those.
    """

    format: str
    message_count: int
    turn_count: int
    tool_pair_count: int
    orphan_count: int
    """Tool calls without a result plus results without a call."""
    call_count: int
    """Assistant replies: one model call each."""
    estimated_tokens: int
    provider_input_tokens: int | None
    spans: tuple[TurnSpan, ...]
    sizes: tuple[int, ...]
    """Per message: its ZeroClaw estimate."""
    result_of_call: dict[tuple[int, str], int]
    call_of_result: dict[int, int]
    flags: dict[int, tuple[str, ...]]
    problems: tuple[str, ...]
    warnings: tuple[str, ...]
    skipped_lines: tuple[SkippedLine, ...] = ()
    failed_calls: int = 0

    @property
    def skipped_note(self) -> str | None:
        return skipped_lines_note(self.skipped_lines)


def transcript_index(transcript: Transcript) -> TranscriptIndex:
    """The whole-transcript facts of :func:`overview`: tool links, flags, turn spans, sizes, totals."""
    # Built with the cyclic collector paused, as the parse is: its collections only walked the objects this
    # makes, which all stay alive (about 40 % of a 100,000-message session's index).
    with collector_paused():
        return _index(transcript)


def _index(transcript: Transcript) -> TranscriptIndex:
    messages = transcript.messages
    pairs = lint_tool_pairs(messages)
    result_of_call: dict[tuple[int, str], int] = {}
    call_of_result: dict[int, int] = {}
    for pair in pairs.pairs:
        result_of_call[(pair.call_index, pair.call_id)] = pair.result_index
        call_of_result[pair.result_index] = pair.call_index
    flags: dict[int, list[str]] = {}
    for call in pairs.orphan_calls:
        flags.setdefault(call.call_index, []).append(f"call {call.call_id} has no result")
    for result in pairs.orphan_results:
        flags.setdefault(result.result_index, []).append(f"result for {result.call_id} has no call")
    duplicates = set(pairs.duplicate_call_ids)
    for i, m in enumerate(messages):
        for c in m.tool_calls:
            if c.id in duplicates:
                flags.setdefault(i, []).append(f"duplicate tool call id {c.id}")

    spans: list[TurnSpan] = []
    turn_number = 0
    for seg in segment_turns(messages):
        if seg.kind == "turn":
            turn_number += 1
            label, key = f"Turn {turn_number}", str(turn_number)
        elif seg.kind == "system":
            label, key = "System", "system"
        else:
            label, key = "Before the first user message", "preamble"
        spans.append(TurnSpan(key, seg.kind, label, seg.start, seg.end))

    problems = tuple(
        [f"{len(pairs.orphan_calls)} tool call(s) without a result"] * bool(pairs.orphan_calls)
        + [f"{len(pairs.orphan_results)} tool result(s) without a call"] * bool(pairs.orphan_results)
        + [f"{len(duplicates)} duplicate tool call id(s)"] * bool(duplicates)
    )
    sizes = _zeroclaw_sizes(messages)
    provider = [t for m in messages if m.usage is not None and (t := m.usage.prompt_tokens) is not None]
    return TranscriptIndex(
        format=transcript.format,
        message_count=len(messages),
        turn_count=turn_number,
        tool_pair_count=len(pairs.pairs),
        orphan_count=len(pairs.orphan_calls) + len(pairs.orphan_results),
        call_count=sum(1 for m in messages if m.role is Role.ASSISTANT),
        estimated_tokens=sum(sizes),
        provider_input_tokens=max(provider) if provider else None,
        spans=tuple(spans),
        sizes=tuple(sizes),
        result_of_call=result_of_call,
        call_of_result=call_of_result,
        flags={i: tuple(f) for i, f in flags.items()},
        problems=problems,
        warnings=transcript.warnings,
        skipped_lines=transcript.skipped_lines,
        failed_calls=sum(1 for m in messages if m.error is not None),
    )


def message_rows(
    transcript: Transcript, index: TranscriptIndex, start: int, end: int, tokens: Callable[[int], int | None]
) -> tuple[MessageRow, ...]:
    """The rows of messages ``[start, end)``; ``tokens(i)`` gives message i's tokenizer count, or None
    when the caller has not counted it yet (a page of a long transcript counts only what is shown)."""
    messages = transcript.messages
    rows: list[MessageRow] = []
    for i in range(max(start, 0), min(end, len(messages))):
        m = messages[i]
        text = m.text
        rows.append(
            MessageRow(
                index=i,
                role=m.role.value,
                role_label=_role_label(m),
                text=text,
                preview=text[:PREVIEW_CHARS] + ("…" if len(text) > PREVIEW_CHARS else ""),
                char_count=len(text),
                is_long=len(text) > LONG_CHARS,
                estimated_tokens=index.sizes[i],
                tokenizer_tokens=tokens(i),
                provider_input_tokens=m.usage.prompt_tokens if m.usage is not None else None,
                tool_calls=tuple(
                    CallLink(c.id, c.name, c.arguments, index.result_of_call.get((i, c.id)))
                    for c in m.tool_calls
                ),
                result_of=(
                    ResultLink(m.tool_result.call_id, index.call_of_result.get(i), m.tool_result.is_error)
                    if m.tool_result is not None
                    else None
                ),
                flags=index.flags.get(i, ()),
                images=len(m.images),
                thinking=sum(1 for p in m.parts if p.kind == "thinking"),
                error=m.error,
            )
        )
    return tuple(rows)


def overview(transcript: Transcript) -> TranscriptOverview:
    """Build the transcript page's view model (every row, every row counted)."""
    index = transcript_index(transcript)
    messages = transcript.messages

    def count(i: int) -> int:
        m = messages[i]
        return tiktoken_count(m.text + "".join(c.arguments for c in m.tool_calls))

    rows = message_rows(transcript, index, 0, len(messages), count)
    blocks = tuple(
        TurnBlock(key=s.key, kind=s.kind, label=s.label, rows=rows[s.start : s.end]) for s in index.spans
    )
    return TranscriptOverview(
        format=transcript.format,
        message_count=index.message_count,
        turn_count=index.turn_count,
        tool_pair_count=index.tool_pair_count,
        estimated_tokens=index.estimated_tokens,
        tokenizer_tokens=sum(r.tokenizer_tokens or 0 for r in rows),
        provider_input_tokens=index.provider_input_tokens,
        blocks=blocks,
        problems=index.problems,
        warnings=index.warnings,
        skipped_lines=index.skipped_lines,
        failed_calls=index.failed_calls,
    )
