"""Fetching an office's OpenImmo feed URL through the one public-address-only fetch (shared/outbound.py): https only
outside development, every redirect checked again, bounded in time and size, spooled to disk beyond a megabyte.

Every failure is a German sentence with the next step; none names the host or the URL (the office configured it,
the model does not need it, and a response never carries a host). The log gets type, host and status."""

from __future__ import annotations

import tempfile
from typing import IO

import anyio

from contract.errors import ErrorCode, ToolFailure
from shared.outbound import FetchRefused, fetch_public

SPOOL_IN_MEMORY = 1024 * 1024
FEED_REDIRECTS = 3
NEXT_STEP = "bitte die Feed-Adresse des Büros prüfen oder die Übertragung als xml übergeben."


def too_large(max_bytes: int) -> ToolFailure:
    return ToolFailure(
        ErrorCode.INVALID_ARGUMENT,
        f"Die Übertragung ist größer als die erlaubten {max_bytes // (1024 * 1024)} MB; nichts wurde geändert. Bitte in "
        'Teilübertragungen (umfang="TEIL") aufteilen.',
    )


def fetch_feed(url: str, *, max_bytes: int, timeout: float, allow_http: bool = False) -> IO[bytes]:
    """The body of the feed URL in a temporary file (rewound), or ToolFailure (SOURCE_UNAVAILABLE, INVALID_ARGUMENT).

    Runs in a worker thread (the tool's handler); `allow_http` only in development mode."""
    scheme = url.split(":", 1)[0].lower()
    if scheme not in (("https", "http") if allow_http else ("https",)):
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "Die eingestellte Feed-Adresse ist keine https-Adresse: " + NEXT_STEP)
    spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)

    async def fetch() -> int:
        fetched = await fetch_public(
            url, max_bytes=max_bytes, timeout=timeout, accept="application/xml, text/xml, application/zip", redirects=FEED_REDIRECTS,
            allow_http=allow_http, sink=spool.write, purpose="openimmo_feed",
        )
        if fetched.too_large:
            raise too_large(max_bytes)
        return fetched.status

    try:
        status = anyio.run(fetch)
    except ToolFailure:
        spool.close()
        raise
    except FetchRefused as refused:
        spool.close()
        raise _failure(refused.kind, timeout) from None
    if status != 200:
        spool.close()
        raise ToolFailure(
            ErrorCode.SOURCE_UNAVAILABLE,
            f"Die Feed-Adresse des Büros antwortet mit HTTP {status} statt mit der Übertragung; nichts wurde geändert: "
            + NEXT_STEP,
        )
    spool.seek(0)
    return spool


def _failure(kind: str, timeout: float) -> ToolFailure:
    if kind == "timeout":
        return ToolFailure(
            ErrorCode.SOURCE_UNAVAILABLE,
            f"Die Feed-Adresse des Büros hat nicht innerhalb von {timeout:g} Sekunden geantwortet; nichts wurde geändert: "
            "bitte später erneut versuchen oder die Übertragung als xml übergeben.",
        )
    if kind == "refused":
        return ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            "Die Feed-Adresse des Büros (oder eine Weiterleitung von ihr) zeigt nicht auf eine öffentliche https-Adresse; "
            "nichts wurde geändert: " + NEXT_STEP,
        )
    if kind == "unresolved":
        # a name that does not resolve says nothing about its address: the resolver may be down, or the name mistyped
        return ToolFailure(
            ErrorCode.SOURCE_UNAVAILABLE,
            "Der Name der Feed-Adresse des Büros ließ sich nicht auflösen (DNS); nichts wurde geändert: bitte später "
            "erneut versuchen, die Feed-Adresse des Büros prüfen oder die Übertragung als xml übergeben.",
        )
    if kind == "redirects":
        return ToolFailure(
            ErrorCode.SOURCE_UNAVAILABLE,
            f"Die Feed-Adresse des Büros leitet mehr als {FEED_REDIRECTS}-mal weiter; nichts wurde geändert: " + NEXT_STEP,
        )
    return ToolFailure(
        ErrorCode.SOURCE_UNAVAILABLE, "Die Feed-Adresse des Büros ist nicht erreichbar; nichts wurde geändert: " + NEXT_STEP
    )
