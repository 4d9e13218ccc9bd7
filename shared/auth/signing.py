"""HMAC-signed, expiring values: pending authorization requests, login sessions, CSRF tokens.

They keep the login and consent pages stateless on the server, so any instance can answer any step.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Signer:
    """One key per purpose, derived from the deployment secret, so a value signed for one use fits no other."""

    def __init__(self, secret: str, purpose: str) -> None:
        self._key = hmac.new(secret.encode(), purpose.encode(), hashlib.sha256).digest()
        # a rotated secret (shared.secrets.Secret) brings its previous values: accepted until each retires
        self._previous = [
            (hmac.new(value.encode(), purpose.encode(), hashlib.sha256).digest(), retires.timestamp())
            for value, retires in getattr(secret, "previous", ())
        ]

    def mac(self, value: str, key: bytes | None = None) -> str:
        return _b64(hmac.new(key or self._key, value.encode(), hashlib.sha256).digest())

    def verify(self, body: str, signature: str) -> bool:
        if hmac.compare_digest(signature, self.mac(body)):
            return True
        now = time.time()
        return any(retires > now and hmac.compare_digest(signature, self.mac(body, key)) for key, retires in self._previous)

    def dumps(self, payload: dict[str, Any], ttl_seconds: int) -> str:
        body = _b64(json.dumps({**payload, "exp": int(time.time()) + ttl_seconds}, separators=(",", ":")).encode())
        return f"{body}.{self.mac(body)}"

    def loads(self, token: str) -> dict[str, Any] | None:
        """The payload, or None if the value was altered, is malformed or has expired."""
        body, _, signature = token.partition(".")
        if not self.verify(body, signature):
            return None
        try:
            payload = json.loads(_unb64(body))
        except ValueError:
            return None
        if not isinstance(payload, dict) or not isinstance(payload.get("exp"), int) or payload["exp"] < time.time():
            return None
        return payload
