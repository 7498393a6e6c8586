"""A plain HTTP client for tests against a real daphne: cookies, CSRF as a browser does it, raw sockets.

Nothing here skips a check the server makes: the session comes from the real login form, every unsafe
request carries the CSRF token from the cookie, as the pages' htmx does.
"""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message


@dataclass
class Reply:
    status: int
    body: bytes
    headers: Message

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> dict:
        return json.loads(self.body)


class WireClient:
    def __init__(self, base_url: str) -> None:
        self.base = base_url.rstrip("/")
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    def request(
        self, method: str, path: str, *, data: bytes | None = None, headers: dict[str, str] | None = None
    ) -> Reply:
        all_headers = dict(headers or {})
        token = self.cookie("csrftoken")
        if token and method not in ("GET", "HEAD"):
            all_headers.setdefault("X-CSRFToken", token)
        req = urllib.request.Request(self.base + path, data=data, headers=all_headers, method=method)
        try:
            with self.opener.open(req, timeout=120) as response:
                return Reply(response.status, response.read(), response.headers)
        except urllib.error.HTTPError as error:
            return Reply(error.code, error.read(), error.headers)

    def get(self, path: str) -> Reply:
        return self.request("GET", path)

    def post_form(self, path: str, fields: dict[str, str]) -> Reply:
        return self.request(
            "POST",
            path,
            data=urllib.parse.urlencode(fields).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )

    def post_file(self, path: str, fields: dict[str, str], name: str, filename: str, content: bytes) -> Reply:
        boundary = "----trimscope-wire-boundary"
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
            for key, value in fields.items()
        ]
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode()
            + content
            + b"\r\n"
        )
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        return self.request(
            "POST", path, data=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
        )

    def post_json(self, path: str, payload: object, headers: dict[str, str] | None = None) -> Reply:
        return self.request(
            "POST",
            path,
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json", **(headers or {})},
        )

    def sign_in(self, username: str, password: str) -> None:
        page = self.get("/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token, "no CSRF token on the login page"
        reply = self.post_form(
            "/login/", {"username": username, "password": password, "csrfmiddlewaretoken": token.group(1)}
        )
        assert reply.status == 200 and self.cookie("sessionid"), f"sign-in failed: {reply.status}"


def raw_request(base_url: str, head: str, body_chunks: list[bytes] | None = None) -> tuple[int, bytes]:
    """Send a hand-written request head (and body chunks, sent until the server stops reading).

    Returns the status and body of the answer. The server may answer and close before the body is all
    sent: that is the point of refusing an oversized body before reading it.
    """
    parsed = urllib.parse.urlparse(base_url)
    sock = socket.create_connection((parsed.hostname, parsed.port), timeout=60)
    try:
        sock.sendall(head.encode("latin-1"))
        try:
            for chunk in body_chunks or []:
                sock.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the body was read
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.read()
    finally:
        sock.close()
