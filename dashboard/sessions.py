"""Browser sessions and the live sockets opened with them.

A ``/ws/fleet/`` socket belongs to the session that opened it and closes when that session ends:
at once on sign-out (a message to the session's group, through the channel layer), and within
``TRIMSCOPE_SESSION_CHECK_SECONDS`` when the session expires, is deleted, or stops signing its user in
(password changed, account deactivated), which the socket checks with Django's own ``get_user``.
"""

from __future__ import annotations

import hashlib
import logging
from importlib import import_module

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user
from django.http import HttpRequest

logger = logging.getLogger(__name__)

SESSION_ENDED = "fleet.session_ended"
"""Group message type: the session behind these sockets has ended (``FleetConsumer.fleet_session_ended``)."""


def session_group(session_key: str) -> str:
    # Group names are short ASCII; a hash also keeps the session key itself out of the channel layer.
    return "session-" + hashlib.sha256(session_key.encode("utf-8")).hexdigest()[:40]


def session_seconds_left(*, session_key: str, user_id: int) -> float | None:
    """Seconds until the session expires if it still signs ``user_id`` in, else ``None``."""
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    request = HttpRequest()
    request.session = store
    user = get_user(request)  # verifies the password hash and the account, flushing a stale session
    if not user.is_authenticated or user.pk != user_id:
        return None
    return float(store.get_expiry_age())


def session_ended_publish(*, session_key: str) -> None:
    """Tell the session's sockets it has ended. Best effort: without a channel layer they find out by
    their own check, and signing out must never fail because Redis is down."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(session_group(session_key), {"type": SESSION_ENDED})
    except Exception:  # noqa: BLE001  # any layer error: the periodic check still closes the sockets
        logger.warning("could not announce the end of a session to its sockets", exc_info=True)
