"""Who this software is: one version, read from the installed package's metadata, and the User-Agent every outbound
request carries. Both MCP servers (serverInfo.version), `athaus --version`, `/healthz` and the OpenAPI document say
the same version."""

from __future__ import annotations

import functools
import importlib.metadata

DISTRIBUTION = "athaus-mcp"
# A source checkout that was never installed has no metadata: say so instead of pretending to be a release.
SOURCE_VERSION = "0.0.0+source"


@functools.cache
def version() -> str:
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return SOURCE_VERSION


def user_agent(public_url: str) -> str:
    """`athaus-mcp/<version> (+<public URL>)`: a feed or metadata host can tell who fetches and where to ask."""
    return f"{DISTRIBUTION}/{version()} (+{public_url.rstrip('/')})"
