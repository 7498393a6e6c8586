"""Replays a transcript through the ai-profile crate's history policy, call by call.

The crate keeps no state: before each request the app trims its full history to
``history_budget(limits, max_tokens)`` (no trimming while the window is unknown). The replay then
simulates the provider: when the estimate of what is sent plus ``max_tokens`` exceeds the provider's
window, the request fails with a context-overflow error and the documented caller loop runs - up to
``max_attempts`` rounds of ``trim_history(current, retry_budget(current))``, stopping when a round
drops nothing (the call then fails). A transcript's error turn is a call that failed: when its text is a
context overflow (``is_context_overflow``, read as the body of a 400 since a transcript keeps no status),
the caller loop retries at half the estimate, and the transcript's next call with the same history is
that retry (at most ``max_attempts`` of them); any other error ("fetch failed") starts nothing. The
failed reply is not appended to the history. The provider window is the profile's ``provider_window`` or, when
unset, the merged limits' context window; with neither there is nothing to overflow.

The simulated provider counts with the crate's own estimator (bytes / 2 + 8 per message), which
overestimates real tokenizers; real tokenizer counts are shown beside it. The up-front trim is
answered by :class:`PrefixTrimmer` (fast) or :class:`ReferenceTrimmer` (the crate's function on every
prefix); both give the same records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import accumulate
from typing import Protocol

from simulator.replay.ai_profile_fast import PrefixTrim, PrefixTrimmer, ReferenceTrimmer
from simulator.replay.ai_profile_natives_fast import NativeColumns, natives_with_tokens, reference_columns
from simulator.replay.common import fmt, ranges
from simulator.replay.loop import ModelCall, run_calls
from simulator.replay.model import (
    CallRecord,
    Fate,
    FateGroup,
    Overflow,
    RetryStep,
    SimulationResult,
    call_record,
    slot_builder,
)
from simulator.runtimes.ai_profile import (
    AiProfileSettings,
    Message,
    is_context_overflow,
    retry_budget,
    trim_history,
)
from simulator.specs.ai_profile.budget import explain_budget
from simulator.transcript import Transcript

U32_MAX = 2**32 - 1
STATUS_OF_TRANSCRIPT_ERRORS = 400
"""The status an error turn's text is classified under: one ``is_context_overflow`` reads the body of."""
ESTIMATOR = "ai-profile (compact JSON bytes + role) / 2 + 8"


class HistoryTrimmer(Protocol):
    """``trim_history(messages[:end], budget)`` for any ``end`` of the replay's native messages."""

    def trim(self, end: int, budget: int | None) -> PrefixTrim: ...


@dataclass(frozen=True, slots=True)
class _Session:
    """What does not change between calls."""

    transcript: Transcript
    natives: tuple[Message, ...]
    tokens: tuple[int, ...]
    prefix: tuple[int, ...]
    budget: int | None
    max_tokens: int
    max_attempts: int
    window: int | None
    trimmer: HistoryTrimmer
    budget_text: str
    """``budget`` as the drop rules write it (the same at every call)."""
    reinserted: dict[int, tuple[FateGroup, ...]] = field(default_factory=dict)
    """The re-added first user message's fate, by its index: the same rule at every call that re-adds it."""


@dataclass(frozen=True, slots=True)
class _Sent:
    """What a call sends after the up-front trim and any overflow rounds."""

    spans: tuple[tuple[int, int], ...]
    tokens: int
    trimmed: bool
    drop_rule: str
    retries: tuple[RetryStep, ...] = ()
    overflow: Overflow = "none"


@dataclass(frozen=True, slots=True, eq=False)
class AiProfileNatives:
    """A transcript as every ai-profile replay reads it, whatever the settings: made once, kept by callers."""

    natives: tuple[Message, ...]
    origins: tuple[tuple[int, ...], ...]
    tokens: tuple[int, ...]
    """The crate's estimate of each native message."""
    prefix: tuple[int, ...]
    """Running sums of ``tokens``, saturating at 2**32 - 1 as the crate's sum does."""
    trimmer: PrefixTrimmer
    calls: tuple[ModelCall, ...]


def prepare_ai_profile(transcript: Transcript) -> AiProfileNatives:
    """Convert ``transcript`` to ai-profile's messages and size each one once."""
    return _prepared(natives_with_tokens(transcript))


def prepare_ai_profile_reference(transcript: Transcript) -> AiProfileNatives:
    """:func:`prepare_ai_profile` through the reference functions alone (``to_ai_profile``, then
    ``Message.from_json`` and ``json_message_tokens`` of each converted message, then ``model_calls``)."""
    return _prepared(reference_columns(transcript))


def _prepared(columns: NativeColumns) -> AiProfileNatives:
    natives, tokens = columns.natives, columns.tokens
    prefix = tuple(accumulate(tokens, initial=0))
    if prefix[-1] > U32_MAX:  # the crate's sum saturates; running sums only grow, so only then
        prefix = tuple(accumulate(tokens, lambda total, t: min(total + t, U32_MAX), initial=0))
    trimmer = PrefixTrimmer(natives, tokens, columns.tool_use, columns.tool_result)
    return AiProfileNatives(natives, columns.origins, tokens, prefix, trimmer, columns.calls)


def replay_ai_profile(
    transcript: Transcript,
    settings: AiProfileSettings,
    *,
    profile_name: str,
    provider_window: int | None = None,
    reference: bool = False,
    prepared: AiProfileNatives | None = None,
) -> SimulationResult:
    """Replay ``transcript`` through ai-profile with ``settings``.

    Args:
        transcript: The imported session.
        settings: A validated ai-profile profile.
        profile_name: Shown in the result.
        provider_window: The provider's real window for overflow simulation (default: the known window).
        reference: Trim with the crate's own function at every call instead of the prefix trimmer.
        prepared: :func:`prepare_ai_profile` of this transcript, when the caller kept it.

    Returns:
        One record per model call.
    """
    facts = prepared if prepared is not None else prepare_ai_profile(transcript)
    natives, origins, tokens = facts.natives, facts.origins, facts.tokens
    explanation = explain_budget(settings)
    session = _Session(
        transcript,
        natives,
        tokens,
        facts.prefix,
        explanation.value,
        settings.effective_max_tokens(),
        settings.max_attempts,
        provider_window if provider_window is not None else settings.limits().context_window,
        ReferenceTrimmer(natives, tokens) if reference else facts.trimmer,
        fmt(explanation.value or 0),
    )
    first: _Retry | None = None
    calls, _ = run_calls(facts.calls, partial(step, session), first)
    return SimulationResult(
        runtime="ai_profile",
        version="0.1.7",
        profile_name=profile_name,
        budget=explanation,
        window=session.window,
        calls=calls,
        origins=origins,
        native_tokens=tokens,
        dropped_at=(0,) * len(natives),
        drop_rules=("",) * len(natives),
        content_changes=(),
        estimator=ESTIMATOR,
    )


@dataclass(frozen=True, slots=True)
class _Retry:
    """A context-overflow error the caller answers with a retry at half the estimate."""

    available: int
    """The failed request's history: the retry is the next call over the same history."""
    origin: tuple[int, ...]
    """What the failed request sent."""
    attempt: int
    """1-based number of the retry."""


def step(session: _Session, state: _Retry | None, call: ModelCall) -> tuple[CallRecord, _Retry | None]:
    """One model call: the up-front trim, then the simulated provider.

    The crate keeps no state; the caller's overflow loop does (``_Retry``) across an error turn.
    """
    full = session.prefix[call.available]
    cut = session.trimmer.trim(call.available, session.budget)
    sent: _Sent | None = None
    retries: tuple[RetryStep, ...]
    overflow: Overflow
    if state is not None and state.available == call.available:
        sent = _retry(session, state)
    elif session.window is not None and cut.estimate_after + session.max_tokens > session.window:
        sent = _overflow_rounds(session, _up_front(session, cut, full), session.window)
    if sent is None:  # what the up-front trim sends (``_up_front``, most calls: written out)
        spans, tokens, trimmed, retries, overflow = cut.spans, cut.estimate_after, cut.dropped > 0, (), "none"
        drop_rule = _up_front_rule(session, cut, full) if cut.dropped or cut.used_fallback else ""
    else:
        spans, tokens, trimmed, drop_rule = sent.spans, sent.tokens, sent.trimmed, sent.drop_rule
        retries, overflow = sent.retries, sent.overflow
    retry, notes = (None, ()) if call.error is None else _after_error(session, call, spans, state)
    usage = session.transcript.messages[call.message_index].usage
    if overflow == "failed":
        notes = (f"the provider rejected the request after {len(retries)} retries", *notes)
    record = call_record(
        call.number,
        call.message_index,
        call.available,
        spans,  # sent
        None,  # breadcrumb_at
        () if cut.reinserted_first_user is None else _reinserted(session, cut),  # fated
        session.budget,
        full,  # tokens_full
        tokens,  # tokens_sent
        trimmed,
        drop_rule,
        (),  # events
        retries,
        overflow,
        usage.prompt_tokens if usage is not None else None,  # provider_input_tokens
        notes,
        (),  # marks
        0,  # tokens_outside
        None,  # error (the loop records a failed call's)
    )
    return record, retry


def _after_error(
    session: _Session, call: ModelCall, spans: tuple[tuple[int, int], ...], state: _Retry | None
) -> tuple[_Retry | None, tuple[str, ...]]:
    """What the caller does after ``call``: nothing after a reply; after an error, retry or give up."""
    if call.error is None:
        return None, ()
    if not is_context_overflow(STATUS_OF_TRANSCRIPT_ERRORS, call.error):
        return None, (f"the provider failed the call ({call.error}): not a context overflow, so no retry",)
    attempt = state.attempt + 1 if state is not None and state.available == call.available else 1
    if attempt > session.max_attempts:
        return None, (f"context overflow again after {session.max_attempts} retries: the caller gives up",)
    origin = tuple(i for start, end in spans for i in range(start, end))
    note = f"context overflow ({call.error}): retry {attempt} of {session.max_attempts} at half the estimate"
    return _Retry(call.available, origin, attempt), (note,)


def _retry(session: _Session, state: _Retry) -> _Sent:
    """The caller's retry after a context-overflow error: ``trim_history(sent, retry_budget(sent))``."""
    current = tuple(session.natives[i] for i in state.origin)
    budget = retry_budget(current)
    result = trim_history(current, budget, tokens=[session.tokens[i] for i in state.origin])
    origin = tuple(state.origin[k] for k in result.kept_indices)
    spans, _ = ranges(origin)
    rule = (
        f"retry {state.attempt} after a context-overflow error: trimmed to half the estimate "
        f"({fmt(result.estimate_before)} est. → budget {fmt(budget)})"
    )
    step_ = RetryStep(
        state.attempt, budget, result.estimate_before, result.estimate_after, result.dropped, True
    )
    return _Sent(
        spans,
        result.estimate_after,
        result.dropped > 0,
        rule if result.dropped else "",
        (step_,),
        "recovered",
    )


_sent = slot_builder(_Sent)
"""``_Sent(...)`` positionally, every field: one per model call (see :func:`slot_builder`)."""


def _up_front(session: _Session, cut: PrefixTrim, full: int) -> _Sent:
    if not (cut.dropped or cut.used_fallback):
        return _sent(cut.spans, cut.estimate_after, False, "", (), "none")
    return _sent(
        cut.spans, cut.estimate_after, cut.dropped > 0, _up_front_rule(session, cut, full), (), "none"
    )


def _up_front_rule(session: _Session, cut: PrefixTrim, full: int) -> str:
    """Why the up-front trim dropped messages (or kept only the newest plain one)."""
    rule = f"history budget {session.budget_text} < {full:,} est.: oldest messages dropped"  # ``fmt``
    if cut.used_fallback:
        rule += " (nothing fit: only the newest plain message kept)"
    return rule


def _reinserted(session: _Session, cut: PrefixTrim) -> tuple[FateGroup, ...]:
    first, budget = cut.reinserted_first_user, session.budget
    if first is None or budget is None:
        return ()
    fated = session.reinserted.get(first)
    if fated is None:
        rule = (
            f"first user message ({fmt(session.tokens[first])} est.) ≤ half the budget ({fmt(budget // 2)})"
        )
        fated = session.reinserted[first] = (FateGroup(Fate.REINSERTED, rule, (first,)),)
    return fated


def _overflow_rounds(session: _Session, sent: _Sent, window: int) -> _Sent:
    """The caller's retry loop after a context-overflow error: trim to half the estimate, resend."""
    origin: Sequence[int] = tuple(i for start, end in sent.spans for i in range(start, end))
    current = tuple(session.natives[i] for i in origin)
    retries: list[RetryStep] = []
    tokens, trimmed, drop_rule, recovered = sent.tokens, sent.trimmed, sent.drop_rule, False
    for attempt in range(1, session.max_attempts + 1):
        round_budget = retry_budget(current)
        result = trim_history(current, round_budget, tokens=[session.tokens[i] for i in origin])
        if result.dropped == 0:
            retries.append(
                RetryStep(attempt, round_budget, result.estimate_before, result.estimate_after, 0, False)
            )
            break
        drop_rule = (
            f"provider overflow: {fmt(sent.tokens)} est. + max_tokens {fmt(session.max_tokens)} > window "
            f"{fmt(window)}; {attempt} retr{'y' if attempt == 1 else 'ies'} at half the estimate"
        )
        current, origin = result.messages, tuple(origin[k] for k in result.kept_indices)
        fits = result.estimate_after + session.max_tokens <= window
        retries.append(
            RetryStep(
                attempt, round_budget, result.estimate_before, result.estimate_after, result.dropped, fits
            )
        )
        trimmed, tokens = True, result.estimate_after
        if fits:
            recovered = True
            break
    spans, _ = ranges(origin)
    return _Sent(spans, tokens, trimmed, drop_rule, tuple(retries), "recovered" if recovered else "failed")
