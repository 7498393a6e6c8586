"""Transcript importers: text in one of the supported formats to the runtime-neutral :class:`Transcript`.

Formats (see each module's docstring for its source reference): ``openai-chat``, ``openai-responses`` (incl.
Codex rollout JSONL), ``anthropic``, ``claude-code`` (JSONL or a ``{"loglines": [...]}`` export),
``openclaw``, ``zeroclaw-chat``, ``zeroclaw-conversation``, ``langchain``, ``swe-agent`` (``.traj`` JSON or
demonstration YAML). Importers are pure: they take the text, never a path.

Decoding tries one JSON value, then JSON lines (malformed lines are skipped and reported, as pi's session
loader skips them), then YAML (SWE-agent demonstrations); text that is none of these is "not recognised".
Auto-detection decodes the text once, ranks the formats by tell-tale fields (record ``type`` values, block
types, ZeroClaw's JSON-in-content envelopes, ...) and tries them in that order; the first that parses wins.
When none does, the error of the best-ranked one is raised, naming every format tried.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from simulator.errors import TranscriptParseError
from simulator.importers import (
    anthropic,
    claude_code,
    langchain,
    openai_chat,
    openai_responses,
    openclaw,
    swe_agent,
    zeroclaw_chat,
    zeroclaw_conversation,
)
from simulator.importers._common import BadInput, Document, JsonDecodeFailure, decode
from simulator.importers._yaml import YamlFailure, load_yaml, looks_like_yaml_document
from simulator.jsonvalue import JSON
from simulator.long_lived import collector_paused
from simulator.transcript import Transcript

__all__ = ["FORMATS", "detect_format", "parse_transcript"]

_PARSERS: dict[str, Callable[[Document], Transcript]] = {
    openai_chat.NAME: openai_chat.parse,
    openai_responses.NAME: openai_responses.parse,
    anthropic.NAME: anthropic.parse,
    claude_code.NAME: claude_code.parse,
    openclaw.NAME: openclaw.parse,
    zeroclaw_chat.NAME: zeroclaw_chat.parse,
    zeroclaw_conversation.NAME: zeroclaw_conversation.parse,
    langchain.NAME: langchain.parse,
    swe_agent.NAME: swe_agent.parse,
}

FORMATS: tuple[str, ...] = tuple(_PARSERS)
"""Every importable format name, in a stable order."""

_LINE_FORMATS = (openclaw.NAME, claude_code.NAME, openai_responses.NAME)
_LIST_FORMATS = (
    openai_chat.NAME,
    anthropic.NAME,
    zeroclaw_chat.NAME,
    zeroclaw_conversation.NAME,
    langchain.NAME,
    openai_responses.NAME,
)
_OPENCLAW_TYPES = {
    "session",
    "message",
    "custom",
    "custom_message",
    "compaction",
    "branch_summary",
    "model_change",
}
_CLAUDE_TYPES = {"user", "assistant", "summary"}
_RESPONSES_ITEM_TYPES = {
    "message",
    "function_call",
    "function_call_output",
    "reasoning",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "local_shell_call_output",
}
_ANTHROPIC_BLOCKS = {"tool_use", "tool_result", "thinking", "redacted_thinking"}
_OPENAI_PARTS = {"image_url", "input_audio", "refusal"}


def _rank(signals: dict[str, int], order: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(order, key=lambda name: (-signals.get(name, 0), order.index(name))))


def _rank_records(records: tuple[tuple[int, JSON], ...]) -> tuple[str, ...]:
    signals: dict[str, int] = {}
    for _, rec in records[:50]:
        if not isinstance(rec, dict):
            continue
        kind = rec.get("type")
        if not isinstance(kind, str):
            continue  # a list or object is no line type (and cannot be looked up in a set)
        if kind in _OPENCLAW_TYPES and ("parentId" in rec or kind == "session"):
            signals[openclaw.NAME] = signals.get(openclaw.NAME, 0) + 1
        if kind in _CLAUDE_TYPES and ("message" in rec or "sessionId" in rec or "leafUuid" in rec):
            signals[claude_code.NAME] = signals.get(claude_code.NAME, 0) + 1
        if kind in openai_responses.CODEX_LINE_TYPES and "payload" in rec:
            signals[openai_responses.NAME] = signals.get(openai_responses.NAME, 0) + 1
    return _rank(signals, _LINE_FORMATS)


def _block_types(content: JSON) -> set[str]:
    if not isinstance(content, list):
        return set()
    return {str(b.get("type")) for b in content if isinstance(b, dict)}


def _rank_messages(items: list[JSON]) -> tuple[str, ...]:
    signals: dict[str, int] = {}

    def vote(name: str, weight: int = 1) -> None:
        signals[name] = signals.get(name, 0) + weight

    plain_chat = True
    for item in items[:200]:
        if not isinstance(item, dict):
            plain_chat = False
            continue
        kind = item.get("type")
        if not isinstance(kind, str):
            kind = None  # a list or object names no item type (and cannot be looked up in a set)
        if kind in ("Chat", "AssistantToolCalls", "ToolResults") and "data" in item:
            vote(zeroclaw_conversation.NAME, 3)
        if isinstance(item.get("data"), dict) and kind in (
            "human",
            "ai",
            "system",
            "tool",
            "function",
            "chat",
        ):
            vote(langchain.NAME, 3)
        if kind in _RESPONSES_ITEM_TYPES or "call_id" in item:
            vote(openai_responses.NAME, 3)
        if item.get("role") in ("human", "ai") or (kind in ("human", "ai") and "content" in item):
            vote(langchain.NAME, 2)
        content = item.get("content")
        blocks = _block_types(content)
        anthropic_image = isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "image" and "source" in b for b in content
        )
        if blocks & _ANTHROPIC_BLOCKS or anthropic_image:
            vote(anthropic.NAME, 2)
        if blocks & {"input_text", "output_text", "input_image"}:
            vote(openai_responses.NAME, 2)
        if (
            "tool_calls" in item
            or "tool_call_id" in item
            or "function_call" in item
            or blocks & _OPENAI_PARTS
        ):
            vote(openai_chat.NAME, 2)
        if set(item) != {"role", "content"} or not isinstance(content, str):
            plain_chat = False
        elif (
            (item.get("role") == "tool" and content.startswith('{"tool_call_id"'))
            or (item.get("role") == "assistant" and content.startswith("{") and '"tool_calls"' in content)
            or content.startswith(zeroclaw_chat.PROMPT_TOOL_RESULTS_PREFIX)
            or "[IMAGE:" in content
        ):
            vote(zeroclaw_chat.NAME, 3)
    if plain_chat and any(isinstance(i, dict) and i.get("role") == "tool" for i in items):
        # A tool message with only role and content cannot be Chat Completions (no tool_call_id).
        vote(zeroclaw_chat.NAME, 1)
    return _rank(signals, _LIST_FORMATS)


def _candidates(doc: Document) -> tuple[str, ...]:
    value = doc.value
    if not doc.is_json:
        return _rank_records(doc.records or ())
    if isinstance(value, list):
        return _rank_messages(value)
    if isinstance(value, dict):
        if "history" in value and (
            "trajectory" in value or "info" in value or "environment" in value or "replay_config" in value
        ):
            return (swe_agent.NAME,)
        if isinstance(value.get("loglines"), list):
            return (claude_code.NAME,)
        if isinstance(value.get("messages"), list):
            items = value["messages"]
            ranked = _rank_messages(items) if isinstance(items, list) else ()
            if "system" in value and isinstance(value["system"], str | list):
                return (anthropic.NAME, *(f for f in ranked if f != anthropic.NAME))
            return tuple(f for f in ranked if f in (openai_chat.NAME, anthropic.NAME, langchain.NAME))
        if "input" in value or "output" in value:
            return (openai_responses.NAME,)
        if "type" in value and doc.records is not None:
            return _rank_records(doc.records)
        if "history" in value:
            return (swe_agent.NAME,)
    return ()


def _error(
    exc: BadInput, tried: tuple[str, ...], source: str | None, line_oriented: bool
) -> TranscriptParseError:
    return TranscriptParseError(
        exc.reason,
        formats_tried=tried,
        line=exc.line,
        message_index=None if line_oriented and exc.line is not None else exc.index,
        source=source,
    )


def _not_recognised(
    detail: str, tried: tuple[str, ...], source: str | None, line: int | None = None
) -> TranscriptParseError:
    return TranscriptParseError(
        f"format not recognised: {detail}", formats_tried=tried, line=line, source=source
    )


def _decode(text: str, tried: tuple[str, ...], source: str | None) -> tuple[Document, bool]:
    """The decoded text and whether it came from YAML; JSON first, then JSON lines, then YAML."""
    try:
        return decode(text), False
    except JsonDecodeFailure as exc:
        if not looks_like_yaml_document(text) and not exc.at_start:
            # Text that opens like JSON is a broken JSON document: say where it breaks.
            raise TranscriptParseError(
                exc.reason, formats_tried=tried, line=exc.line, source=source
            ) from None
    try:
        value = load_yaml(text)
    except YamlFailure as exc:
        raise _not_recognised(
            f"the text is not JSON, JSON lines or YAML ({exc.reason})", tried, source, exc.line
        ) from None
    if not isinstance(value, dict | list):
        raise _not_recognised(
            "the text is not JSON, JSON lines or a YAML document holding a transcript"
            " (it reads as plain text)",
            tried,
            source,
        )
    return Document(is_json=True, value=value, records=None), True


def _run(text: str, format: str | None, source: str | None) -> Transcript:
    if format is not None and format not in _PARSERS:
        raise TranscriptParseError(
            f"unknown format {format!r} (known: {', '.join(FORMATS)})", formats_tried=(format,), source=source
        )
    if not text.strip():
        raise TranscriptParseError("empty input", formats_tried=(format,) if format else (), source=source)
    # Parsing builds a few objects per message that all stay alive: collections meanwhile find nothing.
    with collector_paused():
        doc, from_yaml = _decode(text, (format,) if format else FORMATS, source)
        transcript = _parse(doc, format, source, from_yaml)
    return replace(transcript, skipped_lines=doc.skipped) if doc.skipped else transcript


def _parse(doc: Document, format: str | None, source: str | None, from_yaml: bool) -> Transcript:
    if format is not None:
        try:
            return _flagged(_PARSERS[format](doc), doc)
        except BadInput as exc:
            raise _error(exc, (format,), source, not doc.is_json) from None
    candidates = _candidates(doc)
    if not candidates:
        kind = (
            "list" if isinstance(doc.value, list) else "object" if isinstance(doc.value, dict) else "scalar"
        )
        shape = f"a YAML {'sequence' if kind == 'list' else 'mapping'}" if from_yaml else f"a JSON {kind}"
        raise _not_recognised(f"{shape} matching none of the known formats", FORMATS, source)
    first: BadInput | None = None
    for name in candidates:
        try:
            return _flagged(_PARSERS[name](doc), doc)
        except BadInput as exc:
            first = first or exc
    assert first is not None
    raise _error(first, candidates, source, not doc.is_json) from None


def _flagged(transcript: Transcript, doc: Document) -> Transcript:
    # Token counts taken out while decoding (see _common._drop_bad_counts) are the transcript's warnings.
    if not doc.warnings:
        return transcript
    return replace(transcript, warnings=(*doc.warnings, *transcript.warnings))


def parse_transcript(text: str, *, format: str | None = None, source: str | None = None) -> Transcript:
    """Parse a transcript from its text.

    Args:
        text: the whole file content (JSON, JSON lines, or YAML for SWE-agent demonstrations). Malformed lines
            of a JSON-lines file are left out and listed in ``Transcript.skipped_lines``.
        format: force one format from :data:`FORMATS`; ``None`` auto-detects.
        source: a label for errors (usually the file name); never opened.

    Returns:
        The transcript, with ``format`` set to the format that read it.

    Raises:
        TranscriptParseError: for empty text, a broken JSON document (with line and column), text that is
            none of JSON, JSON lines and YAML ("format not recognised"), an unknown ``format``, or input no
            tried format accepts (with the first offending line or message index and the reason).
    """
    return _run(text, format, source)


def detect_format(text: str) -> str:
    """Name of the format :func:`parse_transcript` would read ``text`` with.

    Raises:
        TranscriptParseError: when no format accepts the text.
    """
    return _run(text, None, None).format
