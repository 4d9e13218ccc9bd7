"""Athaus Immobiliensuche: inquiries to a listing's provider (right `suche:anfragen`). The model drafts, the seeker's
click in the card (or the web app) sends."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field, field_validator

from contract.catalog import ListingId
from contract.confirmations import (
    CARD_TOOL_META,
    TOOL_CARD_NOTE,
    ConfirmationId,
    OutboundResult,
    SendInput,
    decide_confirmation_tool,
    get_confirmation_tool,
    not_blank,
)
from contract.envelope import ContractModel
from contract.fields import lenient, normalise_ref, request_id_field
from contract.labels import Label
from contract.rights import SEARCH_CONTACT
from contract.tool import Effect, ToolSpec


class ContactItem(StrEnum):  # what of the account a seeker may share with a provider
    name = "name"
    email = "email"
    phone = "phone"


class DraftInquiryInput(ContractModel):
    listing_id: Annotated[ListingId, Label("Inserat")]
    message: Annotated[str, Label("Nachricht")] = Field(min_length=1, max_length=4000, description="Der Text an den Anbieter, wie er hinausgeht.")
    share: Annotated[list[lenient(ContactItem)], Label("teilen")] = Field(  # type: ignore[valid-type]
        default_factory=lambda: [ContactItem.name, ContactItem.email],
        description="Was aus deinem Konto der Anbieter sieht: name, email, phone. Standard: name und email.",
    )
    about: Annotated[str | None, Label("Über mich")] = Field(
        default=None, max_length=1000, description="Weitere Angaben für den Anbieter (z. B. Haushalt, Einzug)."
    )
    confirmation_id: Annotated[ConfirmationId | None, Label("Bestätigung")] = Field(
        default=None, description="Einen wartenden Entwurf ändern statt einen neuen anzulegen."
    )
    request_id: Annotated[str, Label("Anfrageschlüssel")] = request_id_field(required=True)

    _normalise = field_validator("listing_id", "confirmation_id", mode="before")(normalise_ref)
    _not_blank = field_validator("message")(not_blank)


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="draft_inquiry",
        title="Anfrage vorbereiten",
        description=(
            "Bereitet eine Anfrage an den Anbieter eines veröffentlichten Inserats vor: deine Nachricht und die "
            "Angaben, die du teilst (share). Gibt es schon eine offene Anfrage zu dem Inserat, kommt die Nachricht in "
            "deren Verlauf." + TOOL_CARD_NOTE
        ),
        input_model=DraftInquiryInput,
        output_model=OutboundResult,
        effect=Effect.draft,
        right=SEARCH_CONTACT,
        extra_meta=CARD_TOOL_META,
    ),
    ToolSpec(
        name="send_inquiry",
        title="Anfrage senden",
        description=(
            "Zeigt eine vorbereitete Anfrage zum Senden: ohne Klick kommt die Karte erneut (Status pending), kein "
            "Fehler." + TOOL_CARD_NOTE
        ),
        input_model=SendInput,
        output_model=OutboundResult,
        effect=Effect.outbound,
        right=SEARCH_CONTACT,
        extra_meta=CARD_TOOL_META,
    ),
    decide_confirmation_tool(SEARCH_CONTACT),
    get_confirmation_tool(SEARCH_CONTACT),
]
