"""The daphne patches are in place once Django is set up, and applying them again changes nothing.

What they do on the wire (1009/1011/1013 close codes, 1007 on a non-UTF-8 frame, 413 before the body is
read) is tested through a real daphne in test_security_fleet.py, test_ingest_hardening.py and
test_hostile_input.py.
"""

from __future__ import annotations

from daphne.http_protocol import WebRequest
from daphne.ws_protocol import WebSocketProtocol

from dashboard import daphne_patches


def test_the_app_config_applied_every_patch_at_startup():
    assert WebSocketProtocol.serverClose.__name__ == "server_close"
    assert WebSocketProtocol._invalid_payload.__name__ == "invalid_payload_closes"
    assert WebRequest.process.__name__ == "process_unless_refused"
    assert WebRequest.gotLength.__name__ == "checked_length"
    assert WebRequest.handleContentChunk.__name__ == "counted_chunk"


def test_applying_the_patches_again_does_not_wrap_them_twice():
    before = (WebSocketProtocol.serverClose, WebSocketProtocol._invalid_payload, WebRequest.process)
    daphne_patches.apply()
    assert (WebSocketProtocol.serverClose, WebSocketProtocol._invalid_payload, WebRequest.process) == before
