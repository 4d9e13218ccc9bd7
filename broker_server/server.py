"""Athaus für Makler as served: its contract declaration with handlers, resource readers, prompts and completers."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from broker_server import checks, connector, estimate, imports, inquiries, outbound, proposals, report, stock, valuations, writes
from contract import broker as contract
from contract.broker_inquiries import GetInquiryInput
from contract.broker_stock import GetStockListingInput
from contract.confirmations import CARD_URI
from shared.confirmations.card import card_html
from shared.db.models import Inquiry, Listing
from shared.runtime.context import ToolContext
from shared.runtime.definition import ServerDefinition, bind


def read_stock_listing(variables: Mapping[str, str], ctx: ToolContext) -> BaseModel:
    return stock.get_listing(GetStockListingInput(listing_id=variables["listing_id"]), ctx)


def read_office_inquiry(variables: Mapping[str, str], ctx: ToolContext) -> BaseModel:
    return inquiries.get_inquiry(GetInquiryInput(inquiry_id=variables["inquiry_id"]), ctx, tool="office_inquiry")


def complete_stock_listing_ids(prefix: str, ctx: ToolContext, limit: int) -> list[str]:
    with ctx.db.read_only() as session:
        query = ctx.office().listings().with_only_columns(Listing.ref).where(Listing.ref.startswith(prefix.strip().upper()))
        return list(session.scalars(query.order_by(Listing.ref).limit(limit)))


def complete_office_inquiry_ids(prefix: str, ctx: ToolContext, limit: int) -> list[str]:
    with ctx.db.read_only() as session:
        query = ctx.office().inquiries().with_only_columns(Inquiry.ref).where(Inquiry.ref.startswith(prefix.strip().upper()))
        return list(session.scalars(query.order_by(Inquiry.ref).limit(limit)))


def start_the_day(arguments: Mapping[str, str], ctx: ToolContext) -> str:
    return "\n".join(
        [
            "Guten Morgen. Zeig mir, wie es um mein Büro steht:",
            "1. Rufe show_situation_report auf und fasse zusammen: unbeantwortete Anfragen (die älteste zuerst, mit Alter), "
            "wartende Bestätigungen, Objekte, die nicht veröffentlicht werden können, ablaufende Energieausweise, offene Vorschläge.",
            "   Der Abschnitt zu den Objekten, die nicht veröffentlicht werden können (unpublishable), enthält Entwürfe mit "
            "Mängeln und auch veröffentlichte oder reservierte Objekte, die eine Pflichtregel inzwischen nicht mehr erfüllen "
            "(etwa einen abgelaufenen Energieausweis); diese stehen zuerst, weil sie schon online sind. Nenne sie getrennt "
            "(published_or_reserved, drafts) mit den Gründen; alle davon findet search_listings mit publishable = false "
            "und statuses = [draft, published, reserved].",
            "2. Schlag mir drei Dinge vor, die ich heute zuerst erledigen sollte, und nenne jeweils das Werkzeug dafür.",
            "3. Ist ein Abschnitt unvollständig (complete = false oder shown < total), sag es, statt die Zahl als vollständig auszugeben.",
        ]
    )


def answer_open_inquiries(arguments: Mapping[str, str], ctx: ToolContext) -> str:
    days = (arguments.get("older_than_days") or "0").strip() or "0"
    return "\n".join(
        [
            f"Geh mit mir die Anfragen durch, die seit mindestens {days} Tagen auf eine Antwort des Büros warten.",
            f"1. Rufe search_inquiries mit unanswered_for_days = {days} und sort = oldest auf; blättere mit next_cursor, "
            "bis completeness.complete true ist.",
            "2. Öffne jede Anfrage mit get_inquiry, fasse die Frage in einem Satz zusammen und schlage eine kurze, "
            "freundliche Antwort vor, die nur Angaben aus dem Objekt (get_listing) verwendet.",
            "3. Es geht nichts hinaus, bevor ich es bestätigt habe.",
        ]
    )


DEFINITION = ServerDefinition(
    spec=contract.SERVER,
    handlers=bind(
        connector.HANDLERS,
        report.HANDLERS,
        stock.HANDLERS,
        checks.HANDLERS,
        estimate.HANDLERS,
        inquiries.HANDLERS,
        valuations.HANDLERS,
        proposals.HANDLERS,
        outbound.HANDLERS,
        writes.HANDLERS,
        imports.HANDLERS,
    ),
    readers={
        contract.STOCK_LISTING_RESOURCE.name: read_stock_listing,
        contract.OFFICE_INQUIRY_RESOURCE.name: read_office_inquiry,
    },
    prompts={
        contract.START_DAY_PROMPT.name: start_the_day,
        contract.ANSWER_INQUIRIES_PROMPT.name: answer_open_inquiries,
    },
    completers={
        f"{contract.STOCK_LISTING_RESOURCE.name}.listing_id": complete_stock_listing_ids,
        f"{contract.OFFICE_INQUIRY_RESOURCE.name}.inquiry_id": complete_office_inquiry_ids,
    },
    app_html={CARD_URI: card_html},
)
