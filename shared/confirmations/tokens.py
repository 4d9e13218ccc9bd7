"""The card's token and the payload's hash.

The token is derived, not stored: HMAC-SHA256 of the deployment's confirmation secret over the confirmation's number
and a random salt, so the server can show the same card again (send_ without a click) while the database keeps only
the token's SHA-256. The payload hash is the SHA-256 of the payload's canonical JSON: the card shows it, the click
sends it back, and a payload changed since then no longer matches."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import secrets
from typing import Any

from sqlalchemy.orm import Session

from shared.secrets import ensure_secret, load_secret

SECRET_NAME = "confirmations"


def payload_hash(payload: dict[str, Any]) -> str:
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def new_salt() -> str:
    return secrets.token_hex(16)


def derive_token(session: Session, ref: str, salt: str, matching: str | None = None) -> str:
    """The action's token under the current secret; with `matching` (its stored hash), under whichever accepted value
    of a rotated secret it was made with (shared.secrets), so a rotation leaves pending confirmations usable."""
    values = [ensure_secret(session, SECRET_NAME)]
    if matching is not None:
        values = load_secret(session, SECRET_NAME, dt.datetime.now(dt.UTC)).accepted(dt.datetime.now(dt.UTC))
    tokens = [_derive(value, ref, salt) for value in values]
    return next((token for token in tokens if matching is not None and token_matches(token, matching)), tokens[0])


def _derive(secret: str, ref: str, salt: str) -> str:
    digest = hmac.new(secret.encode(), f"confirmation:{ref}:{salt}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(token_hash(token), stored_hash)
