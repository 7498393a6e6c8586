"""PR 9379's image markers in ZeroClaw's estimate, with literal texts and token counts.

A text costs ``ceil(utf8_bytes / 4) + 4`` tokens; an image that preparation sends costs
``ceil(base64 payload / 4)`` (data URI), 1000 (URL or missing file) or ``ceil(file bytes / 3)``.
"""

from __future__ import annotations

import pytest

from simulator.runtimes import zeroclaw as zc
from simulator.runtimes.zeroclaw import ChatMessage
from simulator.runtimes.zeroclaw.estimate import (
    image_reference_tokens,
    is_loadable_image_reference,
    parse_image_markers,
)


def user(text: str) -> ChatMessage:
    return ChatMessage("user", text)


@pytest.mark.parametrize(
    "candidate",
    [
        "/tmp/a.png",
        "http://x/a.png",
        "https://x/a.png",
        "data:image/png;base64,AAAA",
        "C:\\a.png",
        "c:/a.png",
        "C:\\",
        "\\\\server\\a.png",
        "\\\\a",
        "\\\\Xserver",
    ],
)
def test_paths_urls_data_uris_drive_and_unc_paths_are_loadable(candidate: str) -> None:
    assert is_loadable_image_reference(candidate)


@pytest.mark.parametrize(
    "candidate",
    [
        "...",
        "a.png",
        "abcd",
        "ab/x",
        "HTTP://x/a.png",
        "C:",
        "C:a.png",
        "C:Xa.png",
        "CC:/a.png",
        "1:/a.png",
        "é:/a.png",
        "\\\\",
        "\\\\?\\C:\\a.png",
        "\\\\.\\pipe",
    ],
)
def test_placeholders_relative_names_and_device_paths_are_not_loadable(candidate: str) -> None:
    assert not is_loadable_image_reference(candidate)


def test_a_loadable_marker_leaves_the_text_and_becomes_a_reference() -> None:
    parsed = parse_image_markers("see [IMAGE:/tmp/a.png] now")
    assert (parsed.text, parsed.references) == ("see  now", ("/tmp/a.png",))


def test_the_marker_payload_is_trimmed_and_the_cleaned_text_too() -> None:
    parsed = parse_image_markers("  [IMAGE: /tmp/a.png ] hi ")
    assert (parsed.text, parsed.references) == ("hi", ("/tmp/a.png",))


def test_a_placeholder_marker_stays_in_the_text_with_what_follows_it() -> None:
    parsed = parse_image_markers("[IMAGE:...] then [IMAGE:/b.png] end")
    assert (parsed.text, parsed.references) == ("[IMAGE:...] then  end", ("/b.png",))


def test_an_empty_marker_stays_in_the_text() -> None:
    parsed = parse_image_markers("a [IMAGE: ] b")
    assert (parsed.text, parsed.references) == ("a [IMAGE: ] b", ())


def test_a_marker_ends_at_the_first_bracket_after_it_not_before_or_at_the_last() -> None:
    parsed = parse_image_markers("a] b [IMAGE:/x.png] c]")
    assert (parsed.text, parsed.references) == ("a] b  c]", ("/x.png",))


def test_an_unterminated_marker_is_copied_through_once() -> None:
    parsed = parse_image_markers("x [IMAGE:/a.png")
    assert (parsed.text, parsed.references) == ("x [IMAGE:/a.png", ())


def test_several_markers_are_collected_in_order() -> None:
    parsed = parse_image_markers("[IMAGE:/a.png][IMAGE:https://h/b.png]z")
    assert (parsed.text, parsed.references) == ("z", ("/a.png", "https://h/b.png"))


def test_the_raw_pr9379_estimate_of_plain_and_placeholder_messages_is_master_s() -> None:
    plain = user("a" * 8)
    placeholder = user("[IMAGE:...]")
    assert zc.estimate_history_tokens_pr9379([plain]) == 2 + 4
    assert zc.estimate_history_tokens_pr9379([placeholder]) == 3 + 4
    assert zc.estimate_history_tokens_pr9379([plain, placeholder]) == 13


def test_the_raw_pr9379_estimate_charges_only_the_cleaned_text() -> None:
    # "see  now" is 8 bytes: 2 + 4.
    assert zc.estimate_history_tokens_pr9379([user("see [IMAGE:/tmp/a.png] now")]) == 6


@pytest.mark.parametrize(
    ("reference", "tokens"),
    [
        ("data:image/png;base64,AAAAA", 2),
        ("data:image/png;base64, AAAA ", 1),
        ("data:image/png;base64,AAAA,BB", 2),
        ("data:image/png,AAAA", 1000),
        ("data:image/png;base64", 1000),
        ("http://x/a.png", 1000),
        ("https://x/a.png", 1000),
        ("/tmp/a.png", 1001),
        ("/tmp/empty.png", 0),
        ("/tmp/missing.png", 1000),
    ],
)
def test_each_kind_of_image_reference_has_its_charge(reference: str, tokens: int) -> None:
    sizes = {"/tmp/a.png": 3001, "/tmp/empty.png": 0, "http://x/a.png": 3, "https://x/a.png": 3}
    assert image_reference_tokens(reference, sizes) == tokens


def test_the_prepared_estimate_adds_each_sent_image_to_every_message_s_text() -> None:
    history = [user("a" * 8), user("see [IMAGE:/tmp/a.png] now"), user("[IMAGE:/tmp/gone.png]")]
    # texts: 6 + 6 + 4 (an empty cleaned text still costs 4); images: 1001 + 1000.
    assert zc.estimate_prepared_history_tokens(history, {"/tmp/a.png": 3001}) == 6 + 6 + 4 + 1001 + 1000
    assert zc.estimate_prepared_history_tokens(history) == 6 + 6 + 4 + 1000 + 1000
