"""``manage.py demo_fleet``: a pretend fleet of ZeroClaw runtimes streaming real simulated trims.

Each demo runtime replays synthetic coding sessions through the simulator under its own tight ZeroClaw
profile (token budget, history cap, both, a provider window small enough for overflow recovery, now and
then a runaway tool result whose recovery fails) and sends the trims the replay produced as Trimscope
envelopes over the real ``/ws/runtime/`` WebSocket with :class:`~dashboard.runtime_client.RuntimeClient`,
paced at about ``--rate`` events per second per runtime, one new session after another.

Runtimes are named ``demo-runtime-1`` … ``demo-runtime-N``. Tokens are never stored, so every start
deletes the previous demo runtimes of those names (and their demo events) and registers them again with
fresh tokens through :func:`dashboard.services.runtime_create`; an older ``demo_fleet`` still running is
then refused (4401) and stops. Sessions are ``demo-rt<N>-<k>`` (runtime number, session number). The first
session of ``demo-runtime-1`` is also uploaded as a transcript with that session id, with a profile of its
settings, so its session page links every trim to the simulation at that call.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandError
from django.db import OperationalError, transaction

from dashboard import selectors, services
from dashboard.models import Profile, Runtime, Transcript
from dashboard.runtime_client import RuntimeClient, RuntimeClientClosed, backoff_delay, runtime_ws_url
from simulator import (
    JSON,
    SimulationResult,
    parse_transcript,
    profile_from_document,
    simulate,
    synthetic_openclaw_session,
    wire_shapes,
)

RUNTIME_PREFIX = "demo-runtime-"


def _zeroclaw(
    profile: Mapping[str, JSON], *, version: str = "documented", window: int | None = None
) -> dict[str, JSON]:
    doc: dict[str, JSON] = {
        "trimscope": {"runtime": "zeroclaw", "version": version},
        "runtime_profiles": {"default": dict(profile)},
    }
    if window is not None:
        doc["provider"] = {"model": "gpt-4o", "context_window": window}
    return doc


@dataclass(frozen=True, slots=True)
class Plan:
    """How one kind of demo session is built: its size and the ZeroClaw profile it runs under."""

    key: str
    label: str
    turns: int
    tool_result_chars: int
    document: dict[str, JSON]
    spread: int = 11
    """Sessions have ``turns`` to ``turns + spread - 1`` turns."""


PLANS: tuple[Plan, ...] = (
    Plan("budget", "8k token budget", 30, 2000, _zeroclaw({"max_context_tokens": 8000})),
    Plan("cap", "6-turn history cap", 24, 1000, _zeroclaw({"max_history_messages": 6})),
    Plan(
        "mixed",
        "6k budget and 10-turn cap, small tool results (the cap trims)",
        30,
        800,
        _zeroclaw({"max_context_tokens": 6000, "max_history_messages": 10}),
    ),
    Plan("roomy", "default 32k budget, big tool results", 40, 4000, _zeroclaw({})),
    Plan(
        "tool-heavy",
        "6k budget and 10-turn cap, big tool results (the budget trims)",
        30,
        2500,
        _zeroclaw({"max_context_tokens": 6000, "max_history_messages": 10}),
    ),
)
OVERFLOW = Plan(
    "overflow",
    "12k provider window under a 30k budget (overflow recovery)",
    30,
    3000,
    _zeroclaw({"max_context_tokens": 30000, "max_history_messages": 1000}, version="upstream", window=12000),
)
RUNAWAY = Plan(
    "runaway",
    "9k provider window, 40k-character tool results (recovery fails)",
    4,
    40000,
    _zeroclaw({"max_context_tokens": 30000, "max_history_messages": 1000}, version="upstream", window=9000),
    spread=3,
)
LOOP = Plan(
    "loop",
    "6-turn history cap, a session that keeps going (trimmed on nearly every call)",
    90,
    1000,
    _zeroclaw({"max_history_messages": 6}),
    spread=5,
)

# The demo streams a session's trims within seconds (so the page moves), far faster than a real
# session makes model calls: under the default busy-session rule every demo session would be "busy".
# These thresholds fit the demo's pace: only the looping sessions (about 80 trims) are busy. They are
# stored only when no operator has edited the thresholds, and can be edited on the fleet page.
DEMO_ALERT_THRESHOLDS = {"session_trims_count": 40, "session_trims_minutes": 5, "runtime_silent_minutes": 15}


@dataclass(frozen=True, slots=True)
class DemoSession:
    number: int
    """The runtime's number, 1-based."""
    k: int
    """The session's number on that runtime, 0-based."""
    plan: Plan
    turns: int

    @property
    def session_id(self) -> str:
        return f"demo-rt{self.number}-{self.k}"

    def transcript_text(self) -> str:
        return synthetic_openclaw_session(
            self.turns, tool_result_chars=self.plan.tool_result_chars, session_id=self.session_id
        )


def demo_session(number: int, k: int) -> DemoSession:
    """Session ``k`` of runtime ``number``: its own plan, an overflow now and then, varying length.

    A few meaningful alerts, not a wall of them: a failed overflow recovery on runtime 2 about every
    twentieth session, a looping (busy) session on runtime 4 about every twentieth, overflows that
    recover everywhere now and then.
    """
    if number == 2 and k % 20 == 6:
        plan = RUNAWAY
    elif number == 4 and k % 20 == 3:
        plan = LOOP
    elif (number + k) % 5 == 4:
        plan = OVERFLOW
    else:
        plan = PLANS[(number - 1) % len(PLANS)]
    return DemoSession(number, k, plan, plan.turns + (k * 7) % plan.spread)


def simulate_session(session: DemoSession) -> SimulationResult:
    transcript = parse_transcript(session.transcript_text(), format="openclaw")
    profile = profile_from_document(session.plan.document, name=f"demo-fleet-{session.plan.key}")
    return simulate(transcript, profile)


def trim_events(result: SimulationResult, *, session_id: str) -> list[dict[str, Any]]:
    """The replay's trims as rich ``history_trimmed`` events (the ``event`` of an envelope), in order.

    Each trim is sent in ZeroClaw's WebSocket shape, rendered from the replay's typed event.
    ``tokens_before``/``tokens_after``/``budget`` are the call's (held before trimming, sent, configured
    budget); an overflow-recovery trim has its own round's figures and ``overflow_recovery`` set to how the
    call ended. ``dropped_turns`` is not known from a replay and is left out.
    """
    events: list[dict[str, Any]] = []
    for call in result.calls:
        rounds = iter([r for r in call.retries if r.recovered])
        for index, trim in enumerate(call.events):
            event: dict[str, Any] = {
                **wire_shapes(trim).ws,
                "id": f"{session_id}:{call.number}:{index}",
                "call_number": call.number,
                "tokens_before": call.tokens_full,
                "tokens_after": call.tokens_sent,
            }
            if call.budget is not None:
                event["budget"] = call.budget
            step = next(rounds, None) if trim.cause == "overflow_recovery" else None
            if step is not None and call.overflow != "none":
                event.update(
                    tokens_before=step.tokens_before,
                    tokens_after=step.tokens_after,
                    budget=step.budget,
                    overflow_recovery=call.overflow,
                )
            events.append(event)
    return events


def session_envelopes(session: DemoSession, *, runtime: str) -> list[dict[str, Any]]:
    """The envelopes one demo session sends, without ``seq``/``sent_at`` (the client fills those in)."""
    sid = session.session_id
    return [
        {"runtime": runtime, "session_id": sid, "event": event}
        for event in trim_events(simulate_session(session), session_id=sid)
    ]


# -- database setup (sync, before the event loop starts) ----------------------------------------------


def demo_runtimes_register(count: int) -> list[tuple[Runtime, str]]:
    """Fresh ``demo-runtime-1..count`` rows with new tokens (earlier ones of those names deleted)."""
    names = [f"{RUNTIME_PREFIX}{n}" for n in range(1, count + 1)]
    for attempt in range(1, 6):
        try:
            with transaction.atomic():
                Runtime.objects.filter(name__in=names).delete()
                return [services.runtime_create(name=name, kind="zeroclaw") for name in names]
        except OperationalError as exc:
            # SQLite (WAL): the delete reads first, and a write by the server in between (a previous
            # demo's sockets closing) makes the upgrade to a write fail at once with "locked". Retry.
            if "locked" not in str(exc) or attempt == 5:
                raise
            time.sleep(0.2 * attempt)
    raise AssertionError("unreachable")


def demo_transcript_ensure(session: DemoSession) -> tuple[Transcript, Profile]:
    """Upload ``session`` as a transcript (once per exact text) and a profile of its plan's settings."""
    text = session.transcript_text()
    transcript = Transcript.objects.filter(session_id=session.session_id).first()
    if transcript is None or selectors.transcript_text(transcript=transcript) != text:
        try:
            transcript = services.transcript_import(
                text=text, name=f"Demo fleet: session {session.session_id}", format="openclaw"
            )
        except services.TranscriptAlreadyStored as exc:
            # The same text is stored under another name: that row is the session's transcript.
            transcript = exc.existing
    name = f"Demo fleet · {session.plan.label}"[:120]
    profile = Profile.objects.filter(name=name).first()
    if profile is None:
        profile = services.profile_create(
            name=name,
            document=session.plan.document,
            description=f"The settings demo_fleet's {session.plan.key} sessions run under.",
        )
    return transcript, profile


# -- streaming ------------------------------------------------------------------------------------------


async def wait_for_server(url: str, *, initial: float, maximum: float, say: Callable[[str], object]) -> None:
    """Return once ``url``'s host accepts TCP connections (retrying with backoff)."""
    parts = urlsplit(runtime_ws_url(url))
    host = parts.hostname or "127.0.0.1"
    port = parts.port or (443 if parts.scheme == "wss" else 80)
    rng, attempt = random.Random(), 0
    while True:
        try:
            _reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            attempt += 1
            if attempt == 1:
                say(f"demo fleet: waiting for {host}:{port} …")
            await asyncio.sleep(backoff_delay(attempt, initial=initial, maximum=maximum, jitter=0.5, rng=rng))
            continue
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return


async def stream_runtime(
    client: RuntimeClient, *, number: int, runtime: str, rate: float, once: bool, rng: random.Random
) -> int:
    """Send session after session (one with ``once``); returns the number of envelopes sent."""
    sent, k = 0, 0
    while True:
        session = demo_session(number, k)
        for env in session_envelopes(session, runtime=runtime):
            await client.send(env)
            sent += 1
            await asyncio.sleep(rng.uniform(0.5, 1.5) / rate)
        if once:
            return sent
        k += 1
        await asyncio.sleep(rng.uniform(1.0, 3.0) / rate)  # a pause between sessions


class Command(BaseCommand):
    help = (
        "Register demo runtimes and stream the trims of simulated sessions over the real /ws/runtime/ "
        "WebSocket, so the fleet page moves."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--runtimes", type=int, default=5, help="how many demo runtimes (default 5)")
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="the Trimscope server")
        parser.add_argument("--once", action="store_true", help="one session per runtime, then exit")
        parser.add_argument("--rate", type=float, default=2.0, help="events per second per runtime (about)")
        parser.add_argument("--backoff-initial", type=float, default=0.5, help="first retry delay (s)")
        parser.add_argument("--backoff-max", type=float, default=10.0, help="longest retry delay (s)")
        parser.add_argument("--seed", type=int, default=None, help="seed the pacing jitter")

    def handle(self, *args: object, **options: Any) -> None:
        count: int = options["runtimes"]
        rate: float = options["rate"]
        if not 1 <= count <= 100:
            raise CommandError("--runtimes must be between 1 and 100")
        if rate <= 0:
            raise CommandError("--rate must be positive")
        try:
            ws_url = runtime_ws_url(options["url"])
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        registered = demo_runtimes_register(count)
        if not selectors.alert_rules().edited:
            services.alert_thresholds_update(**DEMO_ALERT_THRESHOLDS)
            self.stdout.write(
                "demo fleet: alert thresholds set for the demo's pace (busy: more than 40 trims in 5 min); "
                "edit them on the fleet page"
            )
        transcript, _profile = demo_transcript_ensure(demo_session(1, 0))
        self.stdout.write(
            f"demo fleet: {count} runtimes → {ws_url}, about {rate:g} events/s each"
            f"{' (one session each)' if options['once'] else ''}; "
            f"session {transcript.session_id} is uploaded as transcript #{transcript.pk}"
        )
        self._clients: list[RuntimeClient] = []
        try:
            summary = asyncio.run(self._main(registered, options))
        except KeyboardInterrupt:
            summary = "stopped: " + _totals(self._clients)
        self.stdout.write(f"demo fleet: {summary}")

    async def _main(self, registered: list[tuple[Runtime, str]], options: Any) -> str:
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        if task is not None:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread
                loop.add_signal_handler(signal.SIGTERM, task.cancel)
        initial, maximum = options["backoff_initial"], options["backoff_max"]
        await wait_for_server(options["url"], initial=initial, maximum=maximum, say=self.stdout.write)
        seed = options["seed"]
        clients = [
            RuntimeClient(
                options["url"],
                token,
                runtime=runtime.name,
                backoff_initial=initial,
                backoff_max=maximum,
                rng=random.Random(None if seed is None else seed + i),
            )
            for i, (runtime, token) in enumerate(registered)
        ]
        self._clients = clients
        try:
            streams = [
                stream_runtime(
                    client,
                    number=i + 1,
                    runtime=runtime.name,
                    rate=options["rate"],
                    once=options["once"],
                    rng=random.Random(None if seed is None else seed * 31 + i),
                )
                for i, (client, (runtime, _token)) in enumerate(zip(clients, registered, strict=True))
            ]
            await asyncio.gather(*streams)
            await asyncio.gather(*(client.drain() for client in clients))
        except asyncio.CancelledError:
            return "stopped: " + _totals(clients)
        except RuntimeClientClosed as exc:
            raise CommandError(f"a demo runtime was stopped: {exc}") from exc
        finally:
            for client in clients:
                await client.close()
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signal.SIGTERM)
        return "done: " + _totals(clients)


def _totals(clients: list[RuntimeClient]) -> str:
    sent = sum(c.counters.sent for c in clients)
    acked = sum(c.counters.acked for c in clients)
    resent = sum(c.counters.resent for c in clients)
    reconnects = sum(c.counters.reconnects for c in clients)
    return f"{sent} events sent, {acked} acknowledged, {resent} resent, {reconnects} reconnects"
