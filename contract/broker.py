"""Athaus für Makler (/makler/mcp): its tools, resource templates and prompts."""

from __future__ import annotations

from contract import broker_inquiries, broker_office
from contract.rights import ServerName
from contract.tool import declare_tools

TITLE = "Athaus für Makler"
SUMMARY = "Lagebericht, Bestand, Anfragen, Antworten, Bewertungen, Vorschläge."
INSTRUCTIONS = (
    "Athaus für Makler zeigt einem Maklerbüro seinen Bestand, seine Anfragen, Bewertungen und Vorschläge, und nur die "
    "eigenen. Jede Liste und jede Zahl sagt in completeness, ob sie vollständig ist. Was hinausgeht, führt erst der "
    "Klick eines Menschen aus."
)

BROKER_TOOLS = declare_tools(ServerName.broker, [*broker_office.TOOLS, *broker_inquiries.TOOLS])
