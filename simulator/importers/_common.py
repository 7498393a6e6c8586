"""Shared plumbing for the transcript importers: decoding, located errors, timestamps, usage, content parts.

Importers see a :class:`Document` (the text decoded once, as one JSON value and, where the text is line
oriented, as JSONL records) and raise :class:`BadInput` with a line or record index; the package entry point
turns the first candidate's :class:`BadInput` into the public ``TranscriptParseError``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import orjson

from simulator.jsonvalue import JSON, as_int, as_object, as_str, type_name
from simulator.transcript import ImagePart, Message, Part, Role, TextPart, ToolResult, Usage


class BadInput(Exception):
    """A located reason why one importer rejects the input (internal; never leaves the package)."""

    def __init__(self, reason: str, *, line: int | None = None, index: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.index = index


class JsonDecodeFailure(Exception):
    """The text is neither one JSON value nor JSON lines."""

    def __init__(self, reason: str, line: int | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


@dataclass(frozen=True, slots=True)
class Document:
    """The decoded input.

    ``value`` is the whole text as one JSON value (``None`` with ``is_json=False`` when the text is JSONL).
    ``records`` holds ``(1-based line, value)`` per non-blank line when the text is JSONL, or a single
    record when the whole text is one JSON object (a one-line JSONL file), else ``None``.
    """

    is_json: bool
    value: JSON
    records: tuple[tuple[int, JSON], ...] | None


def _loads(text: str) -> JSON:
    """orjson for speed; the standard library for anything orjson rejects.

    So what ``json.loads`` accepts (NaN, integers over 64 bits, lone surrogates) still parses, and errors
    keep the standard library's message with its line and column.
    """
    try:
        value: JSON = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = json.loads(text)
    return value


def decode(text: str) -> Document:
    """Decode ``text`` as one JSON value, falling back to JSON lines.

    Raises:
        JsonDecodeFailure: with the line (and column in the reason) of the first invalid JSON.
    """
    try:
        value: JSON = _loads(text)
    except json.JSONDecodeError as whole_error:
        return _decode_lines(text, whole_error)
    records = ((_first_content_line(text), value),) if isinstance(value, dict) else None
    return Document(is_json=True, value=value, records=records)


def _first_content_line(text: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            return number
    return 1


def _decode_lines(text: str, whole_error: json.JSONDecodeError) -> Document:
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    first_ok = False
    if len(lines) > 1:
        try:
            first_ok = isinstance(_loads(lines[0][1]), dict)
        except json.JSONDecodeError:
            first_ok = False
    if not first_ok:
        # Not line oriented: report the position the whole-text parse stopped at.
        raise JsonDecodeFailure(
            f"invalid JSON: {whole_error.msg} (line {whole_error.lineno}, column {whole_error.colno})",
            whole_error.lineno,
        )
    records: list[tuple[int, JSON]] = []
    for number, line in lines:
        try:
            value: JSON = _loads(line)
        except json.JSONDecodeError as exc:
            raise JsonDecodeFailure(f"invalid JSON: {exc.msg} (column {exc.colno})", number) from None
        records.append((number, value))
    return Document(is_json=False, value=None, records=tuple(records))


@contextmanager
def located(*, index: int | None = None, line: int | None = None) -> Iterator[None]:
    """Attach a place to errors raised inside the block that do not carry one yet."""
    try:
        yield
    except BadInput as exc:
        if exc.line is None and exc.index is None:
            raise BadInput(exc.reason, line=line, index=index) from None
        raise
    except (TypeError, ValueError) as exc:
        raise BadInput(str(exc), line=line, index=index) from None


def compact_json(value: JSON) -> str:
    """Compact JSON text (no spaces, raw non-ASCII), the form tool arguments are kept in."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def parse_timestamp(value: JSON, what: str = "timestamp") -> int | None:
    """ISO-8601 text or epoch milliseconds to epoch milliseconds (naive ISO times are taken as UTC)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an ISO string or epoch milliseconds, got boolean")
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{what} is not an ISO-8601 time: {value!r}") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return round(moment.timestamp() * 1000)
    raise TypeError(f"{what} must be an ISO string or epoch milliseconds, got {type_name(value)}")


def opt_int(obj: Mapping[str, JSON], key: str, what: str | None = None) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return as_int(value, what or key)


def require_str(obj: Mapping[str, JSON], key: str, what: str) -> str:
    if key not in obj:
        raise BadInput(f"{what} is missing")
    return as_str(obj[key], what)


def usage_or_none(usage: Usage) -> Usage | None:
    return None if usage == Usage() else usage


def openai_usage(raw: JSON, what: str = "usage") -> Usage | None:
    """Chat Completions ``usage``; ``prompt_tokens`` includes cached tokens, so they are split out."""
    if raw is None:
        return None
    obj = as_object(raw, what)
    prompt = opt_int(obj, "prompt_tokens", f"{what}.prompt_tokens")
    cached = None
    details = obj.get("prompt_tokens_details")
    if isinstance(details, dict):
        cached = opt_int(details, "cached_tokens", f"{what}.prompt_tokens_details.cached_tokens")
    return usage_or_none(
        Usage(
            input_tokens=None if prompt is None else prompt - (cached or 0),
            output_tokens=opt_int(obj, "completion_tokens", f"{what}.completion_tokens"),
            cache_read_tokens=cached,
            total_tokens=opt_int(obj, "total_tokens", f"{what}.total_tokens"),
        )
    )


def responses_usage(raw: JSON, what: str = "usage") -> Usage | None:
    """Responses API / Codex ``usage``; ``input_tokens`` includes cached tokens, so they are split out."""
    if raw is None:
        return None
    obj = as_object(raw, what)
    total_in = opt_int(obj, "input_tokens", f"{what}.input_tokens")
    cached = opt_int(obj, "cached_input_tokens", f"{what}.cached_input_tokens")
    details = obj.get("input_tokens_details")
    if cached is None and isinstance(details, dict):
        cached = opt_int(details, "cached_tokens", f"{what}.input_tokens_details.cached_tokens")
    return usage_or_none(
        Usage(
            input_tokens=None if total_in is None else total_in - (cached or 0),
            output_tokens=opt_int(obj, "output_tokens", f"{what}.output_tokens"),
            cache_read_tokens=cached,
            total_tokens=opt_int(obj, "total_tokens", f"{what}.total_tokens"),
        )
    )


def anthropic_usage(raw: JSON, what: str = "usage") -> Usage | None:
    """Anthropic ``usage``: ``input_tokens`` already excludes cache reads and writes."""
    if raw is None:
        return None
    obj = as_object(raw, what)
    return usage_or_none(
        Usage(
            input_tokens=opt_int(obj, "input_tokens", f"{what}.input_tokens"),
            output_tokens=opt_int(obj, "output_tokens", f"{what}.output_tokens"),
            cache_read_tokens=opt_int(obj, "cache_read_input_tokens", f"{what}.cache_read_input_tokens"),
            cache_write_tokens=opt_int(
                obj, "cache_creation_input_tokens", f"{what}.cache_creation_input_tokens"
            ),
        )
    )


def image_from_url(url: str, media_type: str | None = None) -> ImagePart:
    """A ``data:`` URL becomes inline base64; anything else is kept as a URL."""
    if url.startswith("data:") and "," in url:
        header, payload = url[5:].split(",", 1)
        fields = header.split(";")
        mime = fields[0] or media_type
        if "base64" in fields[1:]:
            return ImagePart(source="base64", data=payload, media_type=mime)
    return ImagePart(source="url", data=url, media_type=media_type)


def text_parts(text: str) -> tuple[Part, ...]:
    """One text part, or none for empty text (so empty and missing content look the same)."""
    return (TextPart(text),) if text else ()


def fill_tool_names(messages: list[Message]) -> list[Message]:
    """Give tool results without a name the name of the call they answer (formats that only carry ids)."""
    names: dict[str, str] = {}
    out: list[Message] = []
    for message in messages:
        for call in message.tool_calls:
            names.setdefault(call.id, call.name)
        result = message.tool_result
        if result is not None and result.name is None and result.call_id in names:
            message = replace(
                message, tool_result=ToolResult(result.call_id, names[result.call_id], result.is_error)
            )
        out.append(message)
    return out


def last_model(messages: list[Message]) -> tuple[str | None, str | None]:
    """Model and provider of the newest assistant message that names one."""
    for message in reversed(messages):
        if message.role is Role.ASSISTANT and (message.model or message.provider):
            return message.model, message.provider
    return None, None
