"""JavaScript string, number and JSON semantics needed to reproduce OpenClaw exactly.

OpenClaw (TypeScript, npm ``openclaw@2026.7.1``) measures strings in UTF-16 code units, slices them
by code unit (possibly splitting a surrogate pair), trims with the ECMAScript whitespace set and
serialises with ``JSON.stringify``. Python strings are code-point sequences, so these helpers
translate. Lone surrogates are represented as lone surrogate code points, which is exactly what
``json.loads`` produces for a JSON string holding one, so results compare equal to the vectors.

Deliberate divergence: ``js_json_stringify`` never throws (JS throws on BigInt / cycles, which JSON
input cannot contain).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from json.encoder import JSONEncoder, encode_basestring

from simulator.jsonvalue import JSON

# ECMAScript WhiteSpace + LineTerminator, used by String.prototype.trim and by `\s` in regexes.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_WHITESPACE_CLASS = "[" + "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE) + "]"

_MAX_SAFE = 2**53


def _units(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def _from_units(data: bytes) -> str:
    # Decoding re-pairs adjacent surrogates, matching how a JSON parser reads the JS output.
    return data.decode("utf-16-le", "surrogatepass")


def js_len(text: str) -> int:
    """``text.length`` in JavaScript: the number of UTF-16 code units.

    Args:
        text: Any Python string (lone surrogates allowed).

    Returns:
        The UTF-16 length.
    """
    if text.isascii():
        return len(text)  # the common case, without walking the string in Python
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def js_slice(text: str, start: int, end: int | None = None) -> str:
    """``text.slice(start, end)`` with JavaScript index rules, by UTF-16 code unit.

    Args:
        text: The string to slice.
        start: Start index (negative counts from the end).
        end: End index (exclusive, negative counts from the end), or None for the end.

    Returns:
        The slice; a cut inside a surrogate pair leaves a lone surrogate, as in JS.
    """
    # No astral character (checked in C: a truncation's binary search slices the same long text often).
    if text.isascii() or max(text) <= "\uffff":
        return text[start:end] if end is not None else text[start:]
    units = _units(text)
    length = len(units) // 2
    lo = _clamp_index(start, length)
    hi = length if end is None else _clamp_index(end, length)
    if hi <= lo:
        return ""
    return _from_units(units[2 * lo : 2 * hi])


def _clamp_index(index: int, length: int) -> int:
    if index < 0:
        return max(0, length + index)
    return min(index, length)


def js_concat(*parts: str) -> str:
    """Concatenate as JavaScript would, re-pairing surrogate halves that meet at a seam.

    Args:
        *parts: Strings to join.

    Returns:
        The joined string in the same normal form ``json.loads`` would produce.
    """
    joined = "".join(parts)
    # Searched in C: a soft trim joins a long result's text at every prunable screenshot.
    if not joined.isascii() and _SURROGATE.search(joined) is not None:
        return _from_units(_units(joined))
    return joined


def js_trim(text: str) -> str:
    """``String.prototype.trim`` (ECMAScript whitespace set, not Python's ``str.isspace``)."""
    return text.strip(JS_WHITESPACE)


def js_number_out(value: int | float) -> int | float:
    """Return the JSON value JavaScript would print: integral doubles become integers.

    Args:
        value: A number produced by arithmetic that JS would have done on doubles.

    Returns:
        An ``int`` when ``JSON.stringify`` would print no fraction or exponent, else the float.
    """
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def js_number_to_string(value: float | int) -> str:
    """``Number.prototype.toString()`` for a finite double (as used by ``JSON.stringify``).

    Args:
        value: The number.

    Returns:
        The JavaScript text, e.g. ``1e+21``, ``1.5e-7``, ``0.1``, ``100``.
    """
    if isinstance(value, int) and abs(value) < _MAX_SAFE:
        return str(value)
    number = float(value)
    if not math.isfinite(number):
        return "null"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    digits_tuple = Decimal(repr(abs(number))).normalize().as_tuple()
    digits = "".join(str(d) for d in digits_tuple.digits)
    exponent = digits_tuple.exponent
    assert isinstance(exponent, int)
    k = len(digits)
    n = exponent + k
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        exp_text = f"e{'+' if e >= 0 else '-'}{abs(e)}"
        body = digits + exp_text if k == 1 else digits[0] + "." + digits[1:] + exp_text
    return sign + body


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _quote(text: str) -> str:
    # Without surrogates the standard library's C encoder (non-ASCII kept raw) writes exactly these
    # escapes; the character loop below was most of the cost of sizing a tool call's arguments.
    if text.isascii() or _SURROGATE.search(text) is None:
        return encode_basestring(text)
    return quote_each(text)


def quote_each(text: str) -> str:
    """``JSON.stringify`` of a string, one character at a time (the reference for :func:`_quote`)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            # Well-formed JSON.stringify (ES2019) escapes lone surrogates; paired ones are astral here.
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def js_json_stringify(value: JSON) -> str:
    """``JSON.stringify(value)`` with no indentation, as OpenClaw calls it.

    Args:
        value: A JSON value (object key order is preserved, as JS insertion order would be for
            non-index keys).

    Returns:
        The compact JSON text JavaScript would produce.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_to_string(value)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, list):
        return "[" + ",".join(js_json_stringify(item) for item in value) + "]"
    return "{" + ",".join(_quote(k) + ":" + js_json_stringify(v) for k, v in _js_key_order(value)) + "}"


_COMPACT = JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
"""The standard library's C encoder, writing what ``JSON.stringify`` writes for :func:`_plain` values."""


def js_json_length(value: JSON) -> int:
    """``JSON.stringify(value).length``: ``js_len(js_json_stringify(value))``, most values without the walk.

    A tool call's arguments are sized twice per message (pruner and guard) on every message of a session;
    the C encoder writes a text of the same length as :func:`js_json_stringify` for a value :func:`_plain`
    accepts and whose text holds no surrogate (escaped in JS, written raw by the encoder); it is the same
    text but for the order of keys JS lists first.
    """
    if type(value) is dict:
        size = _ascii_strings_length(value)
        if size is not None:
            return size
    if _plain(value):
        text = _COMPACT.encode(value)
        if text.isascii():
            return len(text)
        if _SURROGATE.search(text) is None:
            return js_len(text)
    return js_len(js_json_stringify(value))


def _ascii_strings_length(obj: dict[str, JSON]) -> int | None:
    """The text's length for an object of ASCII keys and string values (a tool call's usual arguments),
    counted without writing it; ``None`` for any other object."""
    size = 2 * len(obj) + 1 if obj else 2  # braces, a colon per pair, commas between pairs
    for key, item in obj.items():
        if type(item) is not str or not key.isascii() or not item.isascii():
            return None
        size += len(encode_basestring(key)) + len(encode_basestring(item))
    return size


def _plain(value: JSON) -> bool:
    """Whether every number in ``value`` is an int JS prints as Python does (exact type checks: anything
    else is not plain). Keys JS would list first (:func:`_js_key_order`) change the order, not the length."""
    if value is None or type(value) is str or type(value) is bool:
        return True
    if type(value) is int:
        return -_MAX_SAFE < value < _MAX_SAFE
    if type(value) is dict:
        return all(_plain(item) for item in value.values())
    if type(value) is list:
        return all(_plain(item) for item in value)
    return False


def _js_key_order(obj: dict[str, JSON]) -> list[tuple[str, JSON]]:
    # JS objects list array-index-like keys first, ascending, then the rest in insertion order.
    for key in obj:
        if key.isdigit():  # every array index is all digits
            break
    else:
        return list(obj.items())  # no index key (the common case): insertion order
    index_keys = sorted((int(k), k) for k in obj if _is_array_index(k))
    index_set = {k for _, k in index_keys}
    ordered = [(k, obj[k]) for _, k in index_keys]
    ordered.extend((k, v) for k, v in obj.items() if k not in index_set)
    return ordered


def _is_array_index(key: str) -> bool:
    return (
        key.isascii() and key.isdigit() and (key == "0" or not key.startswith("0")) and int(key) < 2**32 - 1
    )
