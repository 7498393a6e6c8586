"""Three changes to how daphne (and the autobahn and Twisted code under it) speaks HTTP and WebSocket,
applied once at startup by ``DashboardConfig.ready()``.

- :func:`allow_rfc_close_codes`: an application may close a socket with 1009, 1011 or 1013. daphne hands
  the ASGI close code to autobahn's ``sendClose``, which only lets an application send 1000 or 3000-4999
  and raises otherwise, so the client would see 1011 instead. RFC 6455 defines 1009 and 1011 for any
  endpoint and IANA registers 1013 ("try again later"); runtimes retry on them. For these three codes
  ``sendCloseFrame`` is called directly, which is what ``sendClose`` does after its check.
- :func:`close_invalid_utf8_with_1007`: a text frame that is not UTF-8 fails the connection with 1007 as
  RFC 6455 §8.1 asks. autobahn detects it, but daphne's factory keeps autobahn's ``failByDrop`` default,
  which drops the TCP connection with no close frame; for this one failure the close handshake is done.
- :func:`refuse_oversized_bodies`: an HTTP body over the limit is answered 413 inside Twisted's request,
  before it is read (``dashboard.body_limit`` says why and holds the limit and the answer).

Each is applied at most once (a marker on the patched class) and is a no-op when daphne is not installed
(another ASGI server: ``dashboard.body_limit.BodySizeLimit`` still limits bodies). Only
``dashboard.apps`` imports this module.
"""

from __future__ import annotations

from typing import Any

from dashboard.body_limit import refusal_payload, request_limit

RFC_CLOSE_CODES = frozenset({1009, 1011, 1013})
_MARKER = "_trimscope_patched"


def _patched(cls: type, name: str) -> bool:
    """Whether ``name`` was already applied to ``cls``; marks it applied."""
    done: set[str] = cls.__dict__.get(_MARKER, set())
    if name in done:
        return True
    setattr(cls, _MARKER, done | {name})
    return False


def allow_rfc_close_codes() -> None:
    """Let an application close a socket with 1009, 1011 or 1013 (see the module docstring)."""
    try:
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:  # served by another ASGI server
        return
    if _patched(WebSocketProtocol, "close_codes"):
        return
    original = WebSocketProtocol.serverClose

    def server_close(protocol: Any, code: int | None = None) -> None:
        if code in RFC_CLOSE_CODES:
            protocol.sendCloseFrame(code=code, isReply=False)
        else:
            original(protocol, code)

    WebSocketProtocol.serverClose = server_close


def close_invalid_utf8_with_1007() -> None:
    """Close with 1007 on a text frame that is not UTF-8 instead of dropping the TCP connection."""
    try:
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:
        return
    if _patched(WebSocketProtocol, "invalid_payload"):
        return
    invalid_payload = WebSocketProtocol._invalid_payload

    def invalid_payload_closes(protocol: Any, reason: str) -> bool:
        drop, protocol.failByDrop = protocol.failByDrop, False
        try:
            skip: bool = invalid_payload(protocol, reason)  # sends close 1007 ("invalid frame payload data")
        finally:
            protocol.failByDrop = drop
        return skip

    WebSocketProtocol._invalid_payload = invalid_payload_closes


def refuse_oversized_bodies() -> None:
    """Refuse oversized bodies inside daphne's Twisted request, before they are read."""
    try:
        from daphne.http_protocol import WebRequest
    except ImportError:  # served by another ASGI server: BodySizeLimit does the job
        return
    if _patched(WebRequest, "body_limit"):
        return
    got_length, handle_chunk, process = (
        WebRequest.gotLength,
        WebRequest.handleContentChunk,
        WebRequest.process,
    )

    def refuse(request: Any, size: int | None) -> None:
        request.trimscope_refused = True
        path = getattr(request.channel, "_path", b"").decode("latin-1")  # the request line, parsed
        body, content_type = refusal_payload(path, size)
        head = (
            b"HTTP/1.1 413 Content Too Large\r\nContent-Type: "
            + content_type
            + b"\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\nConnection: close\r\n\r\n"
        )
        request.channel.transport.write(head + body)
        request.channel.loseConnection()

    def checked_length(request: Any, length: int | None) -> None:
        request.trimscope_received, request.trimscope_refused = 0, False
        if length is not None and length > request_limit():
            got_length(request, 0)  # a content buffer that stays empty
            refuse(request, length)
            return
        got_length(request, length)

    def counted_chunk(request: Any, data: bytes) -> None:
        if request.trimscope_refused:
            return
        request.trimscope_received += len(data)
        if request.trimscope_received > request_limit():
            refuse(request, None)
            return
        handle_chunk(request, data)

    def process_unless_refused(request: Any) -> None:
        if not getattr(request, "trimscope_refused", False):
            process(request)

    WebRequest.gotLength = checked_length
    WebRequest.handleContentChunk = counted_chunk
    WebRequest.process = process_unless_refused


def apply() -> None:
    """Apply all three (idempotent)."""
    allow_rfc_close_codes()
    close_invalid_utf8_with_1007()
    refuse_oversized_bodies()
