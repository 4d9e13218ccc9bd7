"""Who this deployment is: its version (from the package metadata, with the commit it was built from) and the
User-Agent of every outbound request."""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
import subprocess
from pathlib import Path

SOURCE_VERSION = "0.0.0+source"  # a source checkout without installed metadata
COMMIT_ENV = "ATHAUS_COMMIT"  # set in the image from the build argument (Dockerfile): the image has no .git
_COMMIT = re.compile(r"[0-9a-f]{7,40}")
_public_url = ""


def package_version() -> str:
    try:
        return importlib.metadata.version("athaus-mcp")
    except importlib.metadata.PackageNotFoundError:
        return SOURCE_VERSION


@functools.cache
def commit() -> str | None:
    """The commit this runs from, 12 hex digits: ATHAUS_COMMIT, else git where the code is a checkout; None: unknown."""
    given = os.environ.get(COMMIT_ENV, "").strip().lower()
    if given:
        return given[:12] if _COMMIT.fullmatch(given) else None
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    found = done.stdout.strip()
    return found if done.returncode == 0 and _COMMIT.fullmatch(found) else None


def version() -> str:
    """`0.2.0+g<commit>` (a PEP 440 local version), or the package's version alone when the commit is unknown."""
    base, built = package_version(), commit()
    if built is None:
        return base
    return f"{base}.g{built}" if "+" in base else f"{base}+g{built}"


def announce(public_url: str) -> None:
    """The public URL outbound requests name (set once when the app is built)."""
    global _public_url
    _public_url = public_url.rstrip("/")


def user_agent() -> str:
    """`athaus-mcp/<version> (+<public URL>)`: what every outbound request (feed, metadata, JWKS) says it is."""
    base = f"athaus-mcp/{version()}"
    return f"{base} (+{_public_url})" if _public_url else base
