"""``may_name_media`` over-approximates what the history image cleanup's scrub can change.

The replays ask it once per message to skip the cleanup of histories that hold nothing it could change,
so a text the scrub changes must always be named (a miss would skip a change the runtime makes). The
texts are drawn from the patterns' own pieces in every case, with JavaScript whitespace and non-ASCII
look-alikes between them.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from simulator.runtimes.openclaw import image_prune
from simulator.runtimes.openclaw.image_prune import may_name_media, scrub_media_references

PIECES = (
    "[", "]", "media", "MEDIA", "Media", "mEdIa", "image", "IMAGE", "Image", "attached", "ATTACHED", ":",
    " ", "\u00a0", "\u2028", "\t", "1/2", "source", "Source", "media://inbound/", "media://INBOUND/",
    "MEDIA://inbound/", "x", "/", "\\", "İmage", "ımage", "\u212amedia", "é", "[[",
)  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14).map("".join))
@example("[media attached: photo.png]")
@example("[MEDIA ATTACHED 1/2: a]")
@example("[Image: source: /tmp/a.png]")
@example("see media://inbound/abc")
def test_every_text_the_scrub_changes_is_named(text):
    if scrub_media_references(text) != text:
        assert may_name_media(text)


def test_texts_that_only_mention_media_are_not_named():
    """Narrower than "mentions media or image" (what was asked before): words alone change nothing."""
    for text in ("an image of the media", "media/inbound", "[x] image", "IMAGE:", "[ media attached: a]"):
        assert scrub_media_references(text) == text and not may_name_media(text)
    for text in ("[media attached: a]", "[image: source: b]", "media://inbound/c", "[MEDIA", "[Image"):
        assert may_name_media(text)


def _substituted(text: str) -> str:
    """The scrub's three substitutions, run whatever the text (the reference of its prefilter)."""
    return image_prune._scrub.__wrapped__(text)  # type: ignore[attr-defined]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14).map("".join))
@example("[media attached: photo.png]")
@example("[INFO] worker[3] processed [image: source: x]")
def test_the_scrub_equals_its_substitutions(text):
    """The scrub skips its substitutions for a text ``may_name_media`` does not name (a tool output with a
    "[" but no media reference: most of them), and gives what they give."""
    assert scrub_media_references(text) == _substituted(text)


def test_a_prefilter_that_misses_a_reference_is_caught(monkeypatch):
    monkeypatch.setattr(image_prune, "may_name_media", lambda text: "media://inbound/" in text)
    text = "[media attached: photo.png]"
    assert scrub_media_references(text) != _substituted(text)
    with pytest.raises(AssertionError):
        test_the_scrub_equals_its_substitutions.hypothesis.inner_test(text)
