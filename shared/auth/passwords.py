"""Password hashing with scrypt (memory-hard, in the standard library); the parameters travel with the hash.

Each hash takes ~32 MiB and ~50 ms. How many run at once is bounded for the whole process (`HASH_CONCURRENCY`):
parallel sign-in attempts wait for a slot instead of each allocating their own 32 MiB, so a burst of them costs time,
not memory. `hashing` runs a function that hashes in a worker thread under an event-loop limiter of the same size, so
waiting attempts hold no thread of the shared pool (the health check and every tool call keep theirs).

`new_password_problem` checks a new password as NIST SP 800-63B asks: at least 12 characters, at most 128 (all
characters count, spaces and emoji too), not a common or breached password (a list shipped with the code), not the
e-mail address or name; no composition rules.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import hmac
import secrets
import threading
import unicodedata
import weakref
from collections.abc import Callable
from importlib.resources import files
from typing import TypeVar

import anyio
import anyio.to_thread

N, R, P = 2**15, 8, 1  # ~32 MiB per hash: slow for an attacker, ~50 ms for a login
HASH_CONCURRENCY = 2
MIN_LENGTH, MAX_LENGTH = 12, 128
T = TypeVar("T")

_slots = threading.BoundedSemaphore(HASH_CONCURRENCY)
_limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, anyio.CapacityLimiter] = weakref.WeakKeyDictionary()


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    with _slots:
        return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024, dklen=32)


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, N, R, P)
    return f"scrypt${N}${R}${P}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    candidate = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p))
    return hmac.compare_digest(candidate, base64.b64decode(digest))


async def hashing(work: Callable[..., T], *args: object) -> T:
    """Runs `work` (which hashes) in a worker thread, at most HASH_CONCURRENCY at once per event loop."""
    loop = asyncio.get_running_loop()
    limiter = _limiters.get(loop)
    if limiter is None:
        limiter = _limiters[loop] = anyio.CapacityLimiter(HASH_CONCURRENCY)
    return await anyio.to_thread.run_sync(work, *args, limiter=limiter)


@functools.lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    text = files("shared.auth").joinpath("common_passwords.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def new_password_problem(password: str, *, email: str = "", name: str = "") -> str | None:
    """Why a new password is refused (one German sentence with what to do), or None if it is fine."""
    length = len(unicodedata.normalize("NFC", password))
    if length < MIN_LENGTH:
        return f"Das Passwort ist zu kurz: bitte mindestens {MIN_LENGTH} Zeichen (ein Satz aus mehreren Wörtern ist leicht zu merken)."
    if length > MAX_LENGTH:
        return f"Das Passwort ist zu lang: bitte höchstens {MAX_LENGTH} Zeichen."
    folded = password.casefold()
    local = email.strip().casefold().partition("@")[0]
    if folded in common_passwords() or len(set(folded)) <= 2:
        return "Dieses Passwort ist zu verbreitet (es steht in Listen bekannter oder geleakter Passwörter). Bitte ein anderes wählen."
    if (local and len(local) >= 4 and local in folded and len(folded) - len(local) < 6) or folded == email.strip().casefold():
        return "Das Passwort ähnelt zu sehr der E-Mail-Adresse. Bitte ein anderes wählen."
    if name.strip() and folded.replace(" ", "") == name.strip().casefold().replace(" ", ""):
        return "Das Passwort ist dein Name. Bitte ein anderes wählen."
    return None
