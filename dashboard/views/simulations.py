"""The simulation screen: a transcript replayed through a profile, one model call at a time.

All state is in the URL (transcript, profile, call, row page and any knob edits), so every view is
linkable. Knob edits re-run the replay and swap the body in place (htmx, debounced).
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from dashboard import forms, selectors
from dashboard.models import Profile, Transcript
from dashboard.presenters.call_rows import call_rows_html
from dashboard.presenters.timeline_svg import timeline_bars_html
from dashboard.selectors.simulations import SimulationScreen
from dashboard.templatetags.transcript_pages import message_href
from dashboard.views.common import HtmxHttpRequest
from dashboard.views.costs import CostParams, cost_context, cost_inline, cost_params
from dashboard.views.profiles import KNOB_PREFIX, knob_values
from simulator import Profile as DomainProfile
from simulator import timeline_shape, wire_frames

ROWS_PER_PAGE = 200
COST_INLINE_MESSAGES = 5_000
"""Up to this many messages the cost and the re-read count are drawn with the page; for a longer session
(an o200k count and a cache walk over every call, a walk over every tool call) they are asked for once
the timeline and the call are drawn."""


def _int(raw: str | None) -> int | None:
    try:
        return int(raw) if raw else None
    except ValueError:
        return None


def _knob_values(request: HtmxHttpRequest) -> dict[str, str]:
    return knob_values(request.GET)


def _pick(request: HtmxHttpRequest) -> tuple[Transcript | None, Profile | None]:
    transcript_id, profile_id = _int(request.GET.get("transcript")), _int(request.GET.get("profile"))
    transcript = selectors.transcript_get(transcript_id=transcript_id) if transcript_id else None
    profile = selectors.profile_get(profile_id=profile_id) if profile_id else None
    return transcript, profile


@require_GET
def simulation(request: HtmxHttpRequest) -> HttpResponse:
    transcript, profile = _pick(request)
    context: dict[str, object] = {
        "nav": "simulate",
        "transcripts": selectors.transcript_list(),
        "profiles": selectors.profile_list(),
        "transcript": transcript,
        "profile": profile,
    }
    if transcript is None or profile is None:
        return render(request, "dashboard/simulation.html", context)

    knob_values = _knob_values(request)
    edits = forms.simulation_knob_edits(profile=profile, knob_values=knob_values)
    domain, edited, knob_error = edits.profile, edits.edited, edits.error
    document = forms.simulation_document(profile=profile, knob_values=knob_values)
    runtime, knobs = forms.profile_knobs(document=document)
    costs = cost_params(request)
    # A knob change replays the kept preparation; a first replay prepares too unless that is kept.
    resim_estimate = _estimate(transcript, domain.runtime, frozenset({domain.runtime}))
    if (
        not request.htmx
        and transcript.message_count > COST_INLINE_MESSAGES
        and not selectors.simulation_result_kept(
            transcript=transcript, profile=domain, assumed_gap_seconds=costs.gap
        )
    ):
        # A long session's first replay takes seconds: draw the page with the knob bar and a progress
        # line at once, and ask for the body (same URL) from there.
        context.update(
            {
                "knobs": knobs,
                "knob_runtime": runtime,
                "edited": edited,
                "resim_estimate": resim_estimate,
                "first_estimate": _estimate(
                    transcript,
                    domain.runtime,
                    selectors.prepared_runtimes(transcript=transcript, assumed_gap_seconds=costs.gap),
                ),
                "sim_pending_url": request.get_full_path(),
            }
        )
        return render(request, "dashboard/simulation.html", context)
    screen, base = _screen_and_query(request, transcript, profile, domain, knob_values, costs)
    number = screen.call.call.number
    context.update(
        _trace_context(
            request,
            transcript=transcript,
            profile=domain,
            profile_pk=profile.pk,
            base=base,
            call=number,
            gap=costs.gap,
        )
    )
    base += _trace_params(request)
    rows = Paginator(screen.call.rows, ROWS_PER_PAGE)
    page = rows.get_page(request.GET.get("rows") or rows.num_pages)
    calls = screen.result.calls
    context.update(
        {
            "screen": screen,
            "result": screen.result,
            "call": screen.call.call,
            "call_view": screen.call,
            "shape": (shape := timeline_shape(screen.timeline, selected=number)),
            "timeline_bars": timeline_bars_html(
                shape, base_query=urlencode(base), page_url=reverse("simulation")
            ),
            "rows_page": page,
            # The page's rows in Python (the template's loop was most of drawing the body).
            "call_rows": call_rows_html(
                page.object_list, reverse("transcript-detail", args=[transcript.pk]), message_href
            ),
            "knobs": knobs,
            "knob_runtime": runtime,
            "knob_error": knob_error,
            "knob_error_path": edits.error_path,
            "edited": edited,
            "compare_query": urlencode(
                [
                    ("transcript", transcript.pk),
                    ("profiles", profile.pk),
                    *[(f"{KNOB_PREFIX}{k}", v) for k, v in knob_values.items()],
                    *costs.query(),
                ]
            ),
            "save_name": f"{profile.name} (tuned)",
            "resim_estimate": resim_estimate,
            "base_query": urlencode(base),
            "prev_call": number - 1 if number > 1 else None,
            "next_call": number + 1 if number < len(calls) else None,
            "next_trim": screen.timeline.next_trim(number),
            "prev_trim": screen.timeline.previous_trim(number),
            "events_json": [
                json.dumps(e, ensure_ascii=False, indent=1) for e in wire_frames(screen.call.call.events)
            ],
            "has_images": any("image-cleanup" in b.marks for b in screen.timeline.bars),
            "has_inactive": any("pruning-inactive" in b.marks for b in screen.timeline.bars),
            "has_compaction": any("compaction" in b.marks for b in screen.timeline.bars),
            "window_total": screen.call.window or 0,
            "sent_total": sum(s.tokens for s in screen.call.segments),
        }
    )
    if transcript.message_count > selectors.cost_max_messages():
        # Refused without a request after the page: nothing to wait for.
        context["cost_refused"] = selectors.SessionTooLongToPrice(
            transcript.message_count, selectors.cost_max_messages()
        ).message
    elif cost_inline(transcript, (screen.result,), messages=COST_INLINE_MESSAGES):
        context.update(
            cost_context(
                user=request.user,
                transcript=transcript,
                profile=domain,
                record=screen.call.call,
                shape=shape,
                params=costs,
                base_query=urlencode(base),
            )
        )
    template = "dashboard/simulation.html"
    if request.htmx and request.htmx.target == "sim-body":
        template += "#sim-body"
    return render(request, template, context)


def _estimate(transcript: Transcript, runtime: str, prepared: frozenset[str]) -> selectors.ReplayEstimate:
    """How long replaying ``transcript`` through ``runtime`` should take (preparing it unless kept)."""
    estimates = selectors.replay_estimates(messages=transcript.message_count, prepared=prepared)
    return next(e for e in estimates if e.runtime == runtime)


def _screen_and_query(
    request: HtmxHttpRequest,
    transcript: Transcript,
    profile: Profile,
    domain: DomainProfile,
    knob_values: dict[str, str],
    costs: CostParams,
) -> tuple[SimulationScreen, list[tuple[str, str | int]]]:
    """The screen at the requested call, and the query that keeps it (transcript, profile, knobs, costs)."""
    screen = selectors.simulation_screen(
        transcript=transcript,
        profile=domain,
        call=_int(request.GET.get("call")),
        assumed_gap_seconds=costs.gap,
    )
    return screen, _base_query(transcript, profile, knob_values, costs)


def _base_query(
    transcript: Transcript, profile: Profile, knob_values: dict[str, str], costs: CostParams
) -> list[tuple[str, str | int]]:
    """The query that keeps the screen: transcript, profile, knobs, costs."""
    base: list[tuple[str, str | int]] = [("transcript", transcript.pk), ("profile", profile.pk)]
    base += [(f"{KNOB_PREFIX}{k}", v) for k, v in knob_values.items()]
    base += costs.query()
    return base


def _trace_params(request: HtmxHttpRequest) -> list[tuple[str, str | int]]:
    """The trace query, carried in the URL so a traced view is linkable and survives call navigation."""
    find = request.GET.get("find", "")
    if not find:
        return []
    params: list[tuple[str, str | int]] = [("find", find)]
    if request.GET.get("regex"):
        params.append(("regex", "on"))
    return params


def _trace_context(
    request: HtmxHttpRequest,
    *,
    transcript: Transcript,
    profile: DomainProfile,
    profile_pk: int,
    base: list[tuple[str, str | int]],
    call: int,
    gap: float | None,
) -> dict[str, object]:
    find = request.GET.get("find", "")
    screen = (
        selectors.simulation_trace(
            transcript=transcript,
            profile=profile,
            find=find,
            regex=bool(request.GET.get("regex")),
            opened=_int(request.GET.get("open")),
            assumed_gap_seconds=gap,
        )
        if find
        else None
    )
    return {
        "trace_screen": screen,
        "trace_action": reverse("simulation"),
        # Knob values come from the knob bar (hx-include), so no second input carries a knob's name.
        "trace_hidden": [("transcript", transcript.pk), ("profile", profile_pk), ("call", call)],
        "trace_include": "#sim-controls",
        "trace_query": urlencode([*base, ("call", call), *_trace_params(request)]),
        "trace_target": "sim-body",
        "reread_count": (
            len(selectors.simulation_rereads(transcript=transcript, profile=profile, assumed_gap_seconds=gap))
            if transcript.message_count <= COST_INLINE_MESSAGES
            else None
        ),
    }


@require_GET
def simulation_cost(request: HtmxHttpRequest) -> HttpResponse:
    """The cost strip, the selected call's cost and the re-read count of a long session, loaded after
    the page."""
    transcript, profile = _pick(request)
    if transcript is None or profile is None:
        return HttpResponse("")
    knob_values = _knob_values(request)
    domain = forms.simulation_knob_edits(profile=profile, knob_values=knob_values).profile
    costs = cost_params(request)
    # The replay, its timeline and the call's record: not the call's view, which this panel does not show.
    call, gap = _int(request.GET.get("call")), costs.gap
    pick = selectors.simulation_pick(
        transcript=transcript, profile=domain, call=call, assumed_gap_seconds=gap
    )
    query = urlencode(_base_query(transcript, profile, knob_values, costs) + _trace_params(request))
    context: dict[str, object] = {
        "base_query": query,
        "reread_count": len(
            selectors.simulation_rereads(transcript=transcript, profile=domain, assumed_gap_seconds=gap)
        ),
    }
    context.update(
        cost_context(
            user=request.user,
            transcript=transcript,
            profile=domain,
            record=pick.record,
            shape=timeline_shape(pick.timeline, selected=pick.record.number),
            params=costs,
            base_query=query,
        )
    )
    return render(request, "dashboard/simulation.html#cost-later", context)


@require_GET
def simulation_tokens(request: HtmxHttpRequest) -> HttpResponse:
    """The o200k count of one call, loaded after the page (tokenizing is the slow part)."""
    transcript, profile = _pick(request)
    if transcript is None or profile is None:
        return HttpResponse("")
    domain = forms.simulation_knob_edits(profile=profile, knob_values=_knob_values(request)).profile
    sent, full = selectors.simulation_tokenizer_count(
        transcript=transcript,
        profile=domain,
        call=_int(request.GET.get("call")),
        assumed_gap_seconds=cost_params(request).gap,
    )
    return render(request, "dashboard/simulation.html#tokenizer", {"o200k_sent": sent, "o200k_full": full})
