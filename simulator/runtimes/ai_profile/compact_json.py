"""``serde_json::to_string`` of a ``serde_json::Value``, as the ai-profile token estimate uses it.

Upstream: ``serde_json`` 1.0.x with default features (no ``arbitrary_precision``, no ``preserve_order``,
no ``float_roundtrip``), the configuration the ai-profile 0.1.7 conformance data was produced with.

What makes this differ from ``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``:

* Floats are printed by ``ryu``: ``1e-7``, ``1e20``, ``0.00001``, ``100.0``, ``-0.0`` (never ``1e-07``
  or ``1e+20``). Plain decimal for 1e-5 <= |x| < 1e16, scientific otherwise.
* A ``Value`` holds integers only in ``i64``/``u64``; larger integers become ``f64`` when parsed.
* ``serde_json``'s default float parser is not always correctly rounded (``f64_from_parts`` multiplies
  or divides the decimal significand by a power of ten). The value is read back through that parser
  from the text ``json.dumps`` would write, which is how the same number reaches the Rust code.
* Object keys come out sorted (``Value::Object`` is a ``BTreeMap``). Lengths do not depend on it.

Deliberate divergences: a Python float's original text is gone after ``json.loads``, so the
``serde_json`` parse is replayed on Python's shortest text for it; a literal such as ``-0`` (which
``serde_json`` reads as the float ``-0.0``) reaches us as the integer 0. Lone surrogates, which Rust
strings cannot hold, are counted as 3 UTF-8 bytes each. NaN and infinities raise ``ValueError``.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring

import msgspec

from simulator.jsonvalue import JSON

_U64_MAX = 2**64 - 1
_I64_MIN = -(2**63)
_ENCODE = msgspec.json.Encoder().encode
_POW10 = tuple(float(f"1e{i}") for i in range(309))

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPE_TABLE = {
    code: _ESCAPES.get(chr(code)) or f"\\u{code:04x}" for code in (*range(0x20), ord('"'), ord("\\"))
}
"""serde_json's escapes by code point; :func:`quote_string_reference` applies them one by one."""


def dumps_compact(value: JSON) -> str:
    """Serialise like ``serde_json::to_string(&Value)``.

    Args:
        value: Any JSON value.

    Returns:
        The compact text (no whitespace, non-ASCII written raw, keys sorted).

    Raises:
        ValueError: A float is NaN or infinite, or an integer is too large for an ``f64``.
    """
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def compact_json_bytes(value: JSON) -> int:
    """The UTF-8 byte length of :func:`dumps_compact` of ``value``.

    The estimate needs only the length, which key order does not change, so a value whose every leaf
    msgspec writes as serde_json does (strings, booleans, null, integers inside ``i64``/``u64``; keys
    strings) is measured on msgspec's unsorted UTF-8 output, written in C: both escape exactly the
    quote, the backslash and the control characters, with the same short forms (\\n, \\t, ...) and six
    characters for the others, and write everything else raw. Floats (ryu prints them differently),
    larger integers (they become floats) and lone surrogates (msgspec refuses them) take the written text.
    """
    if type(value) is str or _written_alike(value):
        try:
            return len(_ENCODE(value))
        except UnicodeEncodeError:  # a lone surrogate, which Rust strings cannot hold: counted as 3 bytes
            pass
    return compact_json_bytes_reference(value)


def _written_alike(value: JSON) -> bool:
    """Whether msgspec writes ``value`` as serde_json does, up to key order (:func:`compact_json_bytes`)."""
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str or (type(item) is not str and not _written_alike(item)):
                return False
        return True
    if type(value) is list:
        return all(type(item) is str or _written_alike(item) for item in value)
    if type(value) is int:
        return _I64_MIN <= value <= _U64_MAX
    return value is None or type(value) is bool or type(value) is str


def compact_json_bytes_reference(value: JSON) -> int:
    """:func:`compact_json_bytes` spelled out: the UTF-8 length of the written text."""
    return len(dumps_compact(value).encode("utf-8", "surrogatepass"))


def quote_string(text: str) -> str:
    """A JSON string literal with ``serde_json``'s escapes (short forms, else lowercase ``\\u00xx``)."""
    # The standard library's C encoder (non-ASCII kept raw) writes exactly serde_json's escapes: the same
    # short forms, lowercase ``\\u00xx`` for the other control characters, nothing else escaped (lone
    # surrogates pass through). ``str.translate`` with a table was the estimate's largest cost on long
    # text; the table stays as the reference it is property-tested against.
    return encode_basestring(text)


def quote_string_reference(text: str) -> str:
    """:func:`quote_string` spelled out: serde_json's escape of each code point, one by one."""
    return '"' + text.translate(_ESCAPE_TABLE) + '"'


def _write(value: JSON, parts: list[str]) -> None:
    # The three kinds nearly every value is, told by exact type first (a message's content is strings,
    # lists and objects; the chain of ``isinstance`` below is most of the estimate's cost otherwise).
    if type(value) is str:
        parts.append(encode_basestring(value))
    elif type(value) is dict:
        parts.append("{")
        first = True
        for key in sorted(value):
            if not first:
                parts.append(",")
            first = False
            parts.append(quote_string(key))
            parts.append(":")
            _write(value[key], parts)
        parts.append("}")
    elif type(value) is list:
        parts.append("[")
        first = True
        for item in value:
            if not first:
                parts.append(",")
            first = False
            _write(item, parts)
        parts.append("]")
    else:
        _write_other(value, parts)


def _write_other(value: JSON, parts: list[str]) -> None:
    """:func:`_write` of any value (subclasses of ``str``, ``list``, ``dict`` too)."""
    if value is None:
        parts.append("null")
    elif isinstance(value, bool):
        parts.append("true" if value else "false")
    elif isinstance(value, int):
        parts.append(format_int(value))
    elif isinstance(value, float):
        parts.append(format_float(value))
    elif isinstance(value, str):
        parts.append(quote_string(value))
    elif isinstance(value, list):
        parts.append("[")
        for i, item in enumerate(value):
            if i:
                parts.append(",")
            _write(item, parts)
        parts.append("]")
    else:
        parts.append("{")
        for i, key in enumerate(sorted(value)):
            if i:
                parts.append(",")
            parts.append(quote_string(key))
            parts.append(":")
            _write(value[key], parts)
        parts.append("}")


def format_int(value: int) -> str:
    """An integer as a ``Value`` prints it; outside ``i64``/``u64`` it has become an ``f64``."""
    if _I64_MIN <= value <= _U64_MAX:
        return str(value)
    return ryu_format(serde_parse_float(str(value)))


def format_float(value: float) -> str:
    """A Python float as ``serde_json`` prints it after reading ``json.dumps``' text for it."""
    if not math.isfinite(value):
        raise ValueError(f"serde_json cannot hold {value!r}")
    return ryu_format(serde_parse_float(repr(value)))


def serde_parse_float(text: str) -> float:
    """Replay ``serde_json``'s default number parser on a JSON number literal, as a float.

    Significand digits accumulate into a ``u64``; once the next digit would overflow, that digit and
    all later ones are ignored (integer-part digits still raise the exponent). The result is
    ``significand as f64`` multiplied or divided by a table power of ten (steps of 1e308 past the table).

    Args:
        text: A valid JSON number literal.

    Returns:
        The ``f64`` serde_json would produce.

    Raises:
        ValueError: The literal overflows to infinity (``NumberOutOfRange`` upstream).
    """
    negative = text.startswith("-")
    body = text[1:] if negative else text
    mantissa, _, exp_text = body.lower().partition("e")
    int_digits, _, frac_digits = mantissa.partition(".")
    significand = 0
    exponent = 0
    overflowed = False
    for digit in int_digits:
        if overflowed or significand * 10 + int(digit) > _U64_MAX:
            overflowed = True
            exponent += 1
        else:
            significand = significand * 10 + int(digit)
    for digit in frac_digits:
        if overflowed or significand * 10 + int(digit) > _U64_MAX:
            overflowed = True
        else:
            significand = significand * 10 + int(digit)
            exponent -= 1
    if exp_text:
        exponent += int(exp_text)
    result = _f64_from_parts(significand, exponent)
    return -result if negative else result


def _f64_from_parts(significand: int, exponent: int) -> float:
    result = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            if exponent >= 0:
                result *= _POW10[exponent]
                if math.isinf(result):
                    raise ValueError("number out of range")
            else:
                result /= _POW10[-exponent]
            return result
        if result == 0.0:
            return result
        if exponent >= 0:
            raise ValueError("number out of range")
        result /= 1e308
        exponent += 308


def ryu_format(value: float) -> str:
    """Format a finite float the way ``ryu::Buffer::format_finite`` does.

    Args:
        value: A finite float.

    Returns:
        Shortest round-trip digits laid out by ryu's rules (``1e16``, ``0.00001``, ``100.0``).
    """
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    digits, k = _shortest_digits(abs(value))
    length = len(digits)
    kk = length + k
    if k >= 0 and kk <= 16:
        body = digits + "0" * k + ".0"
    elif 0 < kk <= 16:
        body = digits[:kk] + "." + digits[kk:]
    elif -5 < kk <= 0:
        body = "0." + "0" * -kk + digits
    elif length == 1:
        body = f"{digits}e{kk - 1}"
    else:
        body = f"{digits[0]}.{digits[1:]}e{kk - 1}"
    return sign + body


def _shortest_digits(value: float) -> tuple[str, int]:
    """Shortest round-trip digits (no leading/trailing zeros) and the power of ten of the last one."""
    # repr() picks the same shortest, closest digit string as ryu; only the layout differs.
    mantissa, _, exp_text = repr(value).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    exponent = (int(exp_text) if exp_text else 0) - len(frac_part)
    digits = (int_part + frac_part).lstrip("0")
    stripped = digits.rstrip("0")
    return stripped, exponent + len(digits) - len(stripped)
