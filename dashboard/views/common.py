"""Shared typing and helpers for the htmx views."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    # django-stubs typing pattern from django-htmx: the middleware adds `htmx` to every request.
    htmx: HtmxDetails
