"""OpenClaw's string concatenation: the C search for a surrogate half answers as the UTF-16 round trip."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from simulator.runtimes.openclaw.jsstr import js_concat

EVERY_CODE_POINT = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=())
PARTS = st.lists(
    st.text(EVERY_CODE_POINT, max_size=8) | st.sampled_from(["\ud83d", "\ude00", "ok"]), max_size=5
)


def _as_javascript(*parts: str) -> str:
    """The parts joined as UTF-16 code units and read back (halves that meet at a seam pair up)."""
    return "".join(parts).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


@given(PARTS)
def test_parts_are_joined_as_javascript_joins_them(parts: list[str]) -> None:
    assert js_concat(*parts) == _as_javascript(*parts)


def test_halves_that_meet_at_a_seam_pair_up_and_a_plain_join_would_be_noticed() -> None:
    parts = ("a\ud83d", "\ude00b")
    assert js_concat(*parts) == "a\U0001f600b" == _as_javascript(*parts)
    assert "".join(parts) != _as_javascript(*parts)  # a join that never re-pairs fails the property above
    assert js_concat("\ud800", "x") == "\ud800x"  # a lone half stays one
