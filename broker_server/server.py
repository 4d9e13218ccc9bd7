"""The definition of Athaus für Makler: contract tools bound to their handlers."""

from __future__ import annotations

from contract import broker as contract
from contract.rights import ServerName
from broker_server import inquiries, office
from shared.runtime.adapter import ServerDefinition

DEFINITION = ServerDefinition(
    name=ServerName.broker,
    title=contract.TITLE,
    instructions=contract.INSTRUCTIONS,
    tools=contract.BROKER_TOOLS,
    handlers={**office.HANDLERS, **inquiries.HANDLERS},
)
