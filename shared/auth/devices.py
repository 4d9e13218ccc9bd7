"""Known devices: a browser a person signed in from carries a signed cookie naming (a digest of) their address, so
their own login still works while strangers' wrong passwords have their account's counter used up
(shared.auth.access.sign_in counts such a login under its own limit, not the account's).

The cookie cannot be made without a right password on that browser, and is signed per deployment (a rotated secret
keeps old cookies valid for its overlap, shared.secrets)."""

from __future__ import annotations

import hashlib

from starlette.requests import Request
from starlette.responses import Response

from shared.auth.sessions import CookiePolicy
from shared.auth.signing import Signer

DEVICE_COOKIE = "athaus_geraet"  # name before the prefix (CookiePolicy)
DEVICE_SECONDS = 180 * 24 * 3600


def _digest(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


class KnownDevices:
    def __init__(self, secret: str, cookies: CookiePolicy) -> None:
        self.signer = Signer(secret, "login-device")
        self.cookies = cookies

    def knows(self, request: Request, email: str) -> bool:
        """This browser signed in to the account of `email` before."""
        value = self.cookies.read(request, DEVICE_COOKIE)
        payload = self.signer.loads(value) if value else None
        return payload is not None and payload.get("e") == _digest(email)

    def remember(self, response: Response, email: str) -> None:
        self.cookies.set(response, DEVICE_COOKIE, self.signer.dumps({"e": _digest(email)}, DEVICE_SECONDS), DEVICE_SECONDS)
