"""The runtimes screen: every registered runtime, a register form that shows the token once, revoke.

Runtimes belong to the installation, not to one operator, so every signed-in operator sees them all.
The token exists only in the response to the register request (never stored, never cached).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from dashboard import selectors, services
from dashboard.errors import get_or_404
from dashboard.views.common import HtmxHttpRequest

TEMPLATE = "dashboard/runtime-list.html"
KINDS = ("zeroclaw", "openclaw", "other")


def _context(**extra: object) -> dict[str, object]:
    return {"nav": "runtimes", "runtimes": selectors.runtime_list(), "kinds": KINDS, **extra}


@require_GET
def runtime_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, TEMPLATE, _context())


@never_cache
@require_POST
def runtime_create(request: HtmxHttpRequest) -> HttpResponse:
    name, kind = request.POST.get("name", ""), request.POST.get("kind", "zeroclaw")
    try:
        runtime, token = services.runtime_create(name=name, kind=kind)
    except services.RuntimeInvalid as exc:
        return render(request, TEMPLATE, _context(error=exc.message, name=name, kind=kind), status=422)
    # Rendered, not redirected: the token must not be put anywhere it would outlive this response.
    return render(request, TEMPLATE, _context(created=runtime, token=token))


@require_POST
def runtime_revoke(request: HtmxHttpRequest, runtime_id: int) -> HttpResponse:
    runtime = get_or_404(selectors.runtime_get(runtime_id=runtime_id), "runtime", runtime_id)
    services.runtime_revoke(runtime=runtime)
    messages.success(request, f"Revoked “{runtime.name}”: its token no longer sends events.")
    return HttpResponseRedirect(reverse("runtime-list"))
