"""The API's one error handler: every refusal is answered as ``{"message", "extra"}`` with its status.

Every exception a handler lets out is turned into an :class:`~dashboard.errors.ApplicationError` here
(:func:`as_application_error`) and answered by :func:`error_response` with that error's status: the
dashboard's own errors carry theirs; simulator errors are 422 when the input was read and refused (a
transcript that cannot be parsed, a profile that is invalid) and 400 otherwise; ninja's validation,
authentication, throttling and ``HttpError`` and Django's ``Http404`` and ``RequestDataTooBig`` keep their
statuses. ``get_or_404`` (from ``dashboard.errors``) is re-exported for the routers. Only
``dashboard.api`` imports this module.
"""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

from dashboard.errors import ApplicationError, get_or_404
from simulator import ProfileError, SimulatorError, TranscriptParseError

# Every exception type the one handler is registered for (ninja picks a handler by the exception's MRO).
__all__ = ["HANDLED", "as_application_error", "error_response", "get_or_404", "install_error_handler"]

HANDLED: tuple[type[Exception], ...] = (
    ApplicationError,
    SimulatorError,
    ValidationError,
    AuthenticationError,
    Throttled,
    HttpError,
    RequestDataTooBig,
    Http404,
)


def _validation_message(exc: ValidationError) -> str:
    fields = [".".join(str(p) for p in e.get("loc", ())) for e in exc.errors]
    return "invalid request: " + ", ".join(f or "body" for f in fields)


def as_application_error(exc: Exception) -> ApplicationError:
    """The application error an exception is answered as (its message, extra and status)."""
    if isinstance(exc, ApplicationError):
        return exc
    if isinstance(exc, SimulatorError):
        status = 422 if isinstance(exc, TranscriptParseError | ProfileError) else 400
        return ApplicationError(exc.message, exc.extra, status=status)
    if isinstance(exc, ValidationError):
        # pydantic's error dicts, as ninja's renderer writes them (the same JSON as before this module)
        extra = {"errors": exc.errors}
        return ApplicationError(_validation_message(exc), extra, status=422)  # type: ignore[arg-type]
    if isinstance(exc, AuthenticationError):
        return ApplicationError(
            "authentication required: session or 'Authorization: Bearer <token>'", status=401
        )
    if isinstance(exc, Throttled):
        wait = max(1, int(exc.wait or 1))
        return ApplicationError(
            f"too many requests: try again in {wait} s", {"retry_after": wait}, status=429
        )
    if isinstance(exc, HttpError):
        return ApplicationError(str(exc), status=exc.status_code)
    if isinstance(exc, RequestDataTooBig):
        # Normally refused earlier, before the body is read (dashboard/body_limit.py); this covers WSGI.
        return ApplicationError(f"request body too large: {exc}", status=413)
    if isinstance(exc, Http404):
        return ApplicationError(str(exc) or "not found", status=404)
    raise TypeError(f"no API error mapping for {type(exc).__name__}")  # only HANDLED types reach here


def error_response(api: NinjaAPI, request: HttpRequest, error: ApplicationError) -> HttpResponse:
    """The one error shape; a 429 also says when to come back in ``Retry-After``."""
    response = api.create_response(
        request, {"message": error.message, "extra": error.extra}, status=error.status
    )
    retry_after = error.extra.get("retry_after")
    if error.status == 429 and isinstance(retry_after, int):
        response["Retry-After"] = str(retry_after)
    return response


def install_error_handler(api: NinjaAPI) -> None:
    """Register the one handler on ``api`` for every exception type in :data:`HANDLED`."""

    def handle(request: HttpRequest, exc: Exception | type[Exception]) -> HttpResponse:
        # ninja's handler type allows an exception class too; it only ever passes the raised instance.
        error = exc if isinstance(exc, Exception) else exc()
        return error_response(api, request, as_application_error(error))

    for exc_type in HANDLED:
        api.add_exception_handler(exc_type, handle)
