"""demo_fleet: replay → envelopes (pure), and ``--once`` end to end against a real daphne and /ws/runtime/."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime
from io import StringIO

import pytest
from django.core.management import call_command

from dashboard import services
from dashboard.fleet_schemas import Envelope, parse_frame
from dashboard.management.commands.demo_fleet import (
    DEMO_ALERT_THRESHOLDS,
    LOOP,
    OVERFLOW,
    RUNAWAY,
    demo_session,
    session_envelopes,
    simulate_session,
    trim_events,
)
from dashboard.models import Profile, Runtime, Transcript, TrimEvent
from dashboard.runtime_client import RuntimeClient, RuntimeClientClosed

BUDGET = "context token budget exceeded"
CAP = "history message limit exceeded"


def as_sent(env: dict[str, object], seq: int) -> dict[str, object]:
    return {**env, "seq": seq, "sent_at": datetime.now(UTC).isoformat()}


def test_demo_sessions_are_deterministic_and_vary():
    assert demo_session(2, 3) == demo_session(2, 3)
    assert demo_session(1, 0).session_id == "demo-rt1-0"
    plans = {demo_session(n, 0).plan.key for n in range(1, 6)}
    assert len(plans) >= 4  # runtimes trim at different rates
    later = [demo_session(n, k).plan for n in range(1, 6) for k in range(20)]
    assert OVERFLOW in later and RUNAWAY in later and LOOP in later  # now and then an overflow
    # A few alerts, not a wall: failures and loops are rare, each on one runtime.
    assert later.count(RUNAWAY) == 1 and later.count(LOOP) == 1
    assert len({demo_session(1, k).turns for k in range(5)}) > 1


def test_only_the_looping_demo_sessions_are_busy_under_the_demo_thresholds():
    limit = DEMO_ALERT_THRESHOLDS["session_trims_count"]
    for n in range(1, 6):
        for k in range(20):
            session = demo_session(n, k)
            busy = len(session_envelopes(session, runtime="x")) > limit
            assert busy == (session.plan is LOOP), (n, k, session.plan.key)


def test_envelopes_carry_the_replays_trims_in_a_valid_shape():
    reasons: Counter[str] = Counter()
    recoveries: Counter[str] = Counter()
    for number in range(1, 6):
        for k in range(10):
            session = demo_session(number, k)
            result = simulate_session(session)
            envelopes = session_envelopes(session, runtime=f"demo-runtime-{number}")
            ws_trims = [e for c in result.calls for e in c.events]
            assert len(envelopes) == len(ws_trims) > 0
            ids = [e["event"]["id"] for e in envelopes]
            assert len(set(ids)) == len(ids)
            for seq, env in enumerate(envelopes, start=1):
                frame = parse_frame(as_sent(env, seq))
                assert isinstance(frame, Envelope)
                assert frame.session_id == session.session_id and frame.runtime == f"demo-runtime-{number}"
                event = frame.event
                assert event.call_number is not None and event.tokens_before is not None
                assert event.tokens_after is not None and event.budget is not None
                assert event.tokens_after <= event.tokens_before
                reasons[event.reason] += 1
                if event.overflow_recovery:
                    recoveries[event.overflow_recovery] += 1
    assert reasons[BUDGET] and reasons[CAP]
    assert recoveries["recovered"] and recoveries["failed"]


def test_trim_events_follow_the_calls():
    session = demo_session(1, 0)
    result = simulate_session(session)
    events = trim_events(result, session_id="s")
    trimmed_calls = [c for c in result.calls if c.events]
    assert [e["call_number"] for e in events] == [c.number for c in trimmed_calls for _ in c.events]
    first = trimmed_calls[0]
    assert events[0]["tokens_before"] == first.tokens_full and events[0]["tokens_after"] == first.tokens_sent
    assert events[0]["budget"] == first.budget == 8000
    # An overflow-recovery trim reports its round's own figures.
    overflow = next(
        demo_session(n, k) for n in range(1, 6) for k in range(10) if demo_session(n, k).plan is OVERFLOW
    )
    result = simulate_session(overflow)
    recovered = [e for e in trim_events(result, session_id="o") if e.get("overflow_recovery") == "recovered"]
    call = next(c for c in result.calls if c.overflow == "recovered")
    step = call.retries[0]
    assert recovered[0]["call_number"] == call.number
    assert (recovered[0]["tokens_before"], recovered[0]["tokens_after"], recovered[0]["budget"]) == (
        step.tokens_before,
        step.tokens_after,
        step.budget,
    )


def run_demo(url: str, runtimes: int = 2) -> str:
    out = StringIO()
    call_command(
        "demo_fleet",
        "--runtimes",
        str(runtimes),
        "--url",
        url,
        "--once",
        "--rate",
        "2000",
        "--backoff-initial",
        "0.02",
        "--seed",
        "1",
        stdout=out,
    )
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_demo_fleet_once_streams_every_event_over_the_real_websocket(daphne_url):
    out = run_demo(daphne_url)
    expected = {n: session_envelopes(demo_session(n, 0), runtime=f"demo-runtime-{n}") for n in (1, 2)}
    total = sum(len(v) for v in expected.values())
    assert f"done: {total} events sent, {total} acknowledged" in out
    first_ids = {}
    for n, envelopes in expected.items():
        runtime = Runtime.objects.get(name=f"demo-runtime-{n}")
        first_ids[n] = runtime.pk
        rows = list(TrimEvent.objects.filter(runtime=runtime).order_by("seq"))
        assert [r.event_id for r in rows] == [e["event"]["id"] for e in envelopes]  # each once, in order
        assert {r.shape for r in rows} == {"envelope"}
        assert {r.session_id for r in rows} == {f"demo-rt{n}-0"}
        assert all(r.call_number and r.tokens_before and r.budget for r in rows)
    transcript = Transcript.objects.get(session_id="demo-rt1-0")
    assert transcript.source.text == demo_session(1, 0).transcript_text()
    assert Profile.objects.filter(name__startswith="Demo fleet").count() == 1

    # A second start re-registers the runtimes with fresh tokens; the transcript is not uploaded twice.
    out = run_demo(daphne_url)
    assert f"{total} acknowledged" in out
    for n, envelopes in expected.items():
        runtime = Runtime.objects.get(name=f"demo-runtime-{n}")
        assert runtime.pk != first_ids[n]
        assert TrimEvent.objects.filter(runtime=runtime).count() == len(envelopes)
    assert Transcript.objects.filter(session_id="demo-rt1-0").count() == 1


@pytest.mark.django_db(transaction=True)
def test_runtime_client_against_the_real_server_dedupes_and_refuses_a_bad_token(daphne_url):
    runtime, token = services.runtime_create(name="client-e2e")
    envelope = {
        "session_id": "e2e",
        "event": {"type": "history_trimmed", "dropped_messages": 2, "kept_turns": 1, "reason": BUDGET},
    }

    async def scenario() -> tuple[RuntimeClient, RuntimeClient]:
        async with RuntimeClient(daphne_url, token, backoff_initial=0.02) as client:
            seq = await client.send(envelope)
            await client.drain(timeout=10)
            await client.send({**envelope, "seq": seq})  # a resend of a stored envelope
            await client.drain(timeout=10)
        async with RuntimeClient(daphne_url, "rt_wrong", backoff_initial=0.02) as bad:
            await bad.send(envelope)
            with pytest.raises(RuntimeClientClosed, match="4401"):
                await bad.drain(timeout=10)
        return client, bad

    client, bad = asyncio.run(scenario())
    assert client.counters.acked == 2 and client.counters.duplicates == 1
    assert TrimEvent.objects.filter(runtime=runtime).count() == 1
    assert bad.counters.acked == 0
