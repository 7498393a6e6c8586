"""Tool-result truncation (``history::truncate_tool_result`` / ``truncate_tool_message``, master 15d28660).

Lengths are UTF-8 *bytes* although the knob is called ``max_tool_result_chars``. The head keeps
``max * 2 / 3`` bytes and the tail ``max - head`` bytes, both snapped to character boundaries (head
down, tail up) and moved off any ``[IMAGE:...]`` marker they would cut (head back to the ``[``, tail
past the ``]``). The middle becomes ``"\\n\\n[... N characters truncated ...]\\n\\n"`` with N the elided
bytes. If the head reaches the tail the output is the plain ``max``-byte prefix.

``truncate_tool_message`` keeps a ``{"tool_call_id", "content"}`` JSON envelope and truncates only the
inner text, re-serialising with sorted keys, so its output can exceed ``max``.
"""

from __future__ import annotations

from simulator.runtimes.zeroclaw import serde
from simulator.runtimes.zeroclaw.estimate import IMAGE_MARKER_PREFIX

_OPEN = IMAGE_MARKER_PREFIX.encode()


def _floor_boundary(data: bytes, index: int) -> int:
    if index >= len(data):
        return len(data)
    while index > 0 and (data[index] & 0xC0) == 0x80:
        index -= 1
    return index


def _ceil_boundary(data: bytes, index: int) -> int:
    while index < len(data) and (data[index] & 0xC0) == 0x80:
        index += 1
    return index


def _nudge(data: bytes, boundary: int, head: bool) -> int:
    if boundary == 0 or boundary >= len(data):
        return boundary
    last_open = -1
    search = 0
    while True:
        found = data.find(_OPEN, search)
        if found < 0 or found >= boundary:
            break
        last_open = found
        search = found + len(_OPEN)
    if last_open < 0:
        return boundary
    close = data.find(b"]", last_open)
    if close < 0 or close < boundary:
        return boundary
    return last_open if head else min(close + 1, len(data))


def truncate_tool_result(output: str, max_chars: int) -> str:
    """Keep the head and tail of an oversized tool result.

    Args:
        output: The tool's output.
        max_chars: Byte budget; 0 disables truncation.

    Returns:
        The output unchanged when it fits, else head + elision notice + tail.
    """
    data = output.encode("utf-8")
    if max_chars == 0 or len(data) <= max_chars:
        return output
    head_len = max_chars * 2 // 3
    tail_len = max_chars - head_len
    head_end = _nudge(data, _floor_boundary(data, head_len), head=True)
    tail_start = _nudge(data, _ceil_boundary(data, max(0, len(data) - tail_len)), head=False)
    if head_end >= tail_start:
        return data[: _floor_boundary(data, max_chars)].decode("utf-8")
    elided = tail_start - head_end
    head = data[:head_end].decode("utf-8")
    tail = data[tail_start:].decode("utf-8")
    return f"{head}\n\n[... {elided} characters truncated ...]\n\n{tail}"


def truncate_tool_message(content: str, max_chars: int) -> str:
    """Truncate a tool row, preserving its ``tool_call_id`` JSON envelope.

    Args:
        content: The tool message content (a JSON envelope for native tool calls).
        max_chars: Byte budget; 0 disables truncation.

    Returns:
        The re-serialised envelope with truncated inner content, or the truncated plain text.
    """
    if max_chars == 0 or len(content.encode("utf-8")) <= max_chars:
        return content
    ok, value = serde.parse_or_none(content)
    if ok and isinstance(value, dict) and "tool_call_id" in value:
        inner = value.get("content")
        if isinstance(inner, str):
            envelope = dict(value)
            envelope["content"] = truncate_tool_result(inner, max_chars)
            return serde.to_string(envelope)
    return truncate_tool_result(content, max_chars)
