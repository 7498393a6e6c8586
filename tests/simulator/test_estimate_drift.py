"""Estimates against reality: the three counts per call, the 2× flag and the likely cause."""

from __future__ import annotations

from simulator.estimate_drift import estimate_chart, estimate_check
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.transcript import ImagePart, Message, Role, TextPart, Transcript, Usage

PROFILE = profile_from_document({"runtime_profiles": {"d": {"max_context_tokens": 0}}}, name="p")


def _session(reported: int | None, *, image: bool = False, system: bool = True) -> Transcript:
    """Three exchanges of 400-byte user text; each reply records ``reported`` input tokens."""
    messages = [Message(Role.SYSTEM, (TextPart("You are terse."),))] if system else []
    for t in range(3):
        parts: tuple[TextPart | ImagePart, ...] = (TextPart(f"{t}" * 400),)
        if image and t == 0:
            parts += (ImagePart("url", "https://example.test/a.png"),)
        messages.append(Message(Role.USER, parts))
        usage = Usage(input_tokens=reported) if reported is not None else None
        messages.append(Message(Role.ASSISTANT, (TextPart("ok"),), usage=usage))
    return Transcript("openai-chat", tuple(messages))


def test_without_provider_counts_nothing_is_flagged():
    transcript = _session(None)
    check = estimate_check(transcript, simulate(transcript, PROFILE))
    assert (check.ratio, check.flagged, check.cause) == (None, False, None)
    assert [c.reported for c in check.calls] == [None, None, None]


def test_o200k_per_call_sums_what_each_call_sent():
    transcript = _session(None)
    result = simulate(transcript, PROFILE)
    per_message = [5, 100, 1, 100, 1, 100, 1]
    check = estimate_check(transcript, result, o200k_per_message=per_message)
    assert [c.o200k for c in check.calls] == [105, 206, 307]
    assert [c.estimate for c in check.calls] == [c.tokens_sent for c in result.calls]


def test_a_provider_count_near_the_estimate_is_not_flagged():
    transcript = _session(150)
    check = estimate_check(transcript, simulate(transcript, PROFILE))
    assert not check.flagged and check.ratio is not None and check.ratio < 2


def test_a_far_larger_provider_count_blames_the_unrecorded_system_prompt_and_tools():
    transcript = _session(20_000)
    check = estimate_check(
        transcript, simulate(transcript, PROFILE), o200k_per_message=[5, 100, 1, 100, 1, 100, 1]
    )
    assert check.flagged and check.cause == "system-and-tools"
    assert "tool schemas" in check.explanation and "the tool schemas are not recorded" in check.explanation


def test_images_are_named_first_when_the_transcript_has_them():
    transcript = _session(20_000, image=True)
    check = estimate_check(transcript, simulate(transcript, PROFILE))
    assert check.flagged and check.cause == "images"
    assert "1 image;" in check.explanation


def test_a_tokenizer_that_already_counts_far_more_is_named():
    transcript = _session(20_000, system=False)
    check = estimate_check(transcript, simulate(transcript, PROFILE), o200k_per_message=[10_000, 1] * 3)
    assert check.flagged and check.cause == "tokenizer"


def test_the_chart_puts_every_series_on_one_scale():
    transcript = _session(1_000)
    check = estimate_check(
        transcript, simulate(transcript, PROFILE), o200k_per_message=[5, 100, 1, 100, 1, 100, 1]
    )
    chart = estimate_chart(check, width=300, height=100)
    assert chart.y_max == 1080
    assert len(chart.estimate.split()) == 3 and len(chart.reported_dots) == 3
    x, y, number, tokens = chart.reported_dots[0]
    assert (x, number, tokens) == (50.0, 1, 1000) and y == 7.41
