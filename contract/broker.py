"""Athaus für Makler (/makler/mcp): its tools, resource templates and prompts."""

from __future__ import annotations

from contract import (
    broker_estimate,
    broker_import,
    broker_inquiries,
    broker_outbound,
    broker_report,
    broker_stock,
    broker_writes,
    connectors,
)
from contract.envelope import HOW_TO_READ
from contract.confirmations import CARD
from contract.primitives import PromptArgumentSpec, PromptSpec, ResourceTemplateSpec
from contract.rights import BROKER_READ, ServerName
from contract.server import declare_server

TITLE = "Athaus für Makler"
SUMMARY = "Lagebericht, Bestand, Anfragen, Antworten, Bewertungen, Vorschläge."
INSTRUCTIONS = (
    "Athaus für Makler zeigt einem Maklerbüro seinen Bestand, seine Anfragen, Bewertungen und Vorschläge, und nur die "
    "eigenen. Was hinausgeht, führt erst der Klick eines Menschen aus. " + HOW_TO_READ
)

START_DAY_PROMPT = PromptSpec(
    name="start_the_day",
    title="Tag beginnen",
    description="Der Überblick am Morgen: Lagebericht, was heute zuerst dran ist, und was liegen geblieben ist.",
    arguments=(),
)

ANSWER_INQUIRIES_PROMPT = PromptSpec(
    name="answer_open_inquiries",
    title="Offene Anfragen beantworten",
    description="Geht die unbeantworteten Anfragen des Büros durch, die älteste zuerst, und bereitet Antworten vor.",
    arguments=(PromptArgumentSpec("older_than_days", "Nur Anfragen, die seit mindestens so vielen Tagen warten (Standard 0).", False),),
)

STOCK_LISTING_RESOURCE = ResourceTemplateSpec(
    name="stock_listing",
    uri_template="athaus://makler/objekte/{listing_id}",
    title="Objekt des Büros",
    description="Ein Objekt aus dem Bestand des eigenen Büros (dieselben Daten wie get_listing), als Text und JSON.",
    mime_type="text/markdown",
    right=BROKER_READ,
)

OFFICE_INQUIRY_RESOURCE = ResourceTemplateSpec(
    name="office_inquiry",
    uri_template="athaus://makler/anfragen/{inquiry_id}",
    title="Anfrage an das Büro",
    description="Eine Anfrage an das eigene Büro mit Verlauf und Entwürfen (dieselben Daten wie get_inquiry), als Text und JSON.",
    mime_type="text/markdown",
    right=BROKER_READ,
)


SERVER = declare_server(
    ServerName.broker,
    title=TITLE,
    summary=SUMMARY,
    instructions=INSTRUCTIONS,
    tools=[
        *broker_report.TOOLS,
        *broker_stock.TOOLS,
        *broker_writes.TOOLS,
        *broker_import.TOOLS,
        *broker_estimate.TOOLS,
        *broker_inquiries.TOOLS,
        *broker_outbound.TOOLS,
        *connectors.BROKER_TOOLS,
    ],
    resources=(STOCK_LISTING_RESOURCE, OFFICE_INQUIRY_RESOURCE),
    prompts=(START_DAY_PROMPT, ANSWER_INQUIRIES_PROMPT),
    apps=(CARD,),
    docs_page="makler.md",
)
