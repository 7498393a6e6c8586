"""Sign-in and sign-out.

Sign-in is throttled (dashboard.throttle): failed attempts are counted per username and per client
address, and once either limit is used up every attempt is answered 429 with ``Retry-After`` without
checking the password, so guessing gains nothing. A successful sign-in clears its username's count.
Sign-out also closes the live sockets opened with the session (dashboard.sessions).
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse

from dashboard.auth import client_address
from dashboard.sessions import session_ended_publish
from dashboard.throttle import LOGIN_ADDRESS, LOGIN_USERNAME, throttle_clear, throttle_hit, throttle_wait

logger = logging.getLogger(__name__)


def _username_key(raw: str) -> str:
    # Case and surrounding spaces must not give a guesser a fresh count.
    return raw.strip().casefold()[:150]


class SignInView(auth_views.LoginView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = _username_key(request.POST.get("username", ""))
        waits = (
            throttle_wait(LOGIN_USERNAME, username),
            throttle_wait(LOGIN_ADDRESS, client_address(request)),
        )
        wait = max((w for w in waits if w is not None), default=None)
        if wait is not None:
            logger.warning("sign-in throttled for %ss (username %r)", wait, username)
            context = self.get_context_data(form=self.get_form_class()(request), throttled_seconds=wait)
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        throttle_hit(LOGIN_USERNAME, _username_key(self.request.POST.get("username", "")))
        throttle_hit(LOGIN_ADDRESS, client_address(self.request))
        return super().form_invalid(form)

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        throttle_clear(LOGIN_USERNAME, _username_key(self.request.POST.get("username", "")))
        return super().form_valid(form)


class SignOutView(auth_views.LogoutView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        session_key = request.session.session_key
        response = super().post(request, *args, **kwargs)
        if session_key:
            session_ended_publish(session_key=session_key)
        return response
