"""Replays a transcript through the ai-profile crate's history policy, call by call.

The crate keeps no state: before each request the app trims its full history to
``history_budget(limits, max_tokens)`` (no trimming while the window is unknown). The replay then
simulates the provider: when the estimate of what is sent plus ``max_tokens`` exceeds the provider's
window, the request fails with a context-overflow error and the documented caller loop runs - up to
``max_attempts`` rounds of ``trim_history(current, retry_budget(current))``, stopping when a round
drops nothing (the call then fails). The provider window is the profile's ``provider_window`` or, when
unset, the merged limits' context window; with neither there is nothing to overflow.

The simulated provider counts with the crate's own estimator (bytes / 2 + 8 per message), which
overestimates real tokenizers; real tokenizer counts are shown beside it.
"""

from __future__ import annotations

from simulator.convert import to_ai_profile
from simulator.replay.ai_profile_fast import PrefixTrimmer
from simulator.replay.common import call_starts, fmt, ranges
from simulator.replay.model import CallRecord, Fate, FateGroup, RetryStep, SimulationResult
from simulator.runtimes.ai_profile import (
    AiProfileSettings,
    Message,
    message_tokens,
    retry_budget,
    trim_history,
)
from simulator.specs.ai_profile.budget import explain_budget
from simulator.transcript import Transcript

U32_MAX = 2**32 - 1
ESTIMATOR = "ai-profile (compact JSON bytes + role) / 2 + 8"


def replay_ai_profile(
    transcript: Transcript,
    settings: AiProfileSettings,
    *,
    profile_name: str,
    provider_window: int | None = None,
) -> SimulationResult:
    """Replay ``transcript`` through ai-profile with ``settings``.

    Args:
        transcript: The imported session.
        settings: A validated ai-profile profile.
        profile_name: Shown in the result.
        provider_window: The provider's real window for overflow simulation (default: the known window).

    Returns:
        One record per model call.
    """
    converted = to_ai_profile(transcript.messages)
    natives = tuple(Message.from_json(m) for m in converted.messages)
    origins = tuple(tuple(o) for o in converted.origins)
    tokens = [message_tokens(m) for m in natives]
    prefix = [0]
    for t in tokens:
        prefix.append(min(prefix[-1] + t, U32_MAX))

    explanation = explain_budget(settings)
    budget = explanation.value
    max_tokens = settings.effective_max_tokens()
    window = provider_window if provider_window is not None else settings.limits().context_window

    calls: list[CallRecord] = []
    trimmer = PrefixTrimmer(natives, tokens)
    for number, (available, message_index) in enumerate(call_starts(transcript, origins), start=1):
        full = prefix[available]
        fated: list[FateGroup] = []
        trimmed = False
        drop_rule = ""
        cut = trimmer.trim(available, budget)
        spans, sent_tokens = cut.spans, cut.estimate_after
        if cut.dropped or cut.used_fallback:
            trimmed = cut.dropped > 0
            drop_rule = f"history budget {fmt(budget or 0)} < {fmt(full)} est.: oldest messages dropped"
            if cut.used_fallback:
                drop_rule += " (nothing fit: only the newest plain message kept)"
        if cut.reinserted_first_user is not None and budget is not None:
            f = cut.reinserted_first_user
            fated.append(
                FateGroup(
                    Fate.REINSERTED,
                    f"first user message ({fmt(tokens[f])} est.) ≤ half the budget ({fmt(budget // 2)})",
                    (f,),
                )
            )

        retries: list[RetryStep] = []
        overflow = "none"
        if window is not None and sent_tokens + max_tokens > window:
            overflow = "failed"
            origin = tuple(i for start, end in spans for i in range(start, end))
            current = tuple(natives[i] for i in origin)
            for attempt in range(1, settings.max_attempts + 1):
                round_budget = retry_budget(current)
                result = trim_history(current, round_budget, tokens=[tokens[i] for i in origin])
                if result.dropped == 0:
                    retries.append(
                        RetryStep(
                            attempt, round_budget, result.estimate_before, result.estimate_after, 0, False
                        )
                    )
                    break
                survivors = tuple(origin[k] for k in result.kept_indices)
                drop_rule = (
                    f"provider overflow: {fmt(sent_tokens)} est. + max_tokens {fmt(max_tokens)} > window "
                    f"{fmt(window)}; {attempt} retr{'y' if attempt == 1 else 'ies'} at half the estimate"
                )
                current, origin = result.messages, survivors
                fits = result.estimate_after + max_tokens <= window
                retries.append(
                    RetryStep(
                        attempt,
                        round_budget,
                        result.estimate_before,
                        result.estimate_after,
                        result.dropped,
                        fits,
                    )
                )
                trimmed = True
                sent_tokens = result.estimate_after
                if fits:
                    overflow = "recovered"
                    break
            spans, _ = ranges(origin)

        sent = spans
        usage = transcript.messages[message_index].usage
        calls.append(
            CallRecord(
                number=number,
                message_index=message_index,
                available=available,
                sent=sent,
                breadcrumb_at=None,
                fated=tuple(fated),
                budget=budget,
                tokens_full=full,
                tokens_sent=sent_tokens,
                trimmed=trimmed,
                drop_rule=drop_rule,
                retries=tuple(retries),
                overflow=overflow,  # type: ignore[arg-type]  # one of the three literals above
                provider_input_tokens=usage.prompt_tokens if usage is not None else None,
                notes=(f"the provider rejected the request after {len(retries)} retries",)
                if overflow == "failed"
                else (),
            )
        )
    return SimulationResult(
        runtime="ai_profile",
        version="0.1.7",
        profile_name=profile_name,
        budget=explanation,
        window=window,
        calls=tuple(calls),
        origins=origins,
        native_tokens=tuple(tokens),
        dropped_at=(0,) * len(natives),
        drop_rules=("",) * len(natives),
        content_changes=(),
        estimator=ESTIMATOR,
    )
