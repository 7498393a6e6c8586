"""The API's one error handler: each refusal becomes an ApplicationError with its status, answered as
``{"message", "extra"}``."""

from __future__ import annotations

import pytest
from django.http import Http404
from ninja.errors import HttpError, Throttled

from dashboard import services
from dashboard.api.errors import as_application_error
from dashboard.errors import ApplicationError, get_or_404
from simulator import ProfileError, SimulatorError


def test_an_application_error_keeps_its_own_status_and_extra():
    error = ApplicationError("over the rate", {"retry_after": 3}, status=429)
    assert as_application_error(error) is error
    assert (error.status, error.extra) == (429, {"retry_after": 3})


def test_a_simulator_error_is_422_when_the_input_was_refused_and_400_otherwise():
    refused = as_application_error(ProfileError("agent.max_tokens", "is negative", allowed="0 or more"))
    assert refused.status == 422 and refused.extra["field"] == "agent.max_tokens"
    assert as_application_error(SimulatorError("something else")).status == 400


def test_a_taken_name_is_a_profile_error_for_the_form_and_a_409_for_the_api():
    taken = services.ProfileNameTaken("tight")
    assert isinstance(taken, ProfileError) and taken.field == "name"
    assert as_application_error(taken).status == 409
    assert as_application_error(services.RuntimeNameTaken("name", "'a' is already taken")).status == 409
    assert as_application_error(services.RuntimeInvalid("kind", "too long")).status == 422


def test_framework_errors_keep_their_statuses():
    assert as_application_error(HttpError(413, "too big")).status == 413
    assert as_application_error(Http404("no transcript with id 3")).message == "no transcript with id 3"
    throttled = as_application_error(Throttled(wait=2.4))
    assert (throttled.status, throttled.extra) == (429, {"retry_after": 2})


def test_get_or_404_returns_what_was_found_and_names_what_was_not():
    assert get_or_404("row", "profile", 1) == "row"
    with pytest.raises(Http404, match="no profile with id 7"):
        get_or_404(None, "profile", 7)
