"""The simulation page's numbers agree with each other; failed calls, developer instructions, trim events."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.urls import reverse
from ninja.testing import TestClient

from dashboard import services
from dashboard.api import api as ninja_api
from tests.simulator.test_trim_event_payloads import _claude_code_without_times
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
TURN_CAP = {
    "trimscope": {"runtime": "zeroclaw", "version": "documented"},
    "runtime_profiles": {"default": {"max_history_messages": 2}},
}
AI_PROFILE = {"trimscope": {"runtime": "ai_profile"}, "limits": {"preset": {"contextWindow": 200000}}}
OPENCLAW = {
    "trimscope": {"runtime": "openclaw"},
    "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
}


def _page(client, transcript, profile, call: int) -> str:
    url = f"{reverse('simulation')}?transcript={transcript.pk}&profile={profile.pk}&call={call}"
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def _numbers(body: str) -> tuple[dict[str, int], dict[str, int], str]:
    block = re.search(r'<p class="muted small" id="call-counts"(.*?)</p>', body, re.S)
    assert block, "the counts line is on the page"
    attrs = {
        k.replace("-", "_"): int(v) for k, v in re.findall(r'data-([a-z-]+)="(\d+)"', block[1].split(">")[0])
    }
    chips = {fate: int(n) for fate, n in re.findall(r'data-fate="([^"]+)" data-count="(\d+)"', block[1])}
    sentence = re.search(r'<span class="count-sentence">(.*?)</span>', block[1], re.S)
    assert sentence
    return attrs, chips, sentence[1]


def test_the_sentence_and_the_chips_agree_on_every_call_of_every_runtime(operator_client, operator):
    transcript = services.transcript_import(text=tool_heavy_chat(6), name="chat", user=operator)
    for name, document in (("cap", TURN_CAP), ("ai", AI_PROFILE), ("oc", OPENCLAW)):
        profile = services.profile_create(name=name, document=document)
        for call in range(1, 13):
            attrs, chips, sentence = _numbers(_page(operator_client, transcript, profile, call))
            assert attrs["sent"] + attrs["dropped"] == attrs["held"]
            assert sum(chips.values()) == attrs["listed"] == attrs["held"] + attrs["not_held"]
            assert chips.get("dropped", 0) == attrs["dropped"]
            assert sentence.startswith(f"{attrs['sent']} of {attrs['held']} messages held were sent")


def test_the_turn_cap_sentence_no_longer_counts_the_breadcrumb_as_a_sent_message(operator_client, operator):
    transcript = services.transcript_import(text=tool_heavy_chat(6), name="chat", user=operator)
    profile = services.profile_create(name="cap", document=TURN_CAP)
    attrs, chips, sentence = _numbers(_page(operator_client, transcript, profile, 12))
    assert "plus the breadcrumb note" in sentence
    assert chips["kept"] == attrs["sent"] and chips["dropped"] == attrs["dropped"] > 0


def test_ai_profile_counts_its_system_prompt_in_the_window_bar(operator_client, operator):
    transcript = services.transcript_import(text=tool_heavy_chat(3), name="chat", user=operator)
    profile = services.profile_create(name="ai", document=AI_PROFILE)
    body = _page(operator_client, transcript, profile, 1)
    system = re.search(r'<li><span class="key seg-system"></span>System ([\d,]+)</li>', body)
    assert system and int(system[1].replace(",", "")) > 0
    assert "of which system prompt (outside the history)" in body
    sent = int(re.search(r'id="tokens-sent">([\d,]+)<', body)[1].replace(",", ""))
    legend = re.findall(r'<li><span class="key seg-(?!free)[a-z]+"></span>[^<]*?([\d,]+)</li>', body)
    assert sum(int(n.replace(",", "")) for n in legend) == sent


def test_no_dropped_heading_on_a_call_that_dropped_nothing(operator_client, operator):
    text = json.dumps([{"role": "user", "content": "x" * 5000}, {"role": "assistant", "content": "ok"}])
    transcript = services.transcript_import(text=text, name="one", user=operator)
    document = {
        "trimscope": {"runtime": "ai_profile"},
        "max_tokens": 4096,
        "limits": {"preset": {"contextWindow": 12000}},
    }
    profile = services.profile_create(name="small", document=document)
    body = _page(operator_client, transcript, profile, 1)
    assert "<h3>Dropped</h3>" not in body


def test_a_failed_call_is_marked_on_the_timeline_and_named_on_the_call_view(operator_client, operator):
    transcript = services.transcript_import(
        text=(FIXTURES / "pi_session_v1.jsonl").read_text(), name="pi", user=operator
    )
    profile = services.profile_create(name="cap", document=TURN_CAP)
    failed_call = 2
    body = _page(operator_client, transcript, profile, failed_call)
    assert 'id="failed-call"' in body and "The provider failed this call" in body
    assert 'class="mark-failed"' in body and "Failed calls</dt>" in body
    later = _page(operator_client, transcript, profile, 3)
    attrs, chips, _ = _numbers(later)
    assert chips.get("failed") == attrs["not_held"] == 1


def test_developer_instructions_are_labelled_in_the_rows(operator_client, operator):
    transcript = services.transcript_import(
        text=(FIXTURES / "codex_rollout_developer.jsonl").read_text(), name="codex", user=operator
    )
    profile = services.profile_create(name="ai", document=AI_PROFILE)
    body = _page(operator_client, transcript, profile, 2)
    assert '<span class="role">developer instructions</span>' in body
    assert "seg-developer" in body


def test_trim_events_on_the_page_and_through_the_api_name_the_session_and_an_unknown_time(
    operator_client, operator
):
    transcript = services.transcript_import(
        text=_claude_code_without_times("cc-api"), name="cc", user=operator
    )
    document = {"trimscope": {"runtime": "zeroclaw", "version": "documented"}}
    document["runtime_profiles"] = {"default": {"max_context_tokens": 1500}}
    profile = services.profile_create(name="tight", document=document)
    _, secret = services.api_token_create(user=operator, name="ci")
    api = TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})
    result = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": profile.pk}).json()[
        "result"
    ]
    frames = [f for c in result["calls"] for f in c["events"]]
    assert [f["session_id"] for f in frames if "session_id" in f] and all(
        f["session_id"] == "cc-api" for f in frames if "session_id" in f
    )
    assert all(f["timestamp"] is None for f in frames if "timestamp" in f) and "1970" not in json.dumps(
        frames
    )
    trimmed = next(c["number"] for c in result["calls"] if c["events"])
    body = _page(operator_client, transcript, profile, trimmed)
    assert "<code>cc-api</code>" in body and "time unknown (the transcript has no timestamps)" in body
    assert "1970" not in body


def test_the_tokenizer_count_leaves_out_a_failed_reply_and_counts_a_system_prompt_sent_beside(
    operator_client, operator
):
    from simulator import message_token_text, parse_transcript, tiktoken_count

    text = (FIXTURES / "pi_session_v1.jsonl").read_text()
    transcript = services.transcript_import(text=text, name="pi", user=operator)
    parsed = parse_transcript(text)
    profile = services.profile_create(name="zc", document={"trimscope": {"runtime": "zeroclaw"}})
    url = f"{reverse('simulation-tokens')}?transcript={transcript.pk}&profile={profile.pk}&call=3"
    numbers = [
        int(n.replace(",", "")) for n in re.findall(r"[\d,]+", operator_client.get(url).content.decode())
    ]
    last = len(parsed.messages) - 1
    held = [m for m in parsed.messages[:last] if m.error is None]
    assert len(held) < last  # the fixture has a failed call
    assert numbers == [sum(tiktoken_count(message_token_text(m)) for m in held)] * 2

    chat = services.transcript_import(text=tool_heavy_chat(2), name="chat", user=operator)
    ai = services.profile_create(name="ai", document=AI_PROFILE)
    url = f"{reverse('simulation-tokens')}?transcript={chat.pk}&profile={ai.pk}&call=1"
    sent, _ = [
        int(n.replace(",", "")) for n in re.findall(r"[\d,]+", operator_client.get(url).content.decode())
    ]
    first = parse_transcript(tool_heavy_chat(2)).messages[:2]  # the system prompt and the first task
    assert sent == sum(tiktoken_count(message_token_text(m)) for m in first)
