"""Opaque, signed cursors bound to the query, the order and the catalog snapshot.

A cursor that is expired, altered, issued for other arguments or for an older catalog state is
refused with CURSOR_EXPIRED; a walk is never silently restarted (seed 002).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
from collections.abc import Sequence
from typing import Any

from contract.errors import ErrorCode, ToolFailure


EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MICROSECOND = dt.timedelta(microseconds=1)


def instant(value: dt.datetime) -> int:
    """A point in time as a cursor carries it: whole microseconds since 1970 (exact, and shorter than ISO text)."""
    return (value - EPOCH) // MICROSECOND


def from_instant(value: int) -> dt.datetime:
    return EPOCH + value * MICROSECOND


def binding_hash(payload: dict[str, Any]) -> str:
    """What a cursor is bound to, as a short hash of `payload` (canonical JSON, keys sorted)."""
    canonical = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:20]  # 80 bits: the cursor is signed, this only tells requests apart


RESTART = "Bitte die Suche ohne cursor neu beginnen; die bisher gelesenen Seiten gehören zu einem anderen Stand."


class CursorCodec:
    def __init__(self, secret: bytes, ttl: dt.timedelta, previous: Sequence[tuple[bytes, dt.datetime]] = ()) -> None:
        self._secret = secret
        self.ttl = ttl
        self._previous = list(previous)  # a rotated key's former values, each accepted until it retires

    def _sign(self, body: bytes, secret: bytes | None = None) -> str:
        return base64.urlsafe_b64encode(hmac.digest(secret or self._secret, body, hashlib.sha256)[:12]).decode().rstrip("=")  # HMAC-96

    def _verified(self, body: bytes, signature: str, now: dt.datetime) -> bool:
        if hmac.compare_digest(signature, self._sign(body)):
            return True
        return any(retires > now and hmac.compare_digest(signature, self._sign(body, key)) for key, retires in self._previous)

    def encode(self, *, binding: str, snapshot: int, position: list[Any], now: dt.datetime) -> str:
        payload = {"b": binding, "s": snapshot, "p": position, "e": int((now + self.ttl).timestamp())}
        body = json.dumps(payload, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(body).decode().rstrip("=") + "." + self._sign(body)

    def decode(self, token: str, *, binding: str, snapshot: int, now: dt.datetime) -> list[Any]:
        """The position stored in the cursor, or CURSOR_EXPIRED naming why it cannot continue."""
        try:
            encoded, signature = token.split(".", 1)
            body = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
            valid = self._verified(body, signature, now)
            payload = json.loads(body) if valid else None
        except (ValueError, UnicodeDecodeError):
            payload = None
        if not isinstance(payload, dict):
            raise ToolFailure(ErrorCode.CURSOR_EXPIRED, f"Der cursor ist nicht von diesem Server oder beschädigt. {RESTART}")
        if payload.get("b") != binding:
            raise ToolFailure(
                ErrorCode.CURSOR_EXPIRED,
                f"Der cursor gehört zu anderen Suchargumenten oder einer anderen Sortierung. {RESTART}",
            )
        if payload.get("e", 0) < now.timestamp():
            raise ToolFailure(ErrorCode.CURSOR_EXPIRED, f"Der cursor ist abgelaufen. {RESTART}")
        if payload.get("s") != snapshot:
            raise ToolFailure(ErrorCode.CURSOR_EXPIRED, f"Der Katalog hat sich seit der ersten Seite geändert. {RESTART}")
        return list(payload["p"])
