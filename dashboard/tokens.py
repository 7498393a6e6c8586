"""Secret tokens: generated here, shown once, stored only as a SHA-256 hash."""

from __future__ import annotations

import hashlib
import secrets


def token_generate(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(32)}"


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()
