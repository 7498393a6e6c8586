"""Shared plumbing for the transcript importers: decoding, located errors, timestamps, usage, content parts.

Importers see a :class:`Document` (the text decoded once, as one JSON value and, where the text is line
oriented, as JSONL records) and raise :class:`BadInput` with a line or record index; the package entry point
turns the first candidate's :class:`BadInput` into the public ``TranscriptParseError``.

Decoding applies :mod:`simulator.jsonlimits` (depth, long numbers, lone surrogates) and takes out
provider token counts no provider reports (negative, fractional, infinite, over a billion): each is
replaced by ``null`` before any format reads it and named in ``Document.warnings``, so the transcript
page flags it instead of showing it as a count or letting it derail format detection.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from json.encoder import encode_basestring
from types import TracebackType
from typing import TypeAlias

import msgspec
from msgspec.structs import replace

from simulator.jsonlimits import (
    MAX_DEPTH,
    DocumentRejected,
    check_tree,
    may_hold_surrogates,
    too_long_number,
)
from simulator.jsonvalue import JSON, as_int, as_object, as_str, type_name
from simulator.transcript import ImagePart, Message, Part, Role, SkippedLine, TextPart, ToolResult, Usage


class BadInput(Exception):
    """A located reason why one importer rejects the input (internal; never leaves the package)."""

    def __init__(self, reason: str, *, line: int | None = None, index: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.index = index


class JsonDecodeFailure(Exception):
    """The text is neither one JSON value nor JSON lines."""

    def __init__(self, reason: str, line: int | None, *, at_start: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        # True when the text breaks at its first token after the opening bracket (e.g. a TOML table header,
        # a JSON5 comment or unquoted key): it never started as JSON, and "invalid JSON" misnames the problem.
        self.at_start = at_start


@dataclass(frozen=True, slots=True)
class Document:
    """The decoded input.

    ``value`` is the whole text as one JSON value (``None`` with ``is_json=False`` when the text is JSONL).
    ``records`` holds ``(1-based line, value)`` per non-blank line when the text is JSONL, or a single
    record when the whole text is one JSON object (a one-line JSONL file), else ``None``. ``skipped`` names
    the lines of a JSON-lines text that were left out (invalid JSON, or a value that is not an object).
    """

    is_json: bool
    value: JSON
    records: tuple[tuple[int, JSON], ...] | None
    skipped: tuple[SkippedLine, ...] = ()
    warnings: tuple[str, ...] = ()


_decode_json = msgspec.json.Decoder().decode


def _loads(text: str, line: int | None) -> JSON:
    """Decode one JSON text within the limits of :mod:`simulator.jsonlimits`.

    msgspec for speed; the standard library for anything msgspec rejects, so what ``json.loads`` accepts
    (NaN, infinities, lone surrogates) still parses and errors keep the standard library's message with its
    line and column (``JSONDecodeError`` passes through). The limits are checked on the value either way.
    msgspec reads integers of any length exactly (up to the interpreter's 4,300 digits, as ``int()``),
    accepts exactly the JSON the standard library accepts apart from those extensions, and refuses lone
    surrogates, raw (it cannot encode the text) or escaped: what it returns needs no string check.
    """
    try:
        value: JSON = _decode_json(text)
    except (msgspec.DecodeError, UnicodeEncodeError, RecursionError):
        value = _stdlib_loads(text, line)
        strings = may_hold_surrogates(text)
    else:
        strings = False
    # Nesting deeper than the limit needs at least that many brackets; most lines have a handful.
    if strings or text.count("{") + text.count("[") >= MAX_DEPTH:
        try:
            check_tree(value, strings=strings)
        except DocumentRejected as exc:
            raise JsonDecodeFailure(exc.reason, line) from None
    return value


def _stdlib_loads(text: str, line: int | None) -> JSON:
    try:
        value: JSON = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise JsonDecodeFailure(f"JSON nested deeper than {MAX_DEPTH} levels", line) from None
    except ValueError:  # int() over sys.get_int_max_str_digits() digits
        raise JsonDecodeFailure(too_long_number(), line) from None
    return value


def decode(text: str) -> Document:
    """Decode ``text`` as one JSON value, falling back to JSON lines.

    A multi-line text that is not one JSON value is read as JSON lines when its first line, or at least half
    of its lines, are JSON objects; the other lines are listed in ``Document.skipped``.

    Raises:
        JsonDecodeFailure: with the line (and column in the reason) of the first invalid JSON when the text
            is neither one JSON value nor JSON lines, or the limit a document breaks (nesting, number
            length, lone surrogate).
    """
    try:
        value: JSON = _loads(text, None)
    except json.JSONDecodeError as whole_error:
        return _decode_lines(text, whole_error)
    warnings: list[str] = []
    if _may_name_usage(text):
        if isinstance(value, list):
            for index, item in enumerate(value):
                _drop_bad_counts(item, f"message {index}", warnings)
        elif isinstance(value, dict) and isinstance(messages := value.get("messages"), list):
            for index, item in enumerate(messages):
                _drop_bad_counts(item, f"message {index}", warnings)
            _drop_bad_counts({k: v for k, v in value.items() if k != "messages"}, "document", warnings)
        else:
            _drop_bad_counts(value, "document", warnings)
    records = ((_first_content_line(text), value),) if isinstance(value, dict) else None
    return Document(is_json=True, value=value, records=records, warnings=tuple(warnings))


def _first_content_line(text: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            return number
    return 1


def _decode_lines(text: str, whole_error: json.JSONDecodeError) -> Document:
    records: list[tuple[int, JSON]] = []
    others: list[tuple[int, str, str | None]] = []
    warnings: list[str] = []
    decode_json = _decode_json
    for number, line in enumerate(text.splitlines(), start=1):
        if line[:1] != "{":
            if not line.strip():
                continue
            if not line.lstrip().startswith("{"):
                # Cannot be an object; why it is skipped is only worked out once the text is known to be
                # JSONL.
                others.append((number, line, None))
                continue
        # _loads inlined for the line msgspec takes (a session file is tens of thousands of lines); anything
        # else goes through _loads itself.
        try:
            value: JSON = decode_json(line)
        except (msgspec.DecodeError, UnicodeEncodeError, RecursionError):
            try:
                value = _loads(line, number)
            except json.JSONDecodeError as exc:
                others.append((number, line, f"invalid JSON: {exc.msg} (column {exc.colno})"))
                continue
        else:
            if len(line) >= MAX_DEPTH and line.count("{") + line.count("[") >= MAX_DEPTH:
                try:
                    check_tree(value, strings=False)
                except DocumentRejected as exc:
                    raise JsonDecodeFailure(exc.reason, number) from None
        if _USAGE.search(line.lower()) is not None or _ESCAPE.search(line) is not None:  # _may_name_usage
            _drop_bad_counts(value, f"line {number}", warnings)
        records.append((number, value))
    # Every non-blank line is a record or another line, both in file order.
    count = len(records) + len(others)
    first_is_record = bool(records) and (not others or records[0][0] < others[0][0])
    # A JSON-lines file keeps its valid entries (pi's session loader skips malformed lines the same way);
    # a one-value document that fails to parse (most of its lines are not objects) is reported as such.
    if count < 2 or not records or not (first_is_record or 2 * len(records) >= count):
        opener = len(text) - len(text.lstrip())
        after = text[opener + 1 :]
        first_token = opener + 1 + len(after) - len(after.lstrip())
        raise JsonDecodeFailure(
            f"invalid JSON: {whole_error.msg} (line {whole_error.lineno}, column {whole_error.colno})",
            whole_error.lineno,
            at_start=whole_error.pos <= first_token,
        )
    skipped = tuple(SkippedLine(n, reason or _not_an_object(line)) for n, line, reason in others)
    return Document(
        is_json=False, value=None, records=tuple(records), skipped=skipped, warnings=tuple(warnings)
    )


def _not_an_object(line: str) -> str:
    try:
        value: JSON = _loads(line, None)
    except json.JSONDecodeError as exc:
        return f"invalid JSON: {exc.msg} (column {exc.colno})"
    except JsonDecodeFailure as exc:
        return exc.reason
    return f"not a JSON object ({type_name(value)})"


MAX_TOKEN_COUNT = 10**9
"""Largest provider token count taken at face value: no model's context comes near a billion tokens."""


def _count_problem(value: JSON) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return "not a finite number"
        if not value.is_integer():
            return "not a whole number"
    if value < 0:
        return "negative"
    if value > MAX_TOKEN_COUNT:
        return f"over {MAX_TOKEN_COUNT:,} tokens"
    return None


def _may_name_usage(text: str) -> bool:
    """Whether a key of the JSON ``text`` can contain "usage" (case-insensitive): a cheap pre-check.

    A key spelled with ``\\u`` escapes is not visible in the text, so any escape counts as a maybe.
    """
    return _USAGE.search(text.lower()) is not None or _ESCAPE.search(text) is not None


# Searched with re rather than ``in``: re looks for the first character alone, which is faster here.
_USAGE = re.compile("usage")
_ESCAPE = re.compile(r"\\u")


# A path into a JSON value, spelled out only when a warning names it: (parent path, key or list index).
_Path: TypeAlias = "tuple[_Path | None, str | int] | None"


def _drop_bad_counts(root: JSON, place: str, warnings: list[str]) -> None:
    """Replace implausible numbers inside any ``*usage*`` object of ``root`` by ``null``, with a warning.

    A usage object's numbers are token counts, except costs (a key naming "cost", or anything under one).
    Iterative: the tree may be deep. Every
    assistant line of an OpenClaw session names its usage, so this walks most of a real session: the
    places are kept as parent links and spelled out only for a warning, and what a key says is memoised.
    """
    stack: list[tuple[JSON, _Path, bool]] = [(root, None, False)]
    names_usage = _KEY_NAMES_USAGE
    while stack:
        node, path, in_usage = stack.pop()
        # Exact types: the values come from the JSON decoders, which build no subclasses.
        if type(node) is dict:
            for key, item in node.items():
                kind = type(item)
                if kind is dict or kind is list:
                    if "cost" in key.lower():
                        continue  # money, not token counts: pi's usage.cost holds dollar amounts
                    usage = in_usage or names_usage.get(key)
                    if usage is None:
                        usage = _key_names_usage(key)
                    stack.append((item, (path, key), usage))
                elif kind is int or kind is float or kind is bool:
                    usage = in_usage or names_usage.get(key)
                    if usage is None:
                        usage = _key_names_usage(key)
                    if not usage or (kind is int and 0 <= item <= MAX_TOKEN_COUNT):  # type: ignore[operator]
                        continue
                    problem = _count_problem(item)
                    if problem is not None and "cost" not in key.lower():
                        shown = (
                            repr(item)
                            if not isinstance(item, int) or abs(item) < 10**30
                            else (f"a {len(str(abs(item)))}-digit number")
                        )
                        here = _spelled((path, key))
                        warnings.append(f"{place}: {here} = {shown} is {problem}; not taken as a token count")
                        node[key] = None
        elif type(node) is list:
            stack.extend(
                (item, (path, i), in_usage)
                for i, item in enumerate(node)
                if type(item) is dict or type(item) is list
            )


_KEY_NAMES_USAGE: dict[str, bool] = {}


def _key_names_usage(key: str) -> bool:
    if len(_KEY_NAMES_USAGE) >= 10_000:  # keys of other documents' own making: keep the memo bounded
        _KEY_NAMES_USAGE.clear()
    usage = _KEY_NAMES_USAGE[key] = "usage" in key.lower()
    return usage


def _spelled(path: _Path) -> str:
    """``a.b[0].c``: keys joined by dots (a key after an empty place stands alone), list indices bracketed."""
    steps: list[str | int] = []
    while path is not None:
        path, step = path
        steps.append(step)
    text = ""
    for step in reversed(steps):
        if isinstance(step, int):
            text = f"{text}[{step}]"
        else:
            text = f"{text}.{step}" if text else step
    return text


class _Located:
    """The context manager of :func:`located` (a class: it is entered once per transcript entry)."""

    __slots__ = ("index", "line")

    def __init__(self, index: int | None, line: int | None) -> None:
        self.index = index
        self.line = line

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # Returning None lets any exception not replaced here propagate unchanged.
        if isinstance(exc, Exception):
            placed = relocated(exc, index=self.index, line=self.line)
            if placed is not exc:
                raise placed from None


def located(*, index: int | None = None, line: int | None = None) -> _Located:
    """Attach a place to errors raised inside the block that do not carry one yet."""
    return _Located(index, line)


def relocated(exc: Exception, *, index: int | None = None, line: int | None = None) -> Exception:
    """What :func:`located` raises for ``exc``: a placed :class:`BadInput` for a ``BadInput`` without a
    place or a ``TypeError`` / ``ValueError``, else ``exc`` itself.

    For loops over many entries: one ``try`` around the loop, the current entry's place here, instead of
    entering :func:`located` once per entry.
    """
    if isinstance(exc, BadInput):
        if exc.line is None and exc.index is None:
            return BadInput(exc.reason, line=line, index=index)
    elif isinstance(exc, TypeError | ValueError):
        return BadInput(str(exc), line=line, index=index)
    return exc


# What json.dumps(value, separators=(",", ":"), ensure_ascii=False) builds on every call, built once.
_compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
# The C encoder JSONEncoder.encode uses (None where the interpreter has no _json accelerator).
_c_make_encoder: Callable[..., Callable[[JSON, int], Iterable[str]]] | None = getattr(
    json.encoder, "c_make_encoder", None
)


def compact_json(value: JSON) -> str:
    """Compact JSON text (no spaces, raw non-ASCII), the form tool arguments are kept in."""
    return _compact.encode(value)


def _tree_encoder() -> Callable[[JSON], str] | None:
    if _c_make_encoder is None:
        return None
    # The C encoder JSONEncoder.encode builds on every call, built once and without the circular-reference
    # memo (so it keeps no state between calls); the memo only ever matters for a value with a cycle.
    encode = _c_make_encoder(None, _compact.default, encode_basestring, None, ":", ",", False, False, True)
    return lambda value: "".join(encode(value, 0))


compact_json_tree: Callable[[JSON], str] = _tree_encoder() or compact_json
""":func:`compact_json` for a value known to hold no cycle, such as one just decoded from JSON text (the same
text, a little sooner: tool arguments are many small objects)."""


_ISO_MINUTE = re.compile(r"\d{4}-\d\d-\d\dT(?:[01]\d|2[0-3]):[0-5]\d:", re.ASCII)
_ISO_SECOND = re.compile(r"[0-5]\d(?:\.\d{3})?Z", re.ASCII)
_minute_ms: dict[str, int] = {}
_second_ms: dict[str, int] = {}


def iso_ms(value: str) -> int | None:
    """Epoch milliseconds of ``YYYY-MM-DDTHH:MM:SS.mmmZ`` or ``YYYY-MM-DDTHH:MM:SSZ`` (what JavaScript's
    ``toISOString`` writes, so nearly every timestamp of a session file), else ``None``.

    The same number :func:`parse_timestamp` works out through ``datetime`` (tests pin it), from two memos:
    the minute (``YYYY-MM-DDTHH:MM:``, a few per session) and the seconds with milliseconds (at most 60,060
    spellings), so a timestamp costs two slices and two lookups instead of building a ``datetime``.
    """
    minute = _minute_ms.get(value[:17])
    if minute is None:
        minute = _minute_start(value[:17])
        if minute is None:
            return None
    tail = value[17:]
    second = _second_ms.get(tail)
    if second is None:
        if _ISO_SECOND.fullmatch(tail) is None:
            return None
        second = int(tail[:2]) * 1000 + (int(tail[3:6]) if len(tail) == 7 else 0)
        _second_ms[tail] = second
    return minute + second


def _minute_start(prefix: str) -> int | None:
    if _ISO_MINUTE.fullmatch(prefix) is None:
        return None
    try:
        moment = datetime.fromisoformat(prefix + "00+00:00")
    except ValueError:  # no such day (month 13, February 30): parse_timestamp says so
        return None
    if len(_minute_ms) >= 100_000:  # a long-running process reading many files: keep the memo bounded
        _minute_ms.clear()
    start = round(moment.timestamp() * 1000)
    _minute_ms[prefix] = start
    return start


def parse_timestamp(value: JSON, what: str = "timestamp") -> int | None:
    """ISO-8601 text or epoch milliseconds to epoch milliseconds (naive ISO times are taken as UTC)."""
    if value is None:
        return None
    if type(value) is int:
        return value
    if type(value) is str and (quick := iso_ms(value)) is not None:
        return quick
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
