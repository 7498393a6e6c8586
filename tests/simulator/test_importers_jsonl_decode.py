"""Reading JSON lines: the loop that decodes each line is pinned against the loop as it was written before
it called msgspec directly (same records, skipped lines, warnings and errors)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.importers._common import (
    Document,
    JsonDecodeFailure,
    _decode_lines,
    _drop_bad_counts,
    _loads,
    _may_name_usage,
    _not_an_object,
)
from simulator.jsonvalue import JSON
from simulator.transcript import SkippedLine


def _decode_lines_as_before(text: str, whole_error: json.JSONDecodeError) -> Document:
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    records: list[tuple[int, JSON]] = []
    others: list[tuple[int, str, str | None]] = []
    warnings: list[str] = []
    for number, line in lines:
        if line[0] != "{" and not line.lstrip().startswith("{"):
            others.append((number, line, None))
            continue
        try:
            value: JSON = _loads(line, number)
        except json.JSONDecodeError as exc:
            others.append((number, line, f"invalid JSON: {exc.msg} (column {exc.colno})"))
            continue
        if _may_name_usage(line):
            _drop_bad_counts(value, f"line {number}", warnings)
        records.append((number, value))
    first_is_record = bool(records) and records[0][0] == lines[0][0]
    if len(lines) < 2 or not records or not (first_is_record or 2 * len(records) >= len(lines)):
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


def _outcome(read, text: str) -> str:
    try:
        json.loads(text)
    except json.JSONDecodeError as whole_error:
        try:
            return repr(read(text, whole_error))
        except JsonDecodeFailure as exc:
            return f"failure {exc.reason!r} line={exc.line} at_start={exc.at_start}"
    return "one JSON value"


def _assert_same(text: str) -> None:
    assert _outcome(_decode_lines, text) == _outcome(_decode_lines_as_before, text)


OBJ = '{"type":"message","id":"e1","message":{"role":"user","content":"hi"}}'
TEXTS = [
    f"{OBJ}\n{OBJ}\n",
    f"\n\n{OBJ}\n   \n{OBJ}\n\t\n",
    f"{OBJ}\r\n{OBJ}\r\n",
    f"   {OBJ}\n{OBJ}",
    f"{OBJ}\n[1, 2]\n{OBJ}\n42\n",
    f"{OBJ}\n{{broken\n{OBJ}",
    f"nope\n{OBJ}\n{OBJ}",
    f"nope\n{OBJ}",
    f"{OBJ}\nx\ny\nz\n",
    f"x\ny\n{OBJ}\n",
    f"  \n{OBJ}\n",
    "{\n}",
    '{"a": NaN}\n{"b": Infinity}\n',
    '{"s": "\\ud800"}\n' + OBJ,
    '{"n": ' + "9" * 4000 + "}\n" + OBJ,
    '{"d": ' + "[" * 130 + "]" * 130 + "}\n" + OBJ,
    '{"d": ' + "[" * 100 + "]" * 100 + ', "s": "' + "{" * 60 + '"}\n' + OBJ,
    '{"usage": {"input": -1, "output": 2.5}}\n{"\\u0075sage": {"input": -1}}\n{"Usage": {"x": 1e12}}\n',
    f"{OBJ}\u2028{OBJ}\n{OBJ}\x85{OBJ}\n",
    '{"t": "a\u2028b"}\n' + OBJ,
]


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_json_lines_read_as_before(text):
    _assert_same(text)


_lines = st.one_of(
    st.just(OBJ),
    st.just(""),
    st.just("  "),
    st.just("  " + OBJ),
    st.just("[1]"),
    st.just("{oops"),
    st.just('{"usage": {"input": -3}}'),
    st.just('{"x": "\\u0041"}'),
    st.text(max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(_lines, min_size=2, max_size=8), end=st.sampled_from(["", "\n", "\r\n"]))
def test_generated_json_lines_read_as_before(lines, end):
    _assert_same("\n".join(lines) + end)
