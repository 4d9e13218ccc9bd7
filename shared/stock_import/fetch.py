"""Fetching an office's OpenImmo feed URL: bounded in time and size, spooled to disk beyond a megabyte.

Every failure is a German sentence with the next step; none names the host or the URL (the office configured it,
the model does not need it, and a response never carries a host)."""

from __future__ import annotations

import tempfile
from typing import IO

import httpx

from contract.errors import ErrorCode, ToolFailure

SPOOL_IN_MEMORY = 1024 * 1024
NEXT_STEP = "bitte die Feed-Adresse des Büros prüfen oder die Übertragung als xml übergeben."


def too_large(max_bytes: int) -> ToolFailure:
    return ToolFailure(
        ErrorCode.INVALID_ARGUMENT,
        f"Die Übertragung ist größer als die erlaubten {max_bytes // (1024 * 1024)} MB; nichts wurde geändert. Bitte in "
        'Teilübertragungen (umfang="TEIL") aufteilen.',
    )


def fetch_feed(url: str, *, max_bytes: int, timeout: float) -> IO[bytes]:
    """The body of the feed URL in a temporary file (rewound), or ToolFailure (SOURCE_UNAVAILABLE, INVALID_ARGUMENT)."""
    if not url.startswith(("https://", "http://")):
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "Die eingestellte Feed-Adresse ist keine http(s)-Adresse: " + NEXT_STEP)
    spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)
    try:
        with httpx.Client(timeout=timeout, follow_redirects=True, max_redirects=3) as client:
            with client.stream("GET", url, headers={"Accept": "application/xml, text/xml"}) as response:
                if response.status_code != 200:
                    raise ToolFailure(
                        ErrorCode.SOURCE_UNAVAILABLE,
                        f"Die Feed-Adresse des Büros antwortet mit HTTP {response.status_code} statt mit der Übertragung; "
                        "nichts wurde geändert: " + NEXT_STEP,
                    )
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > max_bytes:
                    raise too_large(max_bytes)
                read = 0
                for chunk in response.iter_bytes():
                    read += len(chunk)
                    if read > max_bytes:
                        raise too_large(max_bytes)
                    spool.write(chunk)
    except ToolFailure:
        spool.close()
        raise
    except httpx.TimeoutException:
        spool.close()
        raise ToolFailure(
            ErrorCode.SOURCE_UNAVAILABLE,
            f"Die Feed-Adresse des Büros hat nicht innerhalb von {timeout:g} Sekunden geantwortet; nichts wurde geändert: "
            "bitte später erneut versuchen oder die Übertragung als xml übergeben.",
        ) from None
    except httpx.HTTPError:
        spool.close()
        raise ToolFailure(
            ErrorCode.SOURCE_UNAVAILABLE, "Die Feed-Adresse des Büros ist nicht erreichbar; nichts wurde geändert: " + NEXT_STEP
        ) from None
    spool.seek(0)
    return spool
