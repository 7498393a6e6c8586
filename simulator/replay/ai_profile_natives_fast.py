"""ai-profile native messages built and sized in one pass, for the message shapes a long session is made of.

Preparing a session converts every transcript message to ai-profile's ``{role, content}`` JSON
(:func:`simulator.convert.to_ai_profile`), reads each back as a :class:`Message` (``Message.from_json``),
sizes its content (``json_message_tokens``, which writes the whole content out again to count its bytes)
and finds the model calls (``model_calls``). Here the common shapes -- a user or assistant message of one
text, an assistant reply of text and thinking parts and tool calls, a tool result of text -- are
recognised by exact types and each becomes its native message and its estimate at once: the content's
compact-JSON byte count is the sum of its strings' (each written alone by msgspec, escapes and UTF-8
included) and of the fixed keys and punctuation around them; the calls are told as the pass reaches them.
Anything else (an image, a part or field of another type, a role outside the enum) is converted and sized
by the reference functions, for that message alone, so every answer is theirs (tests compare the two on
generated transcripts, thousands of variants, the conformance messages and the samples;
:func:`reference_columns` is the whole reference)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec

from simulator.convert import ai_profile_message, ai_profile_tool_result, arguments_object, to_ai_profile
from simulator.jsonvalue import JSON
from simulator.replay.loop import ModelCall, model_calls
from simulator.replay.model import slot_builder
from simulator.runtimes.ai_profile import Message, json_message_tokens
from simulator.runtimes.ai_profile.compact_json import compact_json_bytes, compact_json_bytes_reference
from simulator.runtimes.ai_profile.messages import Block
from simulator.transcript import Message as TranscriptMessage
from simulator.transcript import Role, TextPart, ThinkingPart, ToolCall, ToolResult, Transcript

U32_MAX = 2**32 - 1
_ENCODE = msgspec.json.Encoder().encode
_SCAN: Callable[[str, int], tuple[JSON, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
"""The scanner ``json.loads`` runs (its default decoder is built with these same defaults)."""

# The compact JSON around each block's strings (key order does not change a length).
_TEXT_BLOCK = len('{"type":"text","text":}')
_THINKING_BLOCK = len('{"type":"thinking","thinking":}')
_SIGNATURE = len(',"signature":')
_REDACTED_BLOCK = len('{"type":"redacted_thinking","data":}')
_TOOL_USE_BLOCK = len('{"type":"tool_use","id":,"name":,"input":}')
_TOOL_RESULT_BLOCK = len('{"type":"tool_result","tool_use_id":,"content":}')
_IS_ERROR = len(',"is_error":true')
_EMPTY_STRING = len('""')
_USER = "user"
_USER_ROLE, _ASSISTANT_ROLE = Role.USER, Role.ASSISTANT
"""Read once: an enum member read through its class costs several times a global's read."""


@dataclass(frozen=True, slots=True)
class NativeColumns:
    """A transcript's ai-profile natives, the transcript messages each came from, each one's estimate,
    and the transcript's model calls in that native space."""

    natives: tuple[Message, ...]
    origins: tuple[tuple[int, ...], ...]
    tokens: tuple[int, ...]
    calls: tuple[ModelCall, ...]
    tool_use: tuple[bool, ...] | None = None
    """Each native's ``has_tool_use`` and ``has_tool_result``, when the pass knew them from the shape it
    built (``None``: ask the messages)."""
    tool_result: tuple[bool, ...] | None = None


def reference_columns(transcript: Transcript) -> NativeColumns:
    """The columns from the reference functions: convert, read back, size the converted JSON, then find
    the calls."""
    converted = to_ai_profile(transcript.messages)
    natives = tuple(Message.from_json(m) for m in converted.messages)
    # Sized from the converted JSON itself: a native's content JSON is that value.
    tokens = tuple(
        json_message_tokens(native.role, message["content"])
        for native, message in zip(natives, converted.messages, strict=True)
        if isinstance(message, dict)  # always: the conversion writes objects
    )
    origins = tuple(tuple(o) for o in converted.origins)
    return NativeColumns(natives, origins, tokens, model_calls(transcript, origins))


def natives_with_tokens(transcript: Transcript) -> NativeColumns:
    """:func:`reference_columns`, in one pass over the transcript's messages.

    When any function raises (a caller-built message the reference refuses), the reference is run
    over the whole transcript instead, so the error raised is the one it raises first.
    """
    try:
        return _one_pass(transcript.messages)
    except Exception:  # noqa: BLE001 - re-raised by the reference, which meets the same value
        return reference_columns(transcript)


_message = slot_builder(Message)
_block = slot_builder(Block)
_call = ModelCall
"""``Message(...)``, ``Block(...)`` (see :func:`slot_builder`) and ``ModelCall(...)`` (a struct)
positionally: one or more per message."""


def _one_pass(messages: Sequence[TranscriptMessage]) -> NativeColumns:
    """:func:`to_ai_profile`'s loop, each native built and sized as it is reached, and ``model_calls``:
    natives are made in transcript order, so a call's history is every native made before its reply (an
    error turn's includes the pending tool results, which come before it)."""
    natives: list[Message] = []
    origins: list[tuple[int, ...]] = []
    tokens: list[int] = []
    tool_uses: list[int] = []
    """The natives that carry tool calls' blocks (``has_tool_use``: only these)."""
    tool_results: list[int] = []
    """The natives that carry tool results (``has_tool_result``: only these)."""
    calls: list[ModelCall] = []
    results: list[JSON] = []
    result_origin: list[int] = []
    result_bytes = 0
    system, tool, user, assistant, text_part = Role.SYSTEM, Role.TOOL, Role.USER, Role.ASSISTANT, TextPart
    for index, message in enumerate(messages):
        role = message.role
        if role is tool:
            block, size = _tool_result(message)
            results.append(block)
            result_origin.append(index)
            result_bytes += size
            continue
        if role is system:
            continue  # not in the history (``to_ai_profile``)
        if role is assistant and message.error is not None:  # a failed call: not in the history either
            calls.append(_call(len(calls) + 1, len(natives) + (1 if results else 0), index, message.error))
            continue
        if results:
            tool_results.append(len(natives))
            _flush(results, result_origin, result_bytes, natives, origins, tokens)
            result_bytes = 0
        if role is assistant:
            calls.append(_call(len(calls) + 1, len(natives), index, None))
        parts = message.parts
        # Inlined: one text and no tool calls is most messages (``_chat`` has the others).
        if (
            (role is user or role is assistant)
            and not message.tool_calls
            and type(parts) is tuple
            and len(parts) == 1
            and type(part := parts[0]) is text_part
            and type(text := part.text) is str
        ):
            name = "user" if role is user else "assistant"  # ``Role.value`` is a property: a call
            native = _message(name, text)
            estimate = _estimate(_string_bytes(text), len(name))
        else:
            native, estimate, use, result = _chat(message)
            if use:
                tool_uses.append(len(natives))
            if result:
                tool_results.append(len(natives))
        natives.append(native)
        origins.append((index,))
        tokens.append(estimate)
    if results:
        tool_results.append(len(natives))
        _flush(results, result_origin, result_bytes, natives, origins, tokens)
    uses, carries = [False] * len(natives), [False] * len(natives)
    for k in tool_uses:
        uses[k] = True
    for k in tool_results:
        carries[k] = True
    return NativeColumns(
        tuple(natives), tuple(origins), tuple(tokens), tuple(calls), tuple(uses), tuple(carries)
    )


def _flush(
    results: list[JSON],
    result_origin: list[int],
    result_bytes: int,
    natives: list[Message],
    origins: list[tuple[int, ...]],
    tokens: list[int],
) -> None:
    """The pending tool results as one ``user`` message of their blocks (``result_bytes``: the blocks'
    bytes, without the list's brackets and commas)."""
    natives.append(_message(_USER, tuple([_block(block) for block in results])))
    origins.append(tuple(result_origin))
    tokens.append(_estimate(result_bytes + len(results) + 1, len(_USER)))  # "[", "]" and the commas
    results.clear()
    result_origin.clear()


def _estimate(content_bytes: int, role_bytes: int) -> int:
    """``json_message_tokens`` from the content's byte count."""
    return min((content_bytes + role_bytes) // 2 + 8, U32_MAX)


def _string_bytes(text: str) -> int:
    """``compact_json_bytes`` of a string: msgspec escapes as serde_json does (see there)."""
    try:
        return len(_ENCODE(text))
    except UnicodeEncodeError:  # a lone surrogate: the reference counts it as 3 bytes
        return compact_json_bytes_reference(text)


def _tool_result(message: TranscriptMessage) -> tuple[JSON, int]:
    """``ai_profile_tool_result`` of a tool message and its compact-JSON byte count."""
    result, parts = message.tool_result, message.parts
    if type(result) is ToolResult and type(parts) is tuple:
        # Read as any value: a caller-built result may hold fields of other types.
        call_id: object = result.call_id
        is_error: object = result.is_error
        if (
            len(parts) == 1
            and type(part := parts[0]) is TextPart
            and type(text := part.text) is str
            and type(call_id) is str
            and type(is_error) is bool
        ):
            # One text (most results): the block written once, as serde_json writes it but for key order,
            # which its length does not depend on; a lone surrogate is counted below, by the reference's rule.
            one: dict[str, JSON] = {"type": "tool_result", "tool_use_id": call_id, "content": text}
            if is_error:
                one["is_error"] = True
            try:
                return one, len(_ENCODE(one))
            except UnicodeEncodeError:
                pass
        content = _result_content(parts)
        if type(call_id) is str and type(is_error) is bool and content is not None:
            block: dict[str, JSON] = {"type": "tool_result", "tool_use_id": call_id, "content": content[0]}
            size = _TOOL_RESULT_BLOCK + _string_bytes(call_id) + content[1]
            if is_error:
                block["is_error"] = True
                size += _IS_ERROR
            return block, size
    reference = ai_profile_tool_result(message)
    return reference, compact_json_bytes(reference)


def _result_content(parts: tuple[object, ...]) -> tuple[JSON, int] | None:
    """A tool result's content -- its one text, else its parts' blocks -- and byte count."""
    text = _single_text(parts) if len(parts) < 2 else None
    if text is not None:
        return text, _string_bytes(text)
    return _blocks(parts, ())


def _single_text(parts: tuple[object, ...]) -> str | None:
    """The text of no part ("") or of one ``TextPart`` holding a string; ``None`` for anything else."""
    if not parts:
        return ""
    part = parts[0]
    if type(part) is TextPart:
        text = part.text
        if type(text) is str:
            return text
    return None


def _chat(message: TranscriptMessage) -> tuple[Message, int, bool, bool]:
    """The native of a user or assistant message in the history, its estimate, ``has_tool_use`` and
    ``has_tool_result``."""
    role = message.role
    name = "user" if role is _USER_ROLE else "assistant" if role is _ASSISTANT_ROLE else None
    parts, calls = message.parts, message.tool_calls
    if name is not None and type(parts) is tuple and type(calls) is tuple:
        if not calls and len(parts) < 2:
            text = _single_text(parts)
            if text is not None:
                return _message(name, text), _estimate(_string_bytes(text), len(name)), False, False
        read = _blocks(parts, calls)
        if read is not None:
            # Text and thinking blocks, then one ``tool_use`` block per call.
            blocks, size = read
            native = _message(name, tuple([_block(b) for b in blocks]))
            return native, _estimate(size, len(name)), bool(calls), False
    converted = ai_profile_message(message)
    native = Message.from_json(converted)
    estimate = json_message_tokens(native.role, converted["content"])
    return native, estimate, native.has_tool_use, native.has_tool_result


def _blocks(parts: tuple[object, ...], calls: tuple[object, ...]) -> tuple[list[JSON], int] | None:
    """The blocks of text and thinking parts, then tool calls, and the list's byte count; ``None`` for
    any other part (images) or a field of another type."""
    blocks: list[JSON] = []
    count = len(parts) + len(calls)
    size = count + 1 if count else 2  # "[", "]" and the commas
    for part in parts:
        if type(part) is TextPart:
            text = part.text
            if type(text) is not str:
                return None
            blocks.append({"type": "text", "text": text})
            size += _TEXT_BLOCK + _string_bytes(text)
        elif type(part) is ThinkingPart:
            read = _thinking(part)
            if read is None:
                return None
            blocks.append(read[0])
            size += read[1]
        else:
            return None
    for call in calls:
        read = _tool_use(call)
        if read is None:
            return None
        blocks.append(read[0])
        size += read[1]
    return blocks, size


def _thinking(part: ThinkingPart) -> tuple[JSON, int] | None:
    """A thinking part's block (redacted: its signature as data) and byte count."""
    # Read as any value: a caller-built part may hold fields of other types.
    text: object = part.text
    signature: object = part.signature
    redacted: object = part.redacted
    if type(signature) is not str and signature is not None:
        return None
    if redacted is True:
        data = signature or ""
        return {"type": "redacted_thinking", "data": data}, _REDACTED_BLOCK + _string_bytes(data)
    if redacted is not False or type(text) is not str:
        return None
    block: dict[str, JSON] = {"type": "thinking", "thinking": text}
    size = _THINKING_BLOCK + _string_bytes(text)
    if signature is not None:
        block["signature"] = signature
        size += _SIGNATURE + _string_bytes(signature)
    return block, size


def _arguments_object(arguments: str) -> JSON:
    """``arguments_object``: the parse ``json.loads`` makes, without its per-call checks when the text is
    an object's from its first character to its last (most tool calls' arguments).

    ``json.loads`` skips whitespace, runs the decoder's scanner from there and refuses anything after the
    value but whitespace; text that starts with ``{`` and that the scanner reads to its end needs none of
    that, so the scanner's object is ``json.loads``' own. Any other text (a byte order mark, whitespace
    around the value, anything the scanner refuses) is read by ``arguments_object``.
    """
    if arguments[:1] == "{":
        try:
            value, end = _SCAN(arguments, 0)
        except (ValueError, StopIteration):
            return arguments_object(arguments)
        if end == len(arguments):
            return value
    return arguments_object(arguments)


def _tool_use(call: object) -> tuple[JSON, int] | None:
    """A tool call's ``tool_use`` block (its arguments read as ``to_ai_profile`` reads them) and byte
    count."""
    if type(call) is not ToolCall:
        return None
    call_id, name, arguments = call.id, call.name, call.arguments
    if type(call_id) is not str or type(name) is not str or type(arguments) is not str:
        return None
    value = _arguments_object(arguments)
    size = _TOOL_USE_BLOCK + _string_bytes(call_id) + _string_bytes(name)
    size += _string_bytes(value) if type(value) is str else compact_json_bytes(value)
    return {"type": "tool_use", "id": call_id, "name": name, "input": value}, size


__all__ = ["NativeColumns", "natives_with_tokens", "reference_columns"]
