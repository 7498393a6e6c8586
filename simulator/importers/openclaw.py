"""OpenClaw (pi) session JSONL v3 importer.

Source format: openclaw.md §1 and peers-and-needs.md §5 D. Line 1 is the header ``{type: "session", version:
3, id, timestamp, cwd}`` (optionally preceded by a ``title`` slot); every other line is an entry ``{type, id,
parentId, timestamp}`` forming a tree. The active context is the path from the last entry back to the root.

What reaches the model is rebuilt the way pi's session context builder does it, since that is what OpenClaw
sends: ``message`` entries (``user`` / ``assistant`` / ``toolResult`` AgentMessages, plus ``bashExecution``,
``custom``, ``branchSummary`` and ``compactionSummary`` roles), ``custom_message`` and ``branch_summary``
entries as user text, and for the newest ``compaction`` on the path a user message carrying its summary
followed by the entries from ``firstKeptEntryId`` on (older entries are dropped, and a warning says how many).
Older files are migrated first, as pi's ``SessionManager`` does on load (coding-agent
``src/core/session-manager.ts``, ``migrateToCurrentVersion``): a header without ``version`` (or no header and
entries without ids) is v1 and gets ids and a linear ``parentId`` chain, compaction ``firstKeptEntryIndex``
becoming ``firstKeptEntryId``; v1 and v2 ``hookMessage`` roles become ``custom``.
``custom`` entries with ``customType: "openclaw.cache-ttl"`` become :class:`CacheTtlMarker`; other ``custom``,
``model_change``, ``thinking_level_change``, ``label`` and ``session_info`` entries are not model-visible and
are skipped.
"""

from __future__ import annotations

from bisect import bisect_left
from operator import itemgetter

from simulator.importers import _openclaw_fast as _fast
from simulator.importers._common import (
    BadInput,
    Document,
    compact_json,
    last_model,
    located,
    opt_int,
    parse_timestamp,
    relocated,
    require_str,
    usage_or_none,
)
from simulator.jsonvalue import JSON, as_bool, as_list, as_object, as_str, opt_str
from simulator.transcript import (
    CacheTtlMarker,
    ImagePart,
    Message,
    MessageVariant,
    Part,
    Role,
    SourceRef,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResult,
    Transcript,
    Usage,
)

NAME = "openclaw"

FAST_PATHS = True
"""Whether the common entry shapes go through :mod:`simulator.importers._openclaw_fast` first (tests turn it
off to compare both paths; the result is the same either way)."""

CURRENT_SESSION_VERSION = 3

CACHE_TTL_CUSTOM_TYPE = "openclaw.cache-ttl"
COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"

_ENTRY_TYPES = _fast.ENTRY_KINDS


_Entry = _fast.Entry


def _blocks(raw: JSON, where: str, *, assistant: bool) -> tuple[tuple[Part, ...], tuple[ToolCall, ...]]:
    if isinstance(raw, str):
        return ((TextPart(raw),) if raw else ()), ()
    parts: list[Part] = []
    calls: list[ToolCall] = []
    for i, item in enumerate(as_list(raw, where)):
        # The common block first, without building the place names errors would need.
        if type(item) is dict and item.get("type") == "text" and type(text := item.get("text")) is str:
            parts.append(TextPart(text))
            continue
        w = f"{where}[{i}]"
        block = as_object(item, w)
        kind = require_str(block, "type", f"{w}.type")
        if kind == "text":
            parts.append(TextPart(require_str(block, "text", f"{w}.text")))
        elif kind == "image":
            parts.append(
                ImagePart(
                    source="base64",
                    data=require_str(block, "data", f"{w}.data"),
                    media_type=opt_str(block, "mimeType"),
                )
            )
        elif kind == "thinking" and assistant:
            redacted = block.get("redacted") is True
            parts.append(
                ThinkingPart(
                    require_str(block, "thinking", f"{w}.thinking"),
                    signature=opt_str(block, "thinkingSignature"),
                    redacted=redacted,
                )
            )
        elif kind == "redacted_thinking" and assistant:
            parts.append(ThinkingPart("", signature=require_str(block, "data", f"{w}.data"), redacted=True))
        elif kind == "toolCall" and assistant:
            arguments = block.get("arguments")
            calls.append(
                ToolCall(
                    id=require_str(block, "id", f"{w}.id"),
                    name=require_str(block, "name", f"{w}.name"),
                    arguments=compact_json(
                        as_object(arguments, f"{w}.arguments") if arguments is not None else {}
                    ),
                )
            )
        else:
            raise BadInput(f"{w}.type {kind!r} is not allowed here")
    return tuple(parts), tuple(calls)


def _usage(raw: JSON) -> Usage | None:
    if raw is None:
        return None
    obj = as_object(raw, "message.usage")
    return usage_or_none(
        Usage(
            input_tokens=opt_int(obj, "input", "message.usage.input"),
            output_tokens=opt_int(obj, "output", "message.usage.output"),
            cache_read_tokens=opt_int(obj, "cacheRead", "message.usage.cacheRead"),
            cache_write_tokens=opt_int(obj, "cacheWrite", "message.usage.cacheWrite"),
            total_tokens=opt_int(obj, "totalTokens", "message.usage.totalTokens"),
        )
    )


def _user_text(text: str, entry: _Entry, stamp: int | None, variant: MessageVariant) -> Message:
    return Message(
        role=Role.USER,
        parts=(TextPart(text),),
        id=entry.id,
        timestamp_ms=stamp,
        source=SourceRef(line=entry.line),
        raw=entry.record,
        variant=variant,
    )


def agent_message(
    raw: JSON,
    *,
    entry_id: str | None,
    line: int | None,
    fallback_ms: int | None,
    written_ms: int | None = None,
) -> Message:
    """One AgentMessage (``message`` entry payload) as a model message.

    ``written_ms`` is the time of the entry holding it (:attr:`Message.written_ms`).

    Raises:
        BadInput: naming the offending field.
    """
    msg = as_object(raw, "message")
    role = require_str(msg, "role", "message.role")
    stamp = parse_timestamp(msg.get("timestamp"), "message.timestamp")
    stamp = fallback_ms if stamp is None else stamp
    source = SourceRef(line=line)
    if role == "user":
        parts, _ = _blocks(msg.get("content"), "message.content", assistant=False)
        return Message(
            role=Role.USER,
            parts=parts,
            id=entry_id,
            timestamp_ms=stamp,
            source=source,
            raw=raw,
            written_ms=written_ms,
        )
    if role == "assistant":
        parts, calls = _blocks(msg.get("content"), "message.content", assistant=True)
        stop_reason = opt_str(msg, "stopReason")
        # pi records a failed provider call as an assistant message with stopReason "error" and the
        # provider's text in errorMessage (e.g. "fetch failed"); it is not a reply.
        error = (opt_str(msg, "errorMessage") or "error") if stop_reason == "error" else None
        return Message(
            role=Role.ASSISTANT,
            parts=parts,
            tool_calls=calls,
            id=entry_id,
            timestamp_ms=stamp,
            usage=_usage(msg.get("usage")),
            model=opt_str(msg, "model"),
            provider=opt_str(msg, "provider"),
            source=source,
            raw=raw,
            stop_reason=stop_reason,
            error=error,
            written_ms=written_ms,
        )
    if role == "toolResult":
        parts, _ = _blocks(msg.get("content"), "message.content", assistant=False)
        is_error = msg.get("isError")
        result = ToolResult(
            call_id=require_str(msg, "toolCallId", "message.toolCallId"),
            name=opt_str(msg, "toolName"),
            is_error=as_bool(is_error, "message.isError") if is_error is not None else False,
        )
        return Message(
            role=Role.TOOL,
            parts=parts,
            tool_result=result,
            id=entry_id,
            timestamp_ms=stamp,
            source=source,
            raw=raw,
            written_ms=written_ms,
        )
    variant: MessageVariant | None = None
    if role == "compactionSummary":
        text = (
            COMPACTION_SUMMARY_PREFIX
            + require_str(msg, "summary", "message.summary")
            + COMPACTION_SUMMARY_SUFFIX
        )
        variant = "compaction_summary"
    elif role == "branchSummary":
        text = BRANCH_SUMMARY_PREFIX + require_str(msg, "summary", "message.summary") + BRANCH_SUMMARY_SUFFIX
        variant = "branch_summary"
    elif role == "custom":
        parts, _ = _blocks(msg.get("content"), "message.content", assistant=False)
        return Message(
            role=Role.USER,
            parts=parts,
            id=entry_id,
            timestamp_ms=stamp,
            source=source,
            raw=raw,
            variant="custom_message",
            written_ms=written_ms,
        )
    elif role == "bashExecution":
        command = require_str(msg, "command", "message.command")
        output = opt_str(msg, "output") or ""
        text = f"Ran `{command}`\n```\n{output}\n```"
    else:
        raise BadInput(f"message.role {role!r} is not an OpenClaw AgentMessage role")
    return Message(
        role=Role.USER,
        parts=(TextPart(text),),
        id=entry_id,
        timestamp_ms=stamp,
        source=source,
        raw=raw,
        variant=variant,
        written_ms=written_ms,
    )


def _read_entries(doc: Document) -> tuple[dict[str, JSON] | None, list[_Entry], list[str]]:
    if doc.records is None:
        raise BadInput("expected JSON lines (one object per line)")
    if FAST_PATHS:
        read = _fast.v3_entries(doc.records)
        if read is not None:
            return read[0], read[1], []
    header: dict[str, JSON] | None = None
    raw_entries: list[tuple[int, dict[str, JSON]]] = []
    warnings: list[str] = []
    number: int | None = None
    try:
        for number, value in doc.records:
            rec = as_object(value, "line")
            kind = require_str(rec, "type", "type")
            if kind == "session":
                if header is not None or raw_entries:
                    raise BadInput("a session header may only start the file")
                header = rec
                continue
            if kind == "title" and header is None and not raw_entries:
                continue
            if kind not in _ENTRY_TYPES:
                raise BadInput(f"type {kind!r} is not an OpenClaw session entry type")
            raw_entries.append((number, rec))
    except (BadInput, TypeError, ValueError) as exc:
        raise relocated(exc, line=number) from None
    version = header.get("version") if header is not None else None
    if header is None and all("id" in rec for _, rec in raw_entries):
        warnings.append("no session header line (type 'session'); entries read as a v3 tree")
        version = CURRENT_SESSION_VERSION
    elif not isinstance(version, int) or isinstance(version, bool):
        version = 1
    if version > CURRENT_SESSION_VERSION:
        warnings.append(f"session version {version} (v3 expected); read as v3")
    if version < 2:
        raw_entries = _migrate_v1_to_v2(doc.records, raw_entries)
        warnings.append(
            f"session written before entries had ids (version {version}): migrated as pi's session manager"
            " does (ids assigned in file order, each entry the child of the one before)"
        )
    if version < 3:
        raw_entries = [(n, _migrate_v2_to_v3(rec)) for n, rec in raw_entries]
    entries: list[_Entry] = []
    try:
        for number, rec in raw_entries:
            entry_id = rec.get("id")
            if type(entry_id) is not str:
                entry_id = require_str(rec, "id", "id")
            parent = rec.get("parentId")
            if parent is not None and type(parent) is not str:
                parent = as_str(parent, "parentId")
            entries.append(_Entry(number, entry_id, parent, str(rec["type"]), rec))
    except (BadInput, TypeError, ValueError) as exc:
        raise relocated(exc, line=number) from None
    return header, entries, warnings


def _migrate_v1_to_v2(
    records: tuple[tuple[int, JSON], ...], entries: list[tuple[int, dict[str, JSON]]]
) -> list[tuple[int, dict[str, JSON]]]:
    """pi's ``migrateV1ToV2`` (session-manager.ts): a linear chain of fresh ids in file order.

    pi draws random 8-hex ids; here the id is derived from the line so a replay is deterministic. A
    compaction's ``firstKeptEntryIndex`` (an index into the file's parsed lines, header included) becomes
    ``firstKeptEntryId`` unless it points at the header.
    """
    ids = {number: f"v1-line-{number}" for number, _ in entries}
    migrated: list[tuple[int, dict[str, JSON]]] = []
    previous: str | None = None
    for number, rec in entries:
        new: dict[str, JSON] = {**rec, "id": ids[number], "parentId": previous}
        previous = ids[number]
        if rec.get("type") == "compaction":
            index = new.pop("firstKeptEntryIndex", None)
            if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(records):
                target_line = records[index][0]
                if target_line in ids:
                    new["firstKeptEntryId"] = ids[target_line]
        migrated.append((number, new))
    return migrated


def _migrate_v2_to_v3(rec: dict[str, JSON]) -> dict[str, JSON]:
    """pi's ``migrateV2ToV3``: the ``hookMessage`` message role became ``custom``."""
    message = rec.get("message")
    if rec.get("type") == "message" and isinstance(message, dict) and message.get("role") == "hookMessage":
        return {**rec, "message": {**message, "role": "custom"}}
    return rec


def _active_path(entries: list[_Entry]) -> list[_Entry]:
    ids = [e.id for e in entries]
    if [e.parent for e in entries[1:]] == ids[:-1] and len(set(ids)) == len(ids):
        # A chain (each entry the child of the one before) of distinct ids, as most files are: the walk
        # from the last entry back would visit every entry.
        return list(entries)
    by_id = {e.id: e for e in entries}
    path: list[_Entry] = []
    seen: set[str] = set()
    node = entries[-1] if entries else None
    while node is not None and node.id not in seen:
        seen.add(node.id)
        path.append(node)
        node = by_id.get(node.parent) if node.parent is not None else None
    path.reverse()
    return path


def parse(doc: Document) -> Transcript:
    """Parse an OpenClaw session file, keeping the active branch as OpenClaw would send it.

    Raises:
        BadInput: at the first line that does not fit.
    """
    header, entries, warnings = _read_entries(doc)
    path = _active_path(entries)
    if len(path) < len(entries):
        warnings.append(f"{len(entries) - len(path)} entries are off the active branch and were left out")
    kinds = [e.kind for e in path]
    # The newest compaction (list methods: no Python loop over a long path).
    compaction_at = len(kinds) - 1 - kinds[::-1].index("compaction") if "compaction" in kinds else None
    # (position on the path used to place cache-ttl markers, message)
    produced: list[tuple[float, Message]] = []
    markers: list[tuple[int, _Entry]] = []
    start = 0
    if compaction_at is not None:
        comp = path[compaction_at]
        with located(line=comp.line):
            summary = require_str(comp.record, "summary", "summary")
            first_kept = opt_str(comp.record, "firstKeptEntryId")
            stamp = parse_timestamp(comp.record.get("timestamp"))
        kept_from = next((i for i, e in enumerate(path[:compaction_at]) if e.id == first_kept), compaction_at)
        if "retainedTail" in comp.record and first_kept is None:
            warnings.append(
                f"line {comp.line}: compaction.retainedTail is not replayed; only its summary is kept"
            )
        dropped = sum(
            1 for e in path[:kept_from] if e.kind in ("message", "custom_message", "branch_summary")
        )
        tokens_before = comp.record.get("tokensBefore")
        warnings.append(
            f"line {comp.line}: compaction replaced {dropped} earlier entries with its summary"
            + (f" (tokensBefore {tokens_before})" if isinstance(tokens_before, int) else "")
        )
        text = COMPACTION_SUMMARY_PREFIX + summary + COMPACTION_SUMMARY_SUFFIX
        produced.append((kept_from - 0.5, _user_text(text, comp, stamp, "compaction_summary")))
        _emit(path, range(kept_from, compaction_at), produced, markers)
        for pos, entry in enumerate(path[:kept_from]):
            if _is_marker(entry):
                markers.append((pos, entry))
        start = compaction_at + 1
    _emit(path, range(start, len(path)), produced, markers)
    messages = [m for _, m in produced]
    positions = sorted(p for p, _ in produced) if markers else []
    cache_markers = _cache_markers(markers, positions)
    model, provider = last_model(messages)
    session_id = opt_str(header, "id") if header is not None else None
    title = None
    for entry in path if "session_info" in kinds else ():
        if entry.kind == "session_info":
            title = opt_str(entry.record, "name") or title
    return Transcript(
        format=NAME,
        messages=tuple(messages),
        session_id=session_id,
        title=title,
        model=model,
        provider=provider,
        cache_ttl_markers=tuple(cache_markers),
        warnings=tuple(warnings),
    )


def _cache_markers(markers: list[tuple[int, _Entry]], positions: list[float]) -> list[CacheTtlMarker]:
    """The cache-ttl markers, in path order, each placed after the messages before it on the path."""
    cache_markers: list[CacheTtlMarker] = []
    for pos, entry in sorted(markers, key=itemgetter(0)):
        data = entry.record.get("data")
        if FAST_PATHS and type(data) is dict:
            # The common marker (what OpenClaw writes): epoch milliseconds, provider and model id strings.
            ts, provider, model_id = data.get("timestamp"), data.get("provider"), data.get("modelId")
            if (
                type(ts) is int
                and (provider is None or type(provider) is str)
                and (model_id is None or type(model_id) is str)
            ):
                cache_markers.append(CacheTtlMarker(ts, provider, model_id, bisect_left(positions, pos)))
                continue
        with located(line=entry.line):
            data = as_object(data, "data")
            ts = parse_timestamp(data.get("timestamp"), "data.timestamp")
            if ts is None:
                ts = parse_timestamp(entry.record.get("timestamp"))
            if ts is None:
                raise BadInput("cache-ttl marker has no timestamp")
            cache_markers.append(
                CacheTtlMarker(
                    timestamp_ms=ts,
                    provider=opt_str(data, "provider"),
                    model_id=opt_str(data, "modelId"),
                    after_message=bisect_left(positions, pos),
                )
            )
    return cache_markers


def _is_marker(entry: _Entry) -> bool:
    return entry.kind == "custom" and entry.record.get("customType") == CACHE_TTL_CUSTOM_TYPE


def _emit(
    path: list[_Entry],
    positions: range,
    produced: list[tuple[float, Message]],
    markers: list[tuple[int, _Entry]],
) -> None:
    """The model messages (and cache-ttl markers) of the entries of ``path`` at ``positions``."""
    entry: _Entry | None = None
    fast = FAST_PATHS
    message_entry, plain_stamp = _fast.message_entry, _fast.plain_stamp
    try:
        for pos in positions:
            entry = path[pos]
            if fast:
                kind = entry.kind
                if kind == "message":
                    msg = message_entry(entry.record, entry.id, entry.line)
                    if msg is not None:
                        produced.append((pos, msg))
                        continue
                elif kind not in _TEXT_ENTRIES and plain_stamp(entry.record.get("timestamp")):
                    # What _emit_entry does with it: check its timestamp, keep it if it is a cache-ttl marker.
                    if kind == "custom" and entry.record.get("customType") == CACHE_TTL_CUSTOM_TYPE:
                        markers.append((pos, entry))
                    continue
            _emit_entry(entry, pos, produced, markers)
    except (BadInput, TypeError, ValueError) as exc:
        raise relocated(exc, line=None if entry is None else entry.line) from None


# Entries other than ``message`` that _emit_entry turns into a model message.
_TEXT_ENTRIES = frozenset({"custom_message", "branch_summary"})


def _emit_entry(
    entry: _Entry, pos: int, produced: list[tuple[float, Message]], markers: list[tuple[int, _Entry]]
) -> None:
    stamp = parse_timestamp(entry.record.get("timestamp"))
    if entry.kind == "message":
        if "message" not in entry.record:
            raise BadInput("a message entry needs a 'message' object")
        msg = agent_message(
            entry.record["message"], entry_id=entry.id, line=entry.line, fallback_ms=stamp, written_ms=stamp
        )
        produced.append((pos, msg))
    elif entry.kind == "custom_message":
        parts, _ = _blocks(entry.record.get("content"), "content", assistant=False)
        produced.append(
            (
                pos,
                Message(
                    role=Role.USER,
                    parts=parts,
                    id=entry.id,
                    timestamp_ms=stamp,
                    source=SourceRef(line=entry.line),
                    raw=entry.record,
                    variant="custom_message",
                ),
            )
        )
    elif entry.kind == "branch_summary":
        text = BRANCH_SUMMARY_PREFIX + require_str(entry.record, "summary", "summary") + BRANCH_SUMMARY_SUFFIX
        produced.append((pos, _user_text(text, entry, stamp, "branch_summary")))
    elif _is_marker(entry):
        markers.append((pos, entry))
