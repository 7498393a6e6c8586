"""Claude Code session JSONL importer.

Source format: ``~/.claude/projects/<project>/<session>.jsonl`` (peers-and-needs.md §5 C, samples/README.md):
one object per line, ``{type: "user"|"assistant"|"summary"|"system"|..., uuid, parentUuid, sessionId,
timestamp, isSidechain, message: {role, content, usage?, model?, id?}}`` with ``message`` in Anthropic shape.
When lines carry ``parentUuid`` the conversation is the chain from the last main-thread user/assistant line
back to its root (so abandoned branches and pre-compaction history drop out); without it, file order is used.
An API response streamed as several assistant lines sharing ``message.id`` becomes one assistant message.
Transcript exporters (e.g. the Claude Code web session export) wrap the same entries as one JSON document
``{"loglines": [...]}``; those are read alike, placed by their index in the list. A failed API call
(``isApiErrorMessage: true``, a synthetic assistant line such as "API Error: fetch failed") is marked
``error``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from msgspec.structs import replace

from simulator.importers._common import (
    BadInput,
    Document,
    anthropic_usage,
    fill_tool_names,
    last_model,
    located,
    parse_timestamp,
)
from simulator.importers.anthropic import expand_message
from simulator.jsonvalue import JSON, as_object, opt_str
from simulator.transcript import Message, Role, SourceRef, Transcript

NAME = "claude-code"

_CONVERSATION_TYPES = ("user", "assistant")
# Line types Claude Code writes that never reach the model.
_NON_MESSAGE_TYPES = {
    "summary",
    "system",
    "file-history-snapshot",
    "queue-operation",
    "progress",
    "custom-title",
}


def _chain(records: list[tuple[int, dict[str, JSON]]]) -> list[tuple[int, dict[str, JSON]]]:
    if not any("parentUuid" in rec for _, rec in records):
        return [(n, r) for n, r in records if r.get("type") in _CONVERSATION_TYPES]
    by_uuid: dict[str, tuple[int, dict[str, JSON]]] = {}
    for number, rec in records:
        uuid = rec.get("uuid")
        if isinstance(uuid, str):
            by_uuid[uuid] = (number, rec)
    leaf: tuple[int, dict[str, JSON]] | None = None
    for number, rec in reversed(records):
        if rec.get("type") in _CONVERSATION_TYPES and rec.get("isSidechain") is not True and "uuid" in rec:
            leaf = (number, rec)
            break
    chain: list[tuple[int, dict[str, JSON]]] = []
    seen: set[str] = set()
    node = leaf
    while node is not None:
        number, rec = node
        uuid = rec.get("uuid")
        if not isinstance(uuid, str) or uuid in seen:
            break
        seen.add(uuid)
        chain.append(node)
        parent = rec.get("parentUuid")
        node = by_uuid.get(parent) if isinstance(parent, str) else None
    chain.reverse()
    return [(n, r) for n, r in chain if r.get("type") in _CONVERSATION_TYPES]


def _source_records(doc: Document) -> tuple[tuple[tuple[int, JSON], ...], bool]:
    """The entries and whether they are placed by index (a ``{"loglines": [...]}`` export) or by line."""
    loglines = doc.value.get("loglines") if isinstance(doc.value, dict) else None
    if doc.is_json and isinstance(loglines, list):
        return tuple(enumerate(loglines)), True
    if doc.records is None:
        raise BadInput("expected JSON lines (one object per line) or an object with a 'loglines' list")
    return doc.records, False


def _api_error(rec: dict[str, JSON], message: Message) -> str | None:
    """Claude Code writes a failed API call as a synthetic assistant line flagged ``isApiErrorMessage``."""
    if message.role is not Role.ASSISTANT or rec.get("isApiErrorMessage") is not True:
        return None
    return message.text or opt_str(rec, "error") or "API error"


def parse(doc: Document) -> Transcript:
    """Parse a Claude Code session.

    Raises:
        BadInput: at the first line that does not fit.
    """
    source, by_index = _source_records(doc)
    records: list[tuple[int, dict[str, JSON]]] = []
    session_id: str | None = None
    title: str | None = None

    def place(number: int) -> AbstractContextManager[None]:
        return located(index=number) if by_index else located(line=number)

    def ref(number: int) -> SourceRef:
        return SourceRef(record=number) if by_index else SourceRef(line=number)

    for number, value in source:
        with place(number):
            rec = as_object(value, "line")
            kind = rec.get("type")
            if not isinstance(kind, str):
                raise BadInput("type is missing")
            if kind in _CONVERSATION_TYPES:
                if not isinstance(rec.get("message"), dict):
                    raise BadInput(f"a {kind} line needs a 'message' object")
            elif kind == "summary":
                title = opt_str(rec, "summary") or title
            elif kind not in _NON_MESSAGE_TYPES:
                raise BadInput(f"type {kind!r} is not a Claude Code line type")
            session_id = session_id or opt_str(rec, "sessionId")
            records.append((number, rec))
    warnings: list[str] = []
    messages: list[Message] = []
    last_api_id: str | None = None
    for number, rec in _chain(records):
        with place(number):
            inner = as_object(rec["message"], "message")
            expanded = expand_message(inner, ref(number), warnings)
            stamp = parse_timestamp(rec.get("timestamp"))
            uuid = opt_str(rec, "uuid")
            api_id = opt_str(inner, "id")
            usage = anthropic_usage(inner.get("usage"), "message.usage")
            model = opt_str(inner, "model")
            expanded = [
                replace(
                    m,
                    id=uuid,
                    timestamp_ms=stamp,
                    raw=rec if len(expanded) == 1 else m.raw,
                    usage=usage if m.role is Role.ASSISTANT else None,
                    model=model if m.role is Role.ASSISTANT else None,
                    stop_reason=opt_str(inner, "stop_reason") if m.role is Role.ASSISTANT else None,
                    error=_api_error(rec, m),
                )
                for m in expanded
            ]
            if (
                rec.get("type") == "assistant"
                and api_id is not None
                and api_id == last_api_id
                and messages
                and messages[-1].role is Role.ASSISTANT
                and len(expanded) == 1
            ):
                # Streaming writes one line per content block of the same response; the API saw one message.
                prev = messages[-1]
                cur = expanded[0]
                messages[-1] = replace(
                    prev,
                    parts=prev.parts + cur.parts,
                    tool_calls=prev.tool_calls + cur.tool_calls,
                    usage=cur.usage or prev.usage,
                    model=cur.model or prev.model,
                    stop_reason=cur.stop_reason or prev.stop_reason,
                )
            else:
                messages.extend(expanded)
            last_api_id = api_id if rec.get("type") == "assistant" else None
    messages = fill_tool_names(messages)
    model, provider = last_model(messages)
    return Transcript(
        format=NAME,
        messages=tuple(messages),
        session_id=session_id,
        title=title,
        model=model,
        provider="anthropic",
        warnings=tuple(warnings),
    )
