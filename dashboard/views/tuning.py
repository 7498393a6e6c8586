"""Tuning in place: the simulation screen's knob edits saved as a new profile."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from dashboard import forms, selectors, services
from dashboard.views.common import HtmxHttpRequest
from dashboard.views.profiles import knob_values
from dashboard.views.simulations import _int
from simulator import ProfileError


@require_POST
def simulation_save(request: HtmxHttpRequest) -> HttpResponse:
    """Store the stored profile plus the valid knob edits under a new name, and open it."""
    transcript_id, profile_id = _int(request.POST.get("transcript")), _int(request.POST.get("profile"))
    profile = selectors.profile_get(profile_id=profile_id) if profile_id else None
    if profile is None:
        return render(
            request, "dashboard/_save-edits.html", {"error": "profile: no such profile"}, status=404
        )
    edits = forms.simulation_knob_edits(profile=profile, knob_values=knob_values(request.POST))
    document = forms.simulation_document(profile=profile, knob_values=edits.applied)
    name = request.POST.get("name", "")
    try:
        saved = services.profile_create(
            name=name, document=document, description=f"{profile.name}, tuned on the simulation screen"
        )
    except ProfileError as exc:
        context = {"error": exc.message, "name": name}
        # htmx does not swap 4xx bodies by default; the partial itself carries the alert.
        return render(request, "dashboard/_save-edits.html", context, status=200 if request.htmx else 422)
    query = {"profile": saved.pk, **({"transcript": transcript_id} if transcript_id else {})}
    url = f"{reverse('simulation')}?{urlencode(query)}"
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return HttpResponseRedirect(url, status=303)
