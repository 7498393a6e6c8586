"""OpenClaw 2026.9.6's CJK-aware character budget and surrogate-safe slicing.

Upstream, openclaw@2026.9.6: ``packages/normalization-core/src/cjk-chars.ts``
(``estimateStringChars``, ``estimateStringCharsWithMinimumRawWeight``) and ``utf16-slice.ts``
(``sliceUtf16Safe``). 2026.9.6 replaced 2026.7.1's single "non-Latin = 4" rule with five weighted
buckets: common CJK (``·``, CJK symbols..., unified ideographs, Hangul syllables, fullwidth forms) count 4,
rare BMP CJK 12, two-token marks 8, three-token supplementary 12, other supplementary ideographs 16, each
less the raw weight already counted per UTF-16 unit. ``minimumRawWeight`` (1 or 2) multiplies the raw
length (tool results are budgeted at 2).

Deliberate divergences: weights other than 1 and 2 (unused by the runtime paths modelled) follow the same
formula instead of upstream's per-segment maximum; the budget slicing measures each candidate whole where
upstream sums deltas (equal except when a delta boundary splits a surrogate pair).
"""

from __future__ import annotations

import functools
import math
import re
from typing import Final

from simulator.runtimes.openclaw.jsstr import js_len, js_slice

_BUCKETS: Final = (
    ((183, 183), (12288, 12703), (19968, 40869), (44032, 55215), (65281, 65376)),
    (
        (4352, 4607),
        (11904, 12287),
        (12704, 19967),
        (40870, 40959),
        (40960, 42239),
        (42752, 42759),
        (43360, 43391),
        (55216, 55295),
        (63744, 64255),
    ),
    (
        (711, 711),
        (713, 715),
        (729, 729),
        (746, 747),
        (773, 773),
        (803, 803),
        (65040, 65103),
        (65377, 65500),
        (65504, 65510),
    ),
    ((119648, 119665),),
    (
        (94176, 94207),
        (110576, 110591),
        (110592, 110959),
        (127488, 127743),
        (131072, 195103),
        (196608, 210047),
    ),
)


@functools.lru_cache(maxsize=4096)
def _category(code_point: int) -> int:
    # Later buckets overwrite earlier ones where ranges overlap (``Uint8Array.fill`` in bucket order).
    result = 0
    for bucket, ranges in enumerate(_BUCKETS):
        for start, end in ranges:
            if start <= code_point <= end:
                result = bucket + 1
    return result


def estimate_budget_chars(text: str, minimum_raw_weight: int = 1) -> int:
    """``estimateStringCharsWithMinimumRawWeight`` (weight 1 is ``estimateStringChars``)."""
    weight = max(1, minimum_raw_weight)
    length = js_len(text)
    if text.isascii():
        return length * weight
    counts = [0, 0, 0, 0, 0, 0]
    for ch in _NON_ASCII.findall(text):
        counts[_category(ord(ch))] += 1
    return (
        length * weight
        + counts[1] * (4 - weight)
        + counts[2] * (12 - weight)
        + counts[3] * (8 - weight)
        + counts[4] * (12 - 2 * weight)
        + counts[5] * (16 - 2 * weight)
    )


_NON_ASCII: Final = re.compile(r"[^\x00-\x7f]")


def _units(text: str) -> memoryview:
    return memoryview(text.encode("utf-16-le", "surrogatepass")).cast("H")


def _high(unit: int) -> bool:
    return 0xD800 <= unit <= 0xDBFF


def _low(unit: int) -> bool:
    return 0xDC00 <= unit <= 0xDFFF


def slice_utf16_safe(text: str, start: int, end: int | None = None) -> str:
    """``sliceUtf16Safe``: ``slice`` by UTF-16 unit that never returns half a surrogate pair."""
    units = _units(text)
    length = len(units)
    lo = max(length + start, 0) if start < 0 else min(start, length)
    hi = length if end is None else (max(length + end, 0) if end < 0 else min(end, length))
    if hi <= lo:
        return ""
    if 0 < lo < length and _low(units[lo]) and _high(units[lo - 1]):
        lo += 1
    if 0 < hi < length and _high(units[hi - 1]) and _low(units[hi]):
        hi -= 1
    return js_slice(text, lo, hi)


def _slice_to_budget(text: str, max_chars: float, weight: int, from_end: bool) -> str:
    budget = max(0, math.floor(max_chars))
    length = js_len(text)
    if length <= budget and estimate_budget_chars(text, weight) <= budget:
        return text
    best = ""
    low, high = 0, min(length, budget)
    while low <= high:
        mid = (low + high) // 2
        candidate = slice_utf16_safe(text, length - mid) if from_end else slice_utf16_safe(text, 0, mid)
        if estimate_budget_chars(candidate, weight) <= budget:
            best = candidate
            low = mid + 1
        else:
            high = mid - 1
    return best


def slice_to_budget(text: str, max_chars: float, minimum_raw_weight: int = 1) -> str:
    """``sliceToolResultTextToBudget``: the longest prefix whose budget chars fit (binary search)."""
    return _slice_to_budget(text, max_chars, minimum_raw_weight, False)


def slice_tail_to_budget(text: str, max_chars: float, minimum_raw_weight: int = 1) -> str:
    """``sliceToolResultTextTailToBudget``: the longest suffix whose budget chars fit."""
    return _slice_to_budget(text, max_chars, minimum_raw_weight, True)
