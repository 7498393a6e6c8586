"""OpenAI Responses API item importer (plus the Codex CLI rollout JSONL wrapper).

Source formats: https://platform.openai.com/docs/api-reference/responses (peers-and-needs.md §5 B). Input is a
list of items, or an object with ``input`` and/or ``output`` item lists (a request, a response, or both).
Items: ``message`` (``role`` user/assistant/system/developer; content
``input_text``/``output_text``/``input_image``/ ``refusal``; the ``type`` may be omitted on easy input
messages), ``function_call`` / ``custom_tool_call`` / ``local_shell_call`` paired with their ``*_output`` by
``call_id``, and ``reasoning``. Consecutive reasoning, assistant message and call items of one response are
merged into one assistant message.

Codex rollouts are JSONL ``{timestamp, type, payload}``: ``session_meta`` (session id), ``turn_context``
(model), ``response_item`` (an item as above), ``event_msg`` (``token_count`` events give usage to the latest
assistant message; others are UI events) and ``compacted`` (see ``_compacted``: the history the following
requests hold, as Codex's compact.rs / compact_remote.rs build it). ``developer`` messages are instructions
Codex inserts between turns; they keep role ``system`` and are marked ``developer_instructions``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from msgspec.structs import replace

from simulator.importers._common import (
    BadInput,
    Document,
    compact_json,
    fill_tool_names,
    image_from_url,
    last_model,
    located,
    parse_timestamp,
    require_str,
    responses_usage,
)
from simulator.jsonvalue import JSON, as_list, as_object, opt_str
from simulator.transcript import (
    ImagePart,
    Message,
    Part,
    Role,
    SourceRef,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResult,
    Transcript,
)

NAME = "openai-responses"

_MESSAGE_ROLES = {
    "user": Role.USER,
    "assistant": Role.ASSISTANT,
    "system": Role.SYSTEM,
    "developer": Role.SYSTEM,
}
_CALLS = {"function_call", "custom_tool_call", "local_shell_call"}
_OUTPUTS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
# Hosted tools run on OpenAI's side; their items are kept out of the model with a warning.
_HOSTED = {
    "web_search_call",
    "file_search_call",
    "computer_call",
    "computer_call_output",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "item_reference",
    "compaction",
}
_MESSAGE_KEYS = {"type", "role", "content", "id", "status", "phase", "end_turn"}
CODEX_LINE_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")


@dataclass(slots=True)
class _Builder:
    messages: list[Message] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # True while the last message is an assistant message still collecting items of the same response.
    open_assistant: bool = False

    def add(self, message: Message) -> None:
        self.messages.append(message)
        self.open_assistant = False

    def add_assistant(
        self, parts: tuple[Part, ...], calls: tuple[ToolCall, ...], source: SourceRef, raw: JSON
    ) -> None:
        last = self.messages[-1] if self.messages else None
        # Text after a call belongs to the next model response in practice; only merge forward.
        mergeable = self.open_assistant and last is not None and not (parts and last.tool_calls)
        if mergeable and last is not None:
            merged_raw: JSON = [*last.raw, raw] if isinstance(last.raw, list) else [last.raw, raw]
            self.messages[-1] = replace(
                last, parts=last.parts + parts, tool_calls=last.tool_calls + calls, raw=merged_raw
            )
        else:
            self.messages.append(
                Message(role=Role.ASSISTANT, parts=parts, tool_calls=calls, source=source, raw=raw)
            )
        self.open_assistant = True


def _content(raw: JSON, what: str, warnings: list[str]) -> tuple[Part, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (TextPart(raw),) if raw else ()
    parts: list[Part] = []
    for i, item in enumerate(as_list(raw, what)):
        where = f"{what}[{i}]"
        block = as_object(item, where)
        kind = require_str(block, "type", f"{where}.type")
        if kind in ("input_text", "output_text", "text", "summary_text", "reasoning_text"):
            parts.append(TextPart(require_str(block, "text", f"{where}.text")))
        elif kind == "refusal":
            parts.append(TextPart(require_str(block, "refusal", f"{where}.refusal")))
        elif kind == "input_image":
            url = block.get("image_url")
            if isinstance(url, str):
                parts.append(image_from_url(url))
            else:
                parts.append(ImagePart(source="file", data=require_str(block, "file_id", f"{where}.file_id")))
        elif kind in ("input_file", "input_audio"):
            warnings.append(f"{where}: {kind} part not modelled (skipped)")
        else:
            raise BadInput(f"{where}.type {kind!r} is not a Responses content part")
    return tuple(parts)


def add_item(builder: _Builder, raw: JSON, source: SourceRef, stamp: int | None = None) -> None:
    """Append one Responses item to the transcript being built.

    Raises:
        BadInput: naming the offending field.
    """
    item = as_object(raw, "item")
    kind = item.get("type", "message" if "role" in item else None)
    if not isinstance(kind, str):
        raise BadInput("type is missing (and no role for an easy input message)")
    if kind == "message":
        unexpected = sorted(set(item) - _MESSAGE_KEYS)
        if unexpected:
            raise BadInput(f"unexpected field {unexpected[0]!r} on a Responses message item")
        if "content" not in item:
            raise BadInput("content is missing")
        role_text = require_str(item, "role", "role")
        role = _MESSAGE_ROLES.get(role_text)
        if role is None:
            raise BadInput(f"role {role_text!r} is not a Responses message role")
        parts = _content(item.get("content"), "content", builder.warnings)
        if role is Role.ASSISTANT:
            builder.add_assistant(parts, (), source, raw)
            if stamp is not None and builder.messages[-1].timestamp_ms is None:
                builder.messages[-1] = replace(builder.messages[-1], timestamp_ms=stamp)
        else:
            builder.add(
                Message(
                    role=role,
                    parts=parts,
                    id=opt_str(item, "id"),
                    timestamp_ms=stamp,
                    source=source,
                    raw=raw,
                    variant="developer_instructions" if role_text == "developer" else None,
                )
            )
    elif kind == "reasoning":
        summary = item.get("summary")
        texts = [p.text for p in _content(summary, "summary", builder.warnings) if isinstance(p, TextPart)]
        encrypted = opt_str(item, "encrypted_content")
        thinking = ThinkingPart(
            "\n".join(texts), signature=encrypted, redacted=not texts and encrypted is not None
        )
        builder.add_assistant((thinking,), (), source, raw)
    elif kind in _CALLS:
        call_id = require_str(item, "call_id", "call_id")
        if kind == "function_call":
            name = require_str(item, "name", "name")
            arguments = require_str(item, "arguments", "arguments")
        elif kind == "custom_tool_call":
            name = require_str(item, "name", "name")
            arguments = require_str(item, "input", "input")
        else:
            name = "local_shell"
            arguments = compact_json(item.get("action"))
        builder.add_assistant((), (ToolCall(id=call_id, name=name, arguments=arguments),), source, raw)
    elif kind in _OUTPUTS:
        call_id = require_str(item, "call_id", "call_id")
        output = item.get("output")
        if isinstance(output, dict):
            # Codex wraps shell output as {"output": text, "metadata": {...}} in some versions.
            output = output.get("output") if isinstance(output.get("output"), str) else compact_json(output)
        parts = _content(output, "output", builder.warnings)
        builder.add(
            Message(
                role=Role.TOOL,
                parts=parts,
                tool_result=ToolResult(call_id, None),
                timestamp_ms=stamp,
                source=source,
                raw=raw,
            )
        )
    elif kind == "compaction":
        # The same words as the compacted-line note: an encrypted compaction item cannot be read or sized.
        builder.warnings.append(
            f"{_where(source)}: 1 opaque item(s) (encrypted compaction) are not sent in the replay"
        )
    elif kind in _HOSTED:
        builder.warnings.append(f"{_where(source)}: {kind} item not modelled (skipped)")
    else:
        raise BadInput(f"type {kind!r} is not a Responses item type")


def _where(source: SourceRef) -> str:
    return f"line {source.line}" if source.line is not None else f"item {source.record}"


def _parse_items(value: JSON) -> Transcript:
    builder = _Builder()
    model: str | None = None
    usage = None
    if isinstance(value, list):
        groups: list[tuple[str, list[JSON]]] = [("", value)]
    elif isinstance(value, dict) and (
        isinstance(value.get("input"), list | str) or isinstance(value.get("output"), list)
    ):
        groups = []
        if isinstance(value.get("instructions"), str) and value["instructions"]:
            builder.add(
                Message(
                    role=Role.SYSTEM, parts=(TextPart(str(value["instructions"])),), raw=value["instructions"]
                )
            )
        inp = value.get("input")
        if isinstance(inp, str):
            builder.add(Message(role=Role.USER, parts=(TextPart(inp),), raw=inp))
        elif isinstance(inp, list):
            groups.append(("input", inp))
        if isinstance(value.get("output"), list):
            groups.append(("output", as_list(value["output"])))
        model = opt_str(value, "model")
        usage = responses_usage(value.get("usage"))
    else:
        raise BadInput("expected a list of Responses items or an object with 'input'/'output' item lists")
    offset = 0
    for _, items in groups:
        for index, item in enumerate(items):
            with located(index=offset + index):
                add_item(builder, item, SourceRef(record=offset + index))
        offset += len(items)
    messages = fill_tool_names(builder.messages)
    if usage is not None:
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].role is Role.ASSISTANT:
                messages[i] = replace(messages[i], usage=usage, model=model)
                break
    return Transcript(format=NAME, messages=tuple(messages), model=model, warnings=tuple(builder.warnings))


def _parse_rollout(records: tuple[tuple[int, JSON], ...]) -> Transcript:
    builder = _Builder()
    session_id: str | None = None
    model: str | None = None
    for number, value in records:
        with located(line=number):
            rec = as_object(value, "line")
            kind = require_str(rec, "type", "type")
            if kind not in CODEX_LINE_TYPES:
                raise BadInput(f"type {kind!r} is not a Codex rollout line type")
            payload = as_object(rec.get("payload"), "payload")
            stamp = parse_timestamp(rec.get("timestamp"))
            if kind == "session_meta":
                session_id = opt_str(payload, "id") or session_id
            elif kind == "turn_context":
                model = opt_str(payload, "model") or model
            elif kind == "response_item":
                add_item(builder, payload, SourceRef(line=number), stamp)
                last = builder.messages[-1] if builder.messages else None
                if last is not None and last.timestamp_ms is None:
                    last = builder.messages[-1] = replace(last, timestamp_ms=stamp)
                if (
                    last is not None
                    and last.role is Role.ASSISTANT
                    and last.model is None
                    and model is not None
                ):
                    builder.messages[-1] = replace(last, model=model, provider="openai")
            elif kind == "event_msg":
                _token_count(builder, payload)
            else:
                _compacted(builder, payload, number, stamp)
    messages = fill_tool_names(builder.messages)
    last_m, provider = last_model(messages)
    return Transcript(
        format=NAME,
        messages=tuple(messages),
        session_id=session_id,
        model=model or last_m,
        provider=provider,
        warnings=tuple(builder.warnings),
    )


def _token_count(builder: _Builder, payload: dict[str, JSON]) -> None:
    if payload.get("type") != "token_count" or not isinstance(payload.get("info"), dict):
        return
    info = as_object(payload["info"])
    usage = responses_usage(info.get("last_token_usage"), "payload.info.last_token_usage")
    for i in range(len(builder.messages) - 1, -1, -1):
        if builder.messages[i].role is Role.ASSISTANT:
            if builder.messages[i].usage is None:
                builder.messages[i] = replace(builder.messages[i], usage=usage)
            return


# Codex's compact.rs: after a local compaction the history is the initial context, the newest earlier user
# messages up to this many approximate tokens (bytes / 4), then the summary as a user message.
_COMPACT_USER_MESSAGE_MAX_TOKENS = 20_000
# User messages Codex itself writes (collect_user_messages leaves them out of what compaction keeps).
_CODEX_CONTEXT_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions")


def _kept_user_messages(messages: list[Message]) -> list[Message]:
    kept: list[Message] = []
    remaining = _COMPACT_USER_MESSAGE_MAX_TOKENS
    for message in reversed(messages):
        if message.role is not Role.USER or message.variant is not None:
            continue
        if message.text.lstrip().startswith(_CODEX_CONTEXT_PREFIXES):
            continue
        tokens = -(-len(message.text.encode("utf-8")) // 4)
        if tokens > remaining:
            # Codex truncates this one to the remaining tokens; the replay leaves it out (noted once).
            break
        kept.append(message)
        remaining -= tokens
    kept.reverse()
    return kept


def _compacted(builder: _Builder, payload: dict[str, JSON], line: int, stamp: int | None) -> None:
    """A Codex ``compacted`` rollout line: what the following requests hold instead of the earlier history.

    With ``replacement_history`` (remote compaction) that list is the new history; items the simulator cannot
    read (the encrypted ``compaction`` item) are left out. Without it (local compaction) the history becomes
    Codex's ``build_compacted_history``: leading instructions, the newest earlier user messages within 20,000
    approximate tokens, then ``message`` (the summary, already prefixed by Codex) as a user message. One
    warning says which happened.
    """
    before = list(builder.messages)
    builder.messages.clear()
    builder.open_assistant = False
    replacement = payload.get("replacement_history")
    if isinstance(replacement, list):
        opaque = 0
        for item in replacement:
            if isinstance(item, dict) and item.get("type") in _HOSTED:
                opaque += 1
                continue
            add_item(builder, item, SourceRef(line=line), stamp)
        unread = (
            f"; {opaque} opaque item(s) (encrypted compaction) are not sent in the replay" if opaque else ""
        )
        builder.warnings.append(
            f"line {line}: Codex compaction: the {len(before)} earlier messages are replaced by its"
            f" replacement_history ({len(builder.messages)} messages){unread}"
        )
        return
    summary = require_str(payload, "message", "payload.message")
    leading = []
    for message in before:
        if message.role is not Role.SYSTEM:
            break
        leading.append(message)
    kept = _kept_user_messages(before[len(leading) :])
    builder.messages.extend(leading + kept)
    builder.add(
        Message(
            role=Role.USER,
            parts=(TextPart(summary),),
            timestamp_ms=stamp,
            source=SourceRef(line=line),
            raw=payload,
            variant="compaction_summary",
        )
    )
    builder.warnings.append(
        f"line {line}: Codex compaction: the {len(before)} earlier messages are replaced by"
        f" {len(leading)} leading instruction(s), {len(kept)} earlier user message(s) (Codex keeps up to"
        f" {_COMPACT_USER_MESSAGE_MAX_TOKENS:,} tokens of them) and the summary"
    )


def parse(doc: Document) -> Transcript:
    """Parse Responses items or a Codex rollout.

    Raises:
        BadInput: at the first item or line that does not fit.
    """
    if doc.is_json and not (isinstance(doc.value, dict) and doc.value.get("type") in CODEX_LINE_TYPES):
        return _parse_items(doc.value)
    if doc.records is None:
        raise BadInput("expected JSON lines (one object per line)")
    return _parse_rollout(doc.records)
