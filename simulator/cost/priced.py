"""A replay priced: which pricing, the cost of every call, the cache breaks, the ``as-recorded`` baseline,
and the model's prediction beside the cache usage the transcript recorded.

This is the one place the CLI, the API and the pages get cost from, so they agree to the cent:

* pricing: the key asked for, else the model the transcript records when the table has it, else the
  table's named default with a warning (:func:`pricing_choice`);
* time between calls: the transcript's timestamps; without any, the assumed gap (``assumed_gap_seconds``,
  the same knob OpenClaw's TTL pruning reads), else :data:`simulator.assumed_times.DEFAULT_GAP_SECONDS`
  (the same default that replay uses), and the result says which;
* the baseline: the transcript replayed with no context management (``as-recorded``) with the same
  runtime's cache breakpoints, so the difference is what the context rules alone change. A result of
  the ``as-recorded`` profile itself uses the breakpoints of the runtime that wrote the transcript's
  format, as does the prediction compared with recorded usage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from simulator.assumed_times import gap_or_default, gap_statement, has_timestamps
from simulator.cost.breakpoints import RUNTIME_POLICY, policy_for_format
from simulator.cost.breaks import CacheBreak, cache_breaks
from simulator.cost.cache import SessionCost, price_requests
from simulator.cost.from_replay import (
    ChangedContents,
    TranscriptTokens,
    UsageComparison,
    as_recorded_requests,
    compare_with_recorded,
    requests_from_result,
)
from simulator.cost.pricing import (
    ONE_HOUR_SECONDS,
    CacheTtl,
    PriceTable,
    PriceTableError,
    PricingLookup,
    load_price_table,
    pricing_for,
    resolve_key,
)
from simulator.cost.shapes import USD_DECIMALS, cost_json, pricing_json, summary_cost_usd
from simulator.jsonvalue import JSON
from simulator.long_lived import collector_paused
from simulator.replay.model import SimulationResult
from simulator.transcript import Role, Transcript

AS_RECORDED_RUNTIME = "as_recorded"

GapSource = Literal["timestamps", "assumed", "default"]
FIVE_MINUTES_SECONDS = 300


def pricing_choice(transcript: Transcript, key: str | None, table: PriceTable | None = None) -> PricingLookup:
    """The pricing for a replay of ``transcript``.

    Args:
        transcript: Its ``model`` (and ``provider``) pick the pricing when ``key`` is ``None``.
        key: A table key (or alias) asked for explicitly.
        table: The price table (the bundled one by default).

    Raises:
        PriceTableError: ``key`` was given and the table has no such entry (the error lists the keys).
    """
    table = table or load_price_table()
    if key is not None:
        resolved = resolve_key(table, key)
        if resolved is None:
            raise PriceTableError(key, f"not in the price table (keys: {', '.join(sorted(table.entries))})")
        return PricingLookup(pricing=table.entries[resolved], requested=key)
    return pricing_for(transcript.model, provider=transcript.provider, table=table)


def records_cache_usage(transcript: Transcript) -> bool:
    """Whether any reply recorded how much of its input was read from or written to the cache."""
    return any(
        m.usage.cache_read_tokens is not None or m.usage.cache_write_tokens is not None
        for m in transcript.messages
        if m.role is Role.ASSISTANT and m.usage is not None
    )


@dataclass(frozen=True, slots=True)
class ResultCost:
    """What one replay costs, with its baseline and (when recorded) the check against reality."""

    lookup: PricingLookup
    session: SessionCost
    breaks: tuple[CacheBreak, ...]
    baseline: SessionCost
    """``as-recorded`` with the same breakpoints."""
    recorded: UsageComparison | None
    """The ``as-recorded`` prediction beside the recorded usage, when the transcript records cache use."""
    gap_seconds: float
    gap_source: GapSource
    table_version: str

    @property
    def usd(self) -> float:
        return summary_cost_usd(self.session)

    @property
    def baseline_usd(self) -> float:
        return summary_cost_usd(self.baseline)

    @property
    def difference_usd(self) -> float:
        """This replay minus ``as-recorded`` (negative: a saving)."""
        return self.totals()[2]

    def totals(self) -> tuple[float, float, float]:
        """:attr:`usd`, :attr:`baseline_usd` and :attr:`difference_usd`, each call's price summed once (a
        long session has tens of thousands)."""
        usd, baseline = self.usd, self.baseline_usd
        return usd, baseline, round(usd - baseline, USD_DECIMALS)

    @property
    def ttl_statement(self) -> str:
        """The cache-write lifetime priced, in words (and when the provider does not sell the one asked)."""
        pricing, ttl = self.lookup.pricing, self.session.ttl
        seconds = pricing.ttl_seconds(ttl)
        if pricing.caching != "breakpoints":
            also = " (1-hour writes are Anthropic's)" if ttl == "1h" else ""
            return f"{pricing.key} caches for its own {seconds:,} s{also}"
        lifetime = "1-hour" if seconds == ONE_HOUR_SECONDS else f"{seconds:,}-second"
        if seconds == FIVE_MINUTES_SECONDS:
            lifetime = "5-minute"
        return f"{lifetime} cache writes ({pricing.write_multiplier(ttl):g}× input)"

    @property
    def gap_statement(self) -> str:
        if self.gap_source == "timestamps":
            return "gaps between calls from the transcript's timestamps"
        return gap_statement(None if self.gap_source == "default" else self.gap_seconds)


@dataclass(frozen=True, slots=True)
class Baseline:
    """The transcript as recorded, with one runtime policy's breakpoints, priced: what every replay through
    a runtime of that policy is compared with, whatever its profile or knob values (so a caller pricing
    many replays of one transcript can make it once: :func:`recorded_baseline`)."""

    key: tuple[str, str, float, str, str]
    """What it was made for: the breakpoint policy, the pricing key, the gap, the cache-write lifetime and
    the price table's version (:func:`result_cost` refuses a baseline made for other inputs)."""
    session: SessionCost
    recorded: UsageComparison | None
    """The ``as-recorded`` prediction beside the recorded usage, when the transcript records cache use."""


def recorded_baseline(
    transcript: Transcript,
    runtime: str,
    *,
    pricing: str | None = None,
    assumed_gap_seconds: float | None = None,
    ttl: CacheTtl = "5m",
    table: PriceTable | None = None,
    tokens: TranscriptTokens | None = None,
) -> Baseline:
    """The :class:`Baseline` of a replay of ``transcript`` through ``runtime`` (not ``as_recorded``, which
    is its own baseline), for :func:`result_cost`'s ``baseline``; the arguments are :func:`result_cost`'s.

    Raises:
        PriceTableError: ``pricing`` names no entry.
    """
    table = table or load_price_table()
    lookup = pricing_choice(transcript, pricing, table)
    gap = gap_or_default(assumed_gap_seconds)
    with collector_paused():
        return _baseline(
            transcript, runtime, lookup, gap, ttl, table, tokens or TranscriptTokens.of(transcript)
        )


def _baseline(
    transcript: Transcript,
    runtime: str,
    lookup: PricingLookup,
    gap: float,
    ttl: CacheTtl,
    table: PriceTable,
    tokens: TranscriptTokens,
) -> Baseline:
    policy = RUNTIME_POLICY.get(runtime, "automatic")
    requests = as_recorded_requests(transcript, policy=policy, gap_seconds=gap, tokens=tokens)
    session = price_requests(requests, lookup.pricing, ttl)
    recorded = None
    if records_cache_usage(transcript):
        # The prediction uses the breakpoints of the runtime that wrote the transcript.
        predicted = session
        if policy != policy_for_format(transcript.format):
            own = as_recorded_requests(transcript, gap_seconds=gap, tokens=tokens)
            predicted = price_requests(own, lookup.pricing, ttl)
        recorded = compare_with_recorded(transcript, predicted)
    return Baseline(_baseline_key(policy, lookup, gap, ttl, table), session, recorded)


def _baseline_key(
    policy: str, lookup: PricingLookup, gap: float, ttl: CacheTtl, table: PriceTable
) -> tuple[str, str, float, str, str]:
    return (policy, lookup.pricing.key, gap, ttl, table.version)


def result_cost(
    transcript: Transcript,
    result: SimulationResult,
    *,
    changed: ChangedContents | None = None,
    pricing: str | None = None,
    assumed_gap_seconds: float | None = None,
    ttl: CacheTtl = "5m",
    table: PriceTable | None = None,
    tokens: TranscriptTokens | None = None,
    baseline: Baseline | None = None,
) -> ResultCost:
    """Price ``result`` (a replay of ``transcript``) call by call.

    Args:
        transcript: The transcript the replay ran on.
        result: The replay.
        changed: What each rule left per call (the profile's ``changed_contents``), so a trimmed
            message is priced at its size as sent.
        pricing: A price table key; ``None`` picks it from the transcript (see :func:`pricing_choice`).
        assumed_gap_seconds: Seconds between calls when the transcript has no timestamps.
        ttl: Cache-write lifetime.
        table: The price table (with any dashboard edits); the bundled one by default.
        tokens: Per-message o200k counts of ``transcript`` when already computed.
        baseline: :func:`recorded_baseline` of the same transcript, runtime and prices, when already made
            (the same for every profile of the runtime); made here when ``None``.

    Raises:
        PriceTableError: ``pricing`` names no entry.
        ValueError: ``baseline`` was made for another policy, pricing, gap, lifetime or price table.
    """
    # The requests, their shared histories and the trie are many small objects that all live until the
    # session is priced: collections meanwhile would only walk them (as the replays, the pause).
    with collector_paused():
        return _result_cost(
            transcript, result, changed, pricing, assumed_gap_seconds, ttl, table, tokens, baseline
        )


def _result_cost(
    transcript: Transcript,
    result: SimulationResult,
    changed: ChangedContents | None,
    pricing: str | None,
    assumed_gap_seconds: float | None,
    ttl: CacheTtl,
    table: PriceTable | None,
    tokens: TranscriptTokens | None,
    baseline: Baseline | None,
) -> ResultCost:
    table = table or load_price_table()
    lookup = pricing_choice(transcript, pricing, table)
    gap = gap_or_default(assumed_gap_seconds)
    source: GapSource = (
        "timestamps"
        if has_timestamps(transcript)
        else ("default" if assumed_gap_seconds is None else "assumed")
    )
    tokens = tokens or TranscriptTokens.of(transcript)
    if result.runtime == AS_RECORDED_RUNTIME:  # its own baseline
        requests = as_recorded_requests(transcript, gap_seconds=gap, tokens=tokens)
        session = price_requests(requests, lookup.pricing, ttl)
        recorded = compare_with_recorded(transcript, session) if records_cache_usage(transcript) else None
        base = Baseline(("", "", gap, ttl, ""), session, recorded)
    else:
        requests = requests_from_result(transcript, result, changed=changed, gap_seconds=gap, tokens=tokens)
        session = price_requests(requests, lookup.pricing, ttl)
        policy = RUNTIME_POLICY.get(result.runtime, "automatic")
        if baseline is None:
            base = _baseline(transcript, result.runtime, lookup, gap, ttl, table, tokens)
        elif baseline.key != _baseline_key(policy, lookup, gap, ttl, table):
            raise ValueError(
                f"a baseline made for {baseline.key}, not {_baseline_key(policy, lookup, gap, ttl, table)}"
            )
        else:
            base = baseline
    return ResultCost(
        lookup=lookup,
        session=session,
        breaks=cache_breaks(requests, session),
        baseline=base.session,
        recorded=base.recorded,
        gap_seconds=gap,
        gap_source=source,
        table_version=table.version,
    )


def _relative(value: float | None) -> JSON:
    return None if value is None else round(value, 6)


def recorded_json(comparison: UsageComparison) -> dict[str, JSON]:
    fields = {
        "input_tokens": comparison.input,
        "cache_write_tokens": comparison.cache_write,
        "cache_read_tokens": comparison.cache_read,
        "output_tokens": comparison.output,
    }
    return {
        "recorded_calls": comparison.recorded_calls,
        "error": {
            name: {
                "predicted": f.predicted,
                "recorded": f.recorded,
                "calls": f.calls,
                "relative": _relative(f.relative),
            }
            for name, f in fields.items()
        },
        "calls": [
            {
                "number": c.number,
                "message_index": c.message_index,
                "predicted": cost_json(c.predicted),
                "recorded": None
                if c.recorded is None
                else {
                    "input_tokens": c.recorded.input_tokens,
                    "cache_write_tokens": c.recorded.cache_write_tokens,
                    "cache_read_tokens": c.recorded.cache_read_tokens,
                    "output_tokens": c.recorded.output_tokens,
                },
            }
            for c in comparison.calls
        ],
    }


def cost_model_json(cost: ResultCost) -> dict[str, JSON]:
    """What the cost model assumed and found, beyond the per-call ``cost`` and the ``pricing`` objects."""
    out: dict[str, JSON] = {
        "price_table_version": cost.table_version,
        "pricing_warning": cost.lookup.warning,
        "cache_ttl": cost.session.ttl,
        "cache_ttl_statement": cost.ttl_statement,
        "gap_seconds": cost.gap_seconds,
        "gap_source": cost.gap_source,
        "gap": cost.gap_statement,
        "as_recorded_usd": cost.baseline_usd,
        "difference_usd": cost.difference_usd,
        "cache_breaks": [
            {
                "call": b.number,
                "cause": b.cause,
                "rewritten_tokens": b.rewritten_tokens,
                "extra_usd": round(b.extra_usd, USD_DECIMALS),
                "first_changed": b.first_changed,
                "sentence": b.sentence(),
            }
            for b in cost.breaks
        ],
    }
    if cost.recorded is not None:
        out["recorded_usage"] = recorded_json(cost.recorded)
    return out


def with_cost(report: Mapping[str, JSON], cost: ResultCost) -> dict[str, JSON]:
    """A ``result_to_json`` report plus ``cost`` per call, ``pricing``, ``summary.cost_usd``, ``cost_model``.

    Raises:
        ValueError: the report's calls are not the priced calls (a programming error).
    """
    calls = report.get("calls")
    summary = report.get("summary")
    if not isinstance(calls, list) or not isinstance(summary, dict) or len(calls) != len(cost.session.calls):
        raise ValueError("the report does not match the priced result")
    priced: list[JSON] = []
    for call, call_cost in zip(calls, cost.session.calls, strict=True):
        priced.append({**call, "cost": cost_json(call_cost)} if isinstance(call, dict) else call)
    return {
        **report,
        "pricing": pricing_json(cost.lookup.pricing, cost.session.ttl),
        "calls": priced,
        "summary": {**summary, "cost_usd": cost.usd},
        "cost_model": cost_model_json(cost),
    }


__all__ = [
    "AS_RECORDED_RUNTIME",
    "GapSource",
    "ResultCost",
    "cost_model_json",
    "pricing_choice",
    "records_cache_usage",
    "recorded_json",
    "result_cost",
    "with_cost",
]
