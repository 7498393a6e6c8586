"""The simulation page's "estimates against reality" chart, loaded after the page (tokenizing is slow)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboard import forms, selectors
from dashboard.views.common import HtmxHttpRequest
from dashboard.views.simulations import _knob_values, _pick
from simulator import estimate_chart


@require_GET
def simulation_estimates(request: HtmxHttpRequest) -> HttpResponse:
    transcript, profile = _pick(request)
    if transcript is None or profile is None:
        return HttpResponse("")
    domain = forms.simulation_knob_edits(profile=profile, knob_values=_knob_values(request)).profile
    result = selectors.simulation_result(transcript=transcript, profile=domain)
    check = selectors.simulation_estimates(transcript=transcript, profile=domain)
    return render(
        request,
        "dashboard/_estimates.html",
        {"check": check, "chart": estimate_chart(check), "estimator": result.estimator},
    )
