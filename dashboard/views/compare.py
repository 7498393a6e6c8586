"""The compare screen: one transcript through two or three profiles (any mix of runtimes), call by call."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from dashboard import forms, selectors
from dashboard.models import Profile, Transcript
from dashboard.views.common import HtmxHttpRequest
from dashboard.views.costs import compare_cost_context, cost_inline, cost_params
from dashboard.views.profiles import KNOB_PREFIX, knob_values

MAX_PROFILES = 3
ROWS_PER_PAGE = 100
COST_INLINE_MESSAGES = 5_000
"""Up to this many messages the o200k counts and costs are drawn with the page; for a longer session the
costs are asked for after it (and o200k per call is on each call's simulation page)."""


def _ids(request: HtmxHttpRequest) -> list[int]:
    raw = ",".join(request.GET.getlist("profiles"))
    ids: list[int] = []
    for part in raw.split(","):
        if part.strip().isdigit() and int(part) not in ids:
            ids.append(int(part))
    return ids[:MAX_PROFILES]


@require_GET
def compare(request: HtmxHttpRequest) -> HttpResponse:
    transcript_id = request.GET.get("transcript", "")
    transcript = (
        selectors.transcript_get(transcript_id=int(transcript_id)) if transcript_id.isdigit() else None
    )
    chosen: list[Profile] = [
        p for i in _ids(request) if (p := selectors.profile_get(profile_id=i)) is not None
    ]
    context: dict[str, object] = {
        "nav": "compare",
        "transcripts": selectors.transcript_list(),
        "profiles": selectors.profile_list(),
        "transcript": transcript,
        "chosen": chosen,
        "chosen_ids": [p.pk for p in chosen],
        "slots": [chosen[i].pk if i < len(chosen) else None for i in range(MAX_PROFILES)],
    }
    # Knob edits carried from the simulation screen ("Compare with…") apply to the first profile.
    carried = knob_values(request.GET)
    knob_pairs = [(f"{KNOB_PREFIX}{k}", v) for k, v in carried.items()]
    context["knob_pairs"] = knob_pairs
    costs = cost_params(request)
    # Links within the page keep the knob edits and the cost choices.
    context["carry"] = urlencode([*knob_pairs, *costs.query()])
    if transcript is not None and len(chosen) >= 2:
        domains = [forms.simulation_profile(profile=p) for p in chosen]
        if carried:
            edits = forms.simulation_knob_edits(profile=chosen[0], knob_values=carried)
            domains[0] = edits.profile
            context["edits"] = edits
        long_first_view = not request.htmx and transcript.message_count > COST_INLINE_MESSAGES
        pending = [
            p
            for p in (domains if long_first_view else ())
            if not selectors.simulation_result_kept(
                transcript=transcript, profile=p, assumed_gap_seconds=costs.gap
            )
        ]
        if pending:
            # The first replays of a long session take seconds: draw the pickers and a progress line at
            # once, and ask for the comparison (same URL) from there.
            estimates = _first_replay_estimates(transcript, [p.runtime for p in pending], costs.gap)
            context["compare_pending"] = {
                "url": request.get_full_path(),
                "seconds": sum(e.seconds for e in estimates),
                "measured": all(e.measured for e in estimates),
            }
            return render(request, "dashboard/compare.html", context)
        results, comparison = selectors.comparison(
            transcript=transcript, profiles=domains, assumed_gap_seconds=costs.gap
        )
        # One tokenizer for every runtime (o200k), beside each runtime's own estimator; a long session's
        # counts and costs (a walk over every call of every profile) are asked for after the page.
        long = not cost_inline(transcript, results, messages=COST_INLINE_MESSAGES)
        checks = [
            None
            if long
            else selectors.simulation_estimates(
                transcript=transcript, profile=p, assumed_gap_seconds=costs.gap
            )
            for p in domains
        ]
        rows = Paginator(comparison.rows, ROWS_PER_PAGE)
        first = comparison.first_difference
        default_page = 1 if first is None else (first - 1) // ROWS_PER_PAGE + 1
        page = rows.get_page(request.GET.get("page") or default_page)
        table = [
            {
                "row": row,
                "cells": [
                    {
                        "tokens": tokens,
                        "trimmed": trimmed,
                        "sent": sent,
                        "full": r.calls[row.number - 1].tokens_full,
                        "pct": round(100 * tokens / max(r.calls[row.number - 1].tokens_full, 1)),
                        "profile": p,
                        "o200k": None if check is None else check.calls[row.number - 1].o200k,
                    }
                    for tokens, trimmed, sent, r, p, check in zip(
                        row.tokens_sent, row.trimmed, row.sent_counts, results, chosen, checks, strict=True
                    )
                ],
            }
            for row in page
        ]
        if transcript.message_count > selectors.cost_max_messages():
            context["money_refused"] = selectors.SessionTooLongToPrice(
                transcript.message_count, selectors.cost_max_messages()
            ).message
        elif long:
            context["cost_later_url"] = f"{reverse('compare-cost')}?{request.GET.urlencode()}"
        else:
            context.update(
                compare_cost_context(
                    request=request, transcript=transcript, profiles=domains, table=table, params=costs
                )
            )
        focus_raw = request.GET.get("call", "")
        focus = (
            int(focus_raw) if focus_raw.isdigit() and 1 <= int(focus_raw) <= len(comparison.rows) else first
        )
        diff = (
            selectors.comparison_message_diff(transcript=transcript, results=results, number=focus)
            if focus is not None
            else ()
        )
        context.update(
            {
                "focus": focus,
                "diff": diff,
                "comparison": comparison,
                "results": list(zip(results, chosen, comparison.summaries, strict=True)),
                "o200k_totals": [
                    None if check is None else sum(c.o200k or 0 for c in check.calls) for check in checks
                ],
                "page": page,
                "table": table,
                "profiles_param": ",".join(str(p.pk) for p in chosen),
            }
        )
    template = "dashboard/compare.html"
    if request.htmx and request.htmx.target == "compare-body":
        template += "#compare-body"
    return render(request, template, context)


@require_GET
def compare_cost(request: HtmxHttpRequest) -> HttpResponse:
    """The cost section of a long session's comparison, loaded after the page."""
    transcript_id = request.GET.get("transcript", "")
    transcript = (
        selectors.transcript_get(transcript_id=int(transcript_id)) if transcript_id.isdigit() else None
    )
    chosen = [p for i in _ids(request) if (p := selectors.profile_get(profile_id=i)) is not None]
    if transcript is None or len(chosen) < 2:
        return HttpResponse("")
    domains = [forms.simulation_profile(profile=p) for p in chosen]
    carried = knob_values(request.GET)
    if carried:
        domains[0] = forms.simulation_knob_edits(profile=chosen[0], knob_values=carried).profile
    context = compare_cost_context(
        request=request, transcript=transcript, profiles=domains, table=[], params=cost_params(request)
    )
    # The re-price form of the part loaded after the page carries what the page carries.
    context.update(
        {
            "transcript": transcript,
            "profiles_param": ",".join(str(p.pk) for p in chosen),
            "knob_pairs": [(f"{KNOB_PREFIX}{k}", v) for k, v in carried.items()],
        }
    )
    return render(request, "dashboard/_compare-cost.html", context)


def _first_replay_estimates(
    transcript: Transcript, runtimes: list[str], gap: float | None
) -> list[selectors.ReplayEstimate]:
    """Each pending replay's estimate: a runtime is prepared once (the first of its replays), and not at
    all when its preparation is kept."""
    kept = selectors.prepared_runtimes(transcript=transcript, assumed_gap_seconds=gap)
    out = []
    for runtime in runtimes:
        estimates = selectors.replay_estimates(messages=transcript.message_count, prepared=kept)
        out.append(next(e for e in estimates if e.runtime == runtime))
        kept |= {runtime}
    return out
