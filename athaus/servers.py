"""Both servers as served, by their name (the path segment of /{name}/mcp)."""

from __future__ import annotations

from broker_server.server import DEFINITION as BROKER
from contract.rights import ServerName
from search_server.server import DEFINITION as SEARCH
from shared.runtime.definition import ServerDefinition

DEFINITIONS: dict[ServerName, ServerDefinition] = {ServerName.broker: BROKER, ServerName.search: SEARCH}
