"""Converters from the runtime-neutral transcript model to each runtime's native message shape, as plain JSON.

Shapes are exactly those the conformance vectors use:

* ZeroClaw ``ChatMessage`` ``{role, content}`` with native tool calls as JSON text in ``content``, and the
  structured ``ConversationMessage`` (``Chat`` / ``AssistantToolCalls`` / ``ToolResults``) — zeroclaw.md
  §0/§1. Images become ``[IMAGE:<ref>]`` markers inside the text.
* ai-profile Anthropic-style ``{role, content}`` with ``tool_use`` / ``tool_result`` blocks — ai_profile.md
  §2. System messages are left out: ai-profile sends the system prompt as the request's ``system`` field, so
  it is never part of the history its trimmer sees.
* OpenClaw ``AgentMessage`` (``user`` / ``assistant`` / ``toolResult``) — openclaw.md §1. The system prompt is
  not an AgentMessage either; compaction/branch summaries go back to their own roles, which the pruner sizes
  as 256 chars.

Provider error turns (an assistant message with ``error`` set) are left out of ZeroClaw's and ai-profile's
messages: a failed call appends no reply to their history. OpenClaw keeps them (pi's session keeps the entry;
which requests carry it is the replay's business).

Developer instructions (an OpenAI ``developer`` message, role ``SYSTEM`` with variant
``developer_instructions``) follow the system rule of each runtime: ZeroClaw holds them as a ``system``
message where they stand; ai-profile and OpenClaw take instructions only as the request's system prompt, so
they are not part of the history either trims or prunes.

Every converter also returns, per produced message, the model message indices it came from, so a runtime's
keep/drop decision can be mapped back onto the transcript.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring

import msgspec

from simulator.importers.openclaw import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
)
from simulator.jsonvalue import JSON
from simulator.transcript import ImagePart, Message, Role, TextPart, ThinkingPart, ToolCall

_OPENCLAW_STOP_REASONS = {"stop", "length", "toolUse", "error", "aborted"}
_ROLE_NAMES = {role: role.value for role in Role}
"""Each role's ``value``, read once: the enum's ``value`` is a property, a call per message."""


@dataclass(frozen=True, slots=True)
class Converted:
    """Native messages plus, for each, the indices of the model messages it was built from."""

    messages: tuple[JSON, ...]
    origins: tuple[tuple[int, ...], ...]

    def model_indices(self, native_indices: Sequence[int]) -> tuple[int, ...]:
        """Model message indices behind the given native message indices, sorted and without repeats."""
        return tuple(sorted({i for n in native_indices for i in self.origins[n]}))


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
"""``json.dumps`` with these options builds a new encoder at every call: one is built here instead."""
_ENCODE = msgspec.json.Encoder().encode


def _string(text: str) -> str:
    """How that encoder writes a string (``ensure_ascii=False``): ``encode_basestring``.

    msgspec writes a string with the very same escapes (``\\"``, ``\\\\``, ``\\b \\f \\n \\r \\t``, every
    other control character as ``\\u00xx``, nothing else escaped; ``tests/simulator/test_convert_envelope.py``
    checks every code point), in C and about three times faster on the long texts of tool results; it
    refuses a lone surrogate, which the encoder's own function then writes (as it does any other value).
    """
    if type(text) is str:
        try:
            return _ENCODE(text).decode()
        except UnicodeEncodeError:
            pass
    return encode_basestring(text)


def tool_result_envelope(call_id: str, text: str) -> str:
    """``compact_json({"tool_call_id": call_id, "content": text})``, written without the encoder's
    per-call set-up (a long session has one per tool result): the same two strings, escaped alike.

    Two strings are written by msgspec at once, as the encoder writes them (keys in the order given, no
    spaces, the escapes of :func:`_string`); a lone surrogate, which it refuses, is written apart."""
    if type(call_id) is str and type(text) is str:
        try:
            return _ENCODE({"tool_call_id": call_id, "content": text}).decode()
        except UnicodeEncodeError:
            pass
    return '{"tool_call_id":' + _string(call_id) + ',"content":' + _string(text) + "}"


def tool_calls_envelope(content: str | None, calls: Sequence[ToolCall], reasoning: str | None = None) -> str:
    """``compact_json`` of ZeroClaw's assistant tool-call envelope (``content``, ``tool_calls`` and, when
    given, ``reasoning_content``), written without the encoder's per-call set-up like
    :func:`tool_result_envelope` (a long session has one per tool call)."""
    if (content is None or type(content) is str) and (reasoning is None or type(reasoning) is str):
        written_at_once = _calls_envelope(content, calls, reasoning)
        if written_at_once is not None:
            return written_at_once
    written = []
    for call in calls:
        id_, name, arguments = call.id, call.name, call.arguments
        if type(id_) is not str or type(name) is not str or type(arguments) is not str:
            # Not three strings (a caller-built call): the encoder writes it, or refuses it, as it would.
            envelope: dict[str, JSON] = {"content": content, "tool_calls": _zeroclaw_calls(calls)}
            if reasoning is not None:
                envelope["reasoning_content"] = reasoning
            return _COMPACT(envelope)
        written.append(
            '{"id":' + _string(id_) + ',"name":' + _string(name) + ',"arguments":' + _string(arguments) + "}"
        )
    head = '{"content":' + ("null" if content is None else _string(content)) + ',"tool_calls":['
    tail = "]}" if reasoning is None else '],"reasoning_content":' + _string(reasoning) + "}"
    return head + ",".join(written) + tail


def _calls_envelope(content: str | None, calls: Sequence[ToolCall], reasoning: str | None) -> str | None:
    """:func:`tool_calls_envelope` written by msgspec at once, when every field is a string (``content``
    and ``reasoning`` may be ``None``); ``None`` for anything else, or a lone surrogate."""
    written: list[JSON] = []
    for call in calls:
        id_, name, arguments = call.id, call.name, call.arguments
        if type(id_) is not str or type(name) is not str or type(arguments) is not str:
            return None
        written.append({"id": id_, "name": name, "arguments": arguments})
    envelope: dict[str, JSON] = {"content": content, "tool_calls": written}
    if reasoning is not None:
        envelope["reasoning_content"] = reasoning
    try:
        return _ENCODE(envelope).decode()
    except UnicodeEncodeError:
        return None


def compact_json(value: JSON) -> str:
    """Compact JSON text as serde_json writes it for strings and integers (no spaces, raw non-ASCII)."""
    return _COMPACT(value)


def image_ref(image: ImagePart) -> str:
    """The reference ZeroClaw puts inside ``[IMAGE:...]``: a data URL, a URL, or the path/marker as given."""
    if image.source == "base64":
        return f"data:{image.media_type or 'image/png'};base64,{image.data}"
    return image.data


def render_text(message: Message) -> str:
    """Text and images of a message as one string: text parts joined by newlines, images as inline markers.

    Markers sit directly against the neighbouring text, which is how the ZeroClaw importer splits them, so
    ZeroClaw text survives a round trip unchanged.
    """
    out: list[str] = []
    previous_text = False
    for part in message.parts:
        if isinstance(part, TextPart):
            if previous_text:
                out.append("\n")
            out.append(part.text)
            previous_text = True
        elif isinstance(part, ImagePart):
            out.append(f"[IMAGE:{image_ref(part)}]")
            previous_text = False
    return "".join(out)


def _has_visible(message: Message) -> bool:
    return any(isinstance(p, TextPart | ImagePart) for p in message.parts)


def _thinking(message: Message) -> str | None:
    texts = [p.text for p in message.parts if isinstance(p, ThinkingPart)]
    return "\n".join(texts) if texts else None


def _failed(message: Message) -> bool:
    """A provider error turn: ZeroClaw and an ai-profile app append no reply to the history when the
    call fails, so the failed message is not part of what they hold or send."""
    return message.role is Role.ASSISTANT and message.error is not None


def _zeroclaw_calls(calls: Sequence[ToolCall]) -> list[JSON]:
    return [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls]


def to_zeroclaw_chat(messages: Sequence[Message]) -> Converted:
    """ZeroClaw provider-facing ``ChatMessage`` list.

    Assistant tool calls become ``{"content", "tool_calls"[, "reasoning_content"]}`` JSON text, tool results
    ``{"tool_call_id", "content"}`` JSON text; results without an id stay plain text. Thinking on assistant
    messages without tool calls is not sent (ZeroClaw keeps only text there).

    Args:
        messages: transcript messages.

    Returns:
        One native message per model message.
    """
    rows, origins = zeroclaw_chat_rows(messages)
    out: list[JSON] = [{"role": role, "content": content} for role, content in rows]
    return Converted(tuple(out), origins)


def zeroclaw_chat_rows(
    messages: Sequence[Message],
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[int, ...], ...]]:
    """:func:`to_zeroclaw_chat` as ``(role, content)`` pairs, for a caller that builds the messages itself.

    Every replay converts every message once, so the loop keeps per-message overhead down: the roles
    and their names are looked up once (``Role.value`` is a property), and a message of one text part
    -- most of them -- is its text, with nothing else to render.
    """
    out: list[tuple[str, str]] = []
    origins: list[tuple[int, ...]] = []
    assistant, tool, names = Role.ASSISTANT, Role.TOOL, _ROLE_NAMES
    for index, message in enumerate(messages):
        role = message.role
        if role is assistant and message.error is not None:
            continue  # a failed call (``_failed``)
        parts = message.parts
        # One text part: render_text would give its text, alone (a caller-built part is rendered).
        first = parts[0] if len(parts) == 1 else None
        if type(first) is TextPart and type(first.text) is str:
            plain, text = True, first.text
        else:
            plain, text = False, render_text(message)
        if role is assistant and message.tool_calls:
            if plain:  # visible text and no thinking
                content = tool_calls_envelope(text, message.tool_calls)
            else:
                visible = text if _has_visible(message) else None
                content = tool_calls_envelope(visible, message.tool_calls, _thinking(message))
        elif role is tool and message.tool_result is not None and message.tool_result.call_id:
            content = tool_result_envelope(message.tool_result.call_id, text)
        else:
            content = text
        out.append((names[role], content))
        origins.append((index,))
    return tuple(out), tuple(origins)


def to_zeroclaw_conversation(messages: Sequence[Message]) -> Converted:
    """ZeroClaw structured ``ConversationMessage`` list.

    Consecutive tool results with ids are grouped into one ``ToolResults`` record (``tool_name`` included when
    known); everything else maps one to one.

    Args:
        messages: transcript messages.

    Returns:
        Native records with the model indices each came from.
    """
    out: list[JSON] = []
    origins: list[tuple[int, ...]] = []
    group: list[JSON] = []
    group_origin: list[int] = []

    def flush() -> None:
        if group:
            out.append({"type": "ToolResults", "data": list(group)})
            origins.append(tuple(group_origin))
            group.clear()
            group_origin.clear()

    for index, message in enumerate(messages):
        if _failed(message):
            continue
        result = message.tool_result
        if message.role is Role.TOOL and result is not None and result.call_id:
            entry: dict[str, JSON] = {"tool_call_id": result.call_id, "content": render_text(message)}
            if result.name is not None:
                entry["tool_name"] = result.name
            group.append(entry)
            group_origin.append(index)
            continue
        flush()
        if message.role is Role.ASSISTANT and message.tool_calls:
            record: JSON = {
                "type": "AssistantToolCalls",
                "data": {
                    "text": render_text(message) if _has_visible(message) else None,
                    "tool_calls": _zeroclaw_calls(message.tool_calls),
                    "reasoning_content": _thinking(message),
                },
            }
        else:
            record = {"type": "Chat", "data": {"role": message.role.value, "content": render_text(message)}}
        out.append(record)
        origins.append((index,))
    flush()
    return Converted(tuple(out), tuple(origins))


def arguments_object(arguments: str) -> JSON:
    """A tool call's arguments as the object Anthropic and OpenClaw carry: parsed when they are an object's
    text, else kept as the text."""
    # Anthropic and OpenClaw want an object; text that is not one stays a string so its size still counts.
    try:
        value: JSON = json.loads(arguments) if arguments else {}
    except ValueError:
        return arguments
    return value if isinstance(value, dict) else arguments


def _anthropic_image(image: ImagePart) -> JSON:
    if image.source == "base64":
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": image.media_type or "image/png", "data": image.data},
        }
    if image.source == "url" or image.data.startswith(("http://", "https://")):
        return {"type": "image", "source": {"type": "url", "url": image.data}}
    if image.source == "marker" and image.data.startswith("data:") and ";base64," in image.data:
        header, payload = image.data[5:].split(",", 1)
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": header.split(";")[0], "data": payload},
        }
    if image.source == "file":
        return {"type": "image", "source": {"type": "file", "file_id": image.data}}
    return {"type": "text", "text": f"[IMAGE:{image.data}]"}


def _anthropic_blocks(message: Message) -> list[JSON]:
    blocks: list[JSON] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            blocks.append(_anthropic_image(part))
        elif part.redacted:
            blocks.append({"type": "redacted_thinking", "data": part.signature or ""})
        else:
            thinking: dict[str, JSON] = {"type": "thinking", "thinking": part.text}
            if part.signature is not None:
                thinking["signature"] = part.signature
            blocks.append(thinking)
    return blocks


def _simple_text(message: Message) -> str | None:
    """The message's text when it is a single text part (sent as a plain string), else None."""
    if len(message.parts) == 1 and isinstance(message.parts[0], TextPart):
        return message.parts[0].text
    if not message.parts:
        return ""
    return None


def to_ai_profile(messages: Sequence[Message]) -> Converted:
    """ai-profile history: Anthropic-style ``{role, content}`` messages, system messages left out.

    Single-text messages carry a plain string; others carry blocks. Consecutive tool results become one
    ``user`` message of ``tool_result`` blocks (``is_error`` only when true).

    Args:
        messages: transcript messages.

    Returns:
        Native messages with the model indices each came from.
    """
    out: list[JSON] = []
    origins: list[tuple[int, ...]] = []
    results: list[JSON] = []
    result_origin: list[int] = []

    def flush() -> None:
        if results:
            out.append({"role": "user", "content": list(results)})
            origins.append(tuple(result_origin))
            results.clear()
            result_origin.clear()

    for index, message in enumerate(messages):
        if message.role is Role.SYSTEM or _failed(message):
            continue
        if message.role is Role.TOOL:
            results.append(ai_profile_tool_result(message))
            result_origin.append(index)
            continue
        flush()
        out.append(ai_profile_message(message))
        origins.append((index,))
    flush()
    return Converted(tuple(out), tuple(origins))


def ai_profile_tool_result(message: Message) -> dict[str, JSON]:
    """The ``tool_result`` block :func:`to_ai_profile` writes for a tool message (``is_error`` only when
    true)."""
    simple = _simple_text(message)
    block: dict[str, JSON] = {
        "type": "tool_result",
        "tool_use_id": message.tool_result.call_id if message.tool_result else "",
        "content": simple if simple is not None else _anthropic_blocks(message),
    }
    if message.tool_result is not None and message.tool_result.is_error:
        block["is_error"] = True
    return block


def ai_profile_message(message: Message) -> dict[str, JSON]:
    """The ``{role, content}`` message :func:`to_ai_profile` writes for a user or assistant message: a
    plain string for a single text, else blocks (its tool calls as ``tool_use`` blocks last)."""
    simple = _simple_text(message)
    content: JSON
    if message.tool_calls or simple is None:
        blocks = _anthropic_blocks(message)
        for call in message.tool_calls:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    "input": arguments_object(call.arguments),
                }
            )
        content = blocks
    else:
        content = simple
    return {"role": message.role.value, "content": content}


def _openclaw_blocks(message: Message) -> list[JSON]:
    blocks: list[JSON] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            # OpenClaw images are inline base64; other references keep their text so the block still exists
            # (the pruner sizes every image at a flat 8000 chars whatever it holds).
            blocks.append({"type": "image", "data": part.data, "mimeType": part.media_type or "image/png"})
        else:
            thinking: dict[str, JSON] = {"type": "thinking", "thinking": part.text}
            if part.signature is not None:
                thinking["thinkingSignature"] = part.signature
            if part.redacted:
                thinking["redacted"] = True
            blocks.append(thinking)
    return blocks


def _strip(text: str, prefix: str, suffix: str) -> str:
    if text.startswith(prefix) and text.endswith(suffix) and len(text) >= len(prefix) + len(suffix):
        return text[len(prefix) : len(text) - len(suffix)]
    return text


def to_openclaw(messages: Sequence[Message]) -> Converted:
    """OpenClaw ``AgentMessage`` list (what the context-pruning hook receives).

    System messages are left out (OpenClaw passes the system prompt separately). Assistant messages get
    ``provider``/``model``/``usage``/``stopReason``; ``timestamp`` (epoch ms) is set when known. A user
    message that is one text part keeps string content.

    Args:
        messages: transcript messages.

    Returns:
        One native message per non-system model message.
    """
    out: list[JSON] = []
    origins: list[tuple[int, ...]] = []
    for index, message in enumerate(messages):
        native: dict[str, JSON]
        if message.role is Role.SYSTEM:
            continue
        if message.role is Role.USER and message.variant == "compaction_summary":
            summary = _strip(message.text, COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX)
            native = {"role": "compactionSummary", "summary": summary, "tokensBefore": 0}
        elif message.role is Role.USER and message.variant == "branch_summary":
            summary = _strip(message.text, BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX)
            native = {"role": "branchSummary", "summary": summary, "fromId": ""}
        elif message.role is Role.USER:
            simple = _simple_text(message)
            native = {"role": "user", "content": simple if simple is not None else _openclaw_blocks(message)}
        elif message.role is Role.ASSISTANT:
            blocks = _openclaw_blocks(message)
            for call in message.tool_calls:
                args = arguments_object(call.arguments)
                blocks.append({"type": "toolCall", "id": call.id, "name": call.name, "arguments": args})
            usage = message.usage
            stop = message.stop_reason
            if stop not in _OPENCLAW_STOP_REASONS:
                stop = "toolUse" if message.tool_calls else "stop"
            native = {
                "role": "assistant",
                "content": blocks,
                "provider": message.provider or "",
                "model": message.model or "",
                "usage": {
                    "input": (usage.input_tokens if usage else None) or 0,
                    "output": (usage.output_tokens if usage else None) or 0,
                    "cacheRead": (usage.cache_read_tokens if usage else None) or 0,
                    "cacheWrite": (usage.cache_write_tokens if usage else None) or 0,
                    "totalTokens": (usage.total_tokens if usage else None) or 0,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": stop,
            }
        else:
            result = message.tool_result
            native = {
                "role": "toolResult",
                "toolCallId": result.call_id if result else "",
                "toolName": (result.name if result else None) or "",
                "content": _openclaw_blocks(message),
                "isError": bool(result and result.is_error),
            }
        if message.timestamp_ms is not None:
            native["timestamp"] = message.timestamp_ms
        out.append(native)
        origins.append((index,))
    return Converted(tuple(out), tuple(origins))
