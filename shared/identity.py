"""Who this deployment is: its version (from the package metadata) and the User-Agent of every outbound request."""

from __future__ import annotations

import importlib.metadata

SOURCE_VERSION = "0.0.0+source"  # a source checkout without installed metadata
_public_url = ""


def version() -> str:
    try:
        return importlib.metadata.version("athaus-mcp")
    except importlib.metadata.PackageNotFoundError:
        return SOURCE_VERSION


def announce(public_url: str) -> None:
    """The public URL outbound requests name (set once when the app is built)."""
    global _public_url
    _public_url = public_url.rstrip("/")


def user_agent() -> str:
    """`athaus-mcp/<version> (+<public URL>)`: what every outbound request (feed, metadata, JWKS) says it is."""
    base = f"athaus-mcp/{version()}"
    return f"{base} (+{_public_url})" if _public_url else base
