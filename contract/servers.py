"""Both servers, in the order the docs and overviews show them."""

from __future__ import annotations

from contract import broker, search
from contract.rights import ServerName
from contract.server import ServerSpec

SERVERS: dict[ServerName, ServerSpec] = {ServerName.broker: broker.SERVER, ServerName.search: search.SERVER}
