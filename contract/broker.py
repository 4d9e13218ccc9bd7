"""Athaus für Makler (/makler/mcp): its tools, resource templates and prompts."""

from __future__ import annotations

from contract import broker_inquiries, broker_office
from contract.primitives import PromptArgumentSpec, PromptSpec
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
