"""Reads for the simulation and compare screens: replays kept in ``dashboard.memo`` by transcript content
and canonical profile document."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from dashboard import memo
from dashboard.errors import ApplicationError
from dashboard.models import Profile, SimulationRun, Transcript
from dashboard.selectors.pricing import price_edits
from dashboard.selectors.profiles import profile_domain
from dashboard.selectors.transcript_pages import message_o200k, transcript_tokens
from dashboard.selectors.transcripts import transcript_key, transcript_parsed
from simulator import (
    JSON,
    RUNTIMES,
    Baseline,
    CacheTtl,
    CallRecord,
    CallView,
    Comparison,
    CostComparison,
    MessageDiff,
    PreparedReplay,
    ProfileError,
    ResultCost,
    SimulationResult,
    Timeline,
    call_view,
    changed_contents,
    compare,
    cost_comparison,
    load_price_table,
    message_diff,
    prepare_replay,
    price_table_with,
    profile_cost,
    profile_from_document,
    profile_to_document,
    recorded_baseline,
    replay_prepared,
    tiktoken_count,
    timeline,
)
from simulator import Profile as DomainProfile


def replay_key(
    transcript: Transcript, profile: DomainProfile, assumed_gap_seconds: float | None
) -> memo.ReplayKey:
    """The memo key of a replay (and of the values derived from it alone)."""
    document = json.dumps(profile_to_document(profile), sort_keys=True)
    return memo.ReplayKey(transcript_key(transcript), document, profile.name, assumed_gap_seconds)


def _prepared(transcript: Transcript, runtime: str, assumed_gap_seconds: float | None) -> PreparedReplay:
    """The transcript converted and sized for ``runtime``'s replays, kept: every knob value replays it."""

    def prepare() -> PreparedReplay:
        parsed = transcript_parsed(transcript=transcript)
        started = time.perf_counter()
        prepared = prepare_replay(parsed, runtime, assumed_gap_seconds=assumed_gap_seconds)
        # The rate behind the "first replay takes about…" estimates (with the replay's own).
        memo.PREPARE_RATES.record(runtime, len(parsed.messages), time.perf_counter() - started)
        return prepared

    return memo.PREPARED.get_or_compute(_prepared_key(transcript, runtime, assumed_gap_seconds), prepare)


def _prepared_key(
    transcript: Transcript, runtime: str, assumed_gap_seconds: float | None
) -> memo.PreparedKey:
    return memo.PreparedKey(transcript_key(transcript), runtime, assumed_gap_seconds)


def prepared_runtimes(*, transcript: Transcript, assumed_gap_seconds: float | None = None) -> frozenset[str]:
    """The runtimes this transcript is kept prepared for: their next first replay skips preparing."""
    return frozenset(
        runtime
        for runtime in RUNTIMES
        if memo.PREPARED.get(_prepared_key(transcript, runtime, assumed_gap_seconds)) is not None
    )


def _replayed(transcript: Transcript, key: memo.ReplayKey) -> SimulationResult:
    def replay() -> SimulationResult:
        # Replayed from the canonical document, so two equal profiles give the one kept result.
        profile = profile_from_document(json.loads(key.document), name=key.profile_name)
        prepared = _prepared(transcript, profile.runtime, key.assumed_gap_seconds)
        started = time.perf_counter()
        result = replay_prepared(prepared, profile)
        # The rate behind the "a knob change / a first replay takes about…" estimates.
        messages = len(prepared.transcript.messages)
        memo.REPLAY_RATES.record(profile.runtime, messages, time.perf_counter() - started)
        return result

    return memo.REPLAYS.get_or_compute(key, replay)


def simulation_result(
    *, transcript: Transcript, profile: DomainProfile, assumed_gap_seconds: float | None = None
) -> SimulationResult:
    """The replay of a transcript through a profile, kept by content, canonical document and assumed gap."""
    return _replayed(transcript, replay_key(transcript, profile, assumed_gap_seconds))


def cost_max_messages() -> int:
    """The longest session that is priced (``TRIMSCOPE_COST_MAX_MESSAGES``)."""
    limit: int = settings.TRIMSCOPE_COST_MAX_MESSAGES
    return limit


class SessionTooLongToPrice(ApplicationError):
    """Pricing is refused for a session over ``TRIMSCOPE_COST_MAX_MESSAGES`` messages: the cost model is
    linear in the session, but a profile that trims often holds about 10 kB per message while it prices
    (about 1 GB at 100,000 messages), so the limit keeps one request from taking the server's memory."""

    status = 422

    def __init__(self, messages: int, limit: int) -> None:
        super().__init__(
            f"this session has {messages:,} messages; sessions over {limit:,} are not priced"
            " (TRIMSCOPE_COST_MAX_MESSAGES: pricing holds about 10 kB per message)",
            {"messages": messages, "limit": limit},
        )


def simulation_result_kept(
    *, transcript: Transcript, profile: DomainProfile, assumed_gap_seconds: float | None = None
) -> bool:
    """Whether this replay is kept (a page can then be drawn at once rather than after replaying)."""
    return memo.REPLAYS.get(replay_key(transcript, profile, assumed_gap_seconds)) is not None


def simulation_cost(
    *,
    transcript: Transcript,
    profile: DomainProfile,
    user: User | AnonymousUser | None,
    pricing: str | None = None,
    assumed_gap_seconds: float | None = None,
    cache_ttl: CacheTtl = "5m",
) -> ResultCost:
    """What the replay of ``transcript`` through ``profile`` costs, at the prices in effect for ``user``.

    Kept in ``dashboard.memo`` by the replay's key, the pricing key, the price edits in effect (so an
    edit is a different key, never a stale price) and the cache-write lifetime.

    Raises:
        PriceTableError: ``pricing`` names no entry of the table.
        SessionTooLongToPrice: the transcript has more messages than ``TRIMSCOPE_COST_MAX_MESSAGES``.
    """
    limit = cost_max_messages()
    if transcript.message_count > limit:
        raise SessionTooLongToPrice(transcript.message_count, limit)
    replay = replay_key(transcript, profile, assumed_gap_seconds)
    edits = price_edits(user=user)

    def compute() -> ResultCost:
        result = _replayed(transcript, replay)
        table = price_table_with(load_price_table(), edits)
        parsed = transcript_parsed(transcript=transcript)
        tokens = transcript_tokens(transcript=transcript)
        baseline = None
        if profile.runtime != Profile.RuntimeKind.AS_RECORDED:  # its own baseline

            def make_baseline() -> Baseline:
                return recorded_baseline(
                    parsed,
                    profile.runtime,
                    pricing=pricing,
                    assumed_gap_seconds=assumed_gap_seconds,
                    ttl=cache_ttl,
                    table=table,
                    tokens=tokens,
                )

            key = memo.BaselineKey(
                transcript_key(transcript), profile.runtime, assumed_gap_seconds, pricing, edits, cache_ttl
            )
            baseline = memo.BASELINES.get_or_compute(key, make_baseline)
        return profile_cost(
            parsed,
            profile,
            result,
            pricing=pricing,
            assumed_gap_seconds=assumed_gap_seconds,
            ttl=cache_ttl,
            table=table,
            tokens=tokens,
            baseline=baseline,
        )

    return memo.COSTS.get_or_compute(memo.CostKey(replay, pricing, edits, cache_ttl), compute)


@dataclass(frozen=True, slots=True)
class SimulationScreen:
    result: SimulationResult
    timeline: Timeline
    call: CallView
    changed_texts: Mapping[int, str]


def _timeline(key: memo.ReplayKey, result: SimulationResult) -> Timeline:
    """The replay's timeline, kept beside it: it walks every call, so another call costs only its own view.
    It knows the trimmed calls, so the call to open first is not looked for again."""
    return memo.TIMELINES.get_or_compute(key, lambda: timeline(result))


@dataclass(frozen=True, slots=True)
class SimulationPick:
    """A replay, its timeline and the selected call's record, without the call's view: what a panel asked
    for after the page reads (a late call's view of a long session has tens of thousands of rows)."""

    result: SimulationResult
    timeline: Timeline
    record: CallRecord


def simulation_pick(
    *,
    transcript: Transcript,
    profile: DomainProfile,
    call: int | None,
    assumed_gap_seconds: float | None = None,
) -> SimulationPick:
    """The replay, its timeline and call ``call``'s record (the timeline's first call to open when
    ``None``; clamped to the replay's calls)."""
    key = replay_key(transcript, profile, assumed_gap_seconds)
    result = _replayed(transcript, key)
    bars = _timeline(key, result)
    number = min(max(call or bars.default_call, 1), len(result.calls))
    return SimulationPick(result, bars, result.calls[number - 1])


def simulation_screen(
    *,
    transcript: Transcript,
    profile: DomainProfile,
    call: int | None,
    assumed_gap_seconds: float | None = None,
) -> SimulationScreen:
    pick = simulation_pick(
        transcript=transcript, profile=profile, call=call, assumed_gap_seconds=assumed_gap_seconds
    )
    result, number = pick.result, pick.record.number
    parsed = transcript_parsed(transcript=transcript)
    changed = changed_contents(parsed, profile, result, number)
    view = call_view(parsed, result, number, changed=changed)
    return SimulationScreen(result, pick.timeline, view, {k: v[1] for k, v in changed.items()})


def simulation_tokenizer_count(
    *,
    transcript: Transcript,
    profile: DomainProfile,
    call: int | None,
    assumed_gap_seconds: float | None = None,
) -> tuple[int, int]:
    """o200k tokens of what the call sent and of everything available (text, thinking, tool calls).

    Each message is counted once per transcript and kept (``message_o200k``); a call only sums them, so
    a late call of a long session costs a sum, not a recount, once its messages have been counted. Only
    the call's record and the contents a rule changed are read, not the call's whole view.
    """
    key = replay_key(transcript, profile, assumed_gap_seconds)
    result = _replayed(transcript, key)
    number = min(max(call or _timeline(key, result).default_call, 1), len(result.calls))
    record = result.calls[number - 1]
    changed = changed_contents(transcript_parsed(transcript=transcript), profile, result, number)
    return _call_o200k(transcript, result, record, {k: v[1] for k, v in changed.items()})


def _call_o200k(
    transcript: Transcript, result: SimulationResult, call: CallRecord, changed_texts: Mapping[int, str]
) -> tuple[int, int]:
    origins = result.origins[: call.available]
    outside = [index for index, _ in result.outside if index < call.message_index]
    counts = message_o200k(
        transcript=transcript, indices=[*(i for origin in origins for i in origin), *outside]
    )
    sent_natives = set(call.sent_indices())
    sent = full = 0
    for native, origin in enumerate(origins):
        for index in origin:
            count = counts[index]
            full += count
            if native in sent_natives:
                changed = changed_texts.get(native)
                sent += count if changed is None or index != origin[0] else tiktoken_count(changed)
    # System prompts that a runtime sends outside its history count for both (a failed call's reply
    # that the runtime does not carry counts for neither).
    for index in outside:
        sent += counts[index]
        full += counts[index]
    return sent, full


def comparison(
    *, transcript: Transcript, profiles: list[DomainProfile], assumed_gap_seconds: float | None = None
) -> tuple[list[SimulationResult], Comparison]:
    """The profiles' replays side by side, each with the gap its cost assumes (OpenClaw's clock reads it)."""
    results = [
        simulation_result(transcript=transcript, profile=p, assumed_gap_seconds=assumed_gap_seconds)
        for p in profiles
    ]
    return results, compare(transcript_parsed(transcript=transcript), results)


# -- stored runs and the API's comparison ------------------------------------------------------------

COMPARE_MIN, COMPARE_MAX = 2, 3


def simulation_run_list(*, transcript_id: int | None = None) -> QuerySet[SimulationRun]:
    runs = SimulationRun.objects.select_related("created_by")
    return runs if transcript_id is None else runs.filter(transcript_id=transcript_id)


def simulation_run_get(*, run_id: int) -> SimulationRun | None:
    return SimulationRun.objects.select_related("transcript", "created_by").filter(pk=run_id).first()


def simulation_run_result(*, run: SimulationRun) -> SimulationResult:
    """The run's per-call result, replayed again from the stored transcript text and profile document."""
    profile = profile_from_document(run.document, name=run.profile_name)
    return simulation_result(
        transcript=run.transcript, profile=profile, assumed_gap_seconds=run.assumed_gap_seconds
    )


def simulation_run_cost(
    *, run: SimulationRun, user: User | AnonymousUser | None, cache_ttl: CacheTtl = "5m"
) -> ResultCost:
    """The run's cost at the pricing it asked for and the prices in effect for ``user`` now."""
    profile = profile_from_document(run.document, name=run.profile_name)
    return simulation_cost(
        transcript=run.transcript,
        profile=profile,
        user=user,
        pricing=run.pricing or None,
        assumed_gap_seconds=run.assumed_gap_seconds,
        cache_ttl=cache_ttl,
    )


def simulation_compare_profiles(
    *, profile_rows: Sequence[Profile], documents: Sequence[JSON] = ()
) -> list[DomainProfile]:
    """Stored profiles, then inline documents (named ``inline profile 1``...), to compare.

    Raises:
        ProfileError: not 2 or 3 profiles in all, or an inline document is invalid (``field`` is then
            prefixed with ``profiles[i].``).
    """
    count = len(profile_rows) + len(documents)
    if not COMPARE_MIN <= count <= COMPARE_MAX:
        raise ProfileError(
            "profile_ids",
            f"{count} profiles given",
            allowed=f"{COMPARE_MIN} to {COMPARE_MAX} profiles (profile_ids and inline profiles together)",
        )
    profiles = [profile_domain(profile=row) for row in profile_rows]
    for i, document in enumerate(documents):
        try:
            profiles.append(profile_from_document(document, name=f"inline profile {i + 1}"))
        except ProfileError as exc:
            raise ProfileError(f"profiles[{i}].{exc.field}", exc.problem, allowed=exc.allowed) from exc
    return profiles


def simulation_compare(
    *, transcript: Transcript, profile_rows: Sequence[Profile], documents: Sequence[JSON] = ()
) -> Comparison:
    """Stored profiles, then inline documents, replayed side by side (see ``simulation_compare_profiles``)."""
    profiles = simulation_compare_profiles(profile_rows=profile_rows, documents=documents)
    return comparison(transcript=transcript, profiles=profiles)[1]


def comparison_costs(
    *,
    transcript: Transcript,
    profiles: Sequence[DomainProfile],
    user: User | AnonymousUser | None,
    pricing: str | None = None,
    assumed_gap_seconds: float | None = None,
    cache_ttl: CacheTtl = "5m",
) -> tuple[list[ResultCost], CostComparison]:
    """Each compared profile's cost, and the costs side by side (the first profile is the reference).

    Raises:
        PriceTableError: ``pricing`` names no entry of the table.
    """
    costs = [
        simulation_cost(
            transcript=transcript,
            profile=p,
            user=user,
            pricing=pricing,
            assumed_gap_seconds=assumed_gap_seconds,
            cache_ttl=cache_ttl,
        )
        for p in profiles
    ]
    return costs, cost_comparison([c.session for c in costs])


def comparison_message_diff(
    *, transcript: Transcript, results: list[SimulationResult], number: int
) -> tuple[MessageDiff, ...]:
    return message_diff(transcript_parsed(transcript=transcript), results, number)
