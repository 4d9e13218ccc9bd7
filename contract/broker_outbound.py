"""Athaus für Makler: replies and proposal decisions that go out. draft_reply needs `makler:schreiben`; send_reply,
decide_proposal and the card's click need `makler:senden`. Nothing goes out without a person's click, unless the
office owner has allowed that kind without a click (then the result says so)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

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
from contract.fields import InquiryId, lenient, normalise_ref, request_id_field
from contract.labels import Label
from contract.rights import BROKER_READ, BROKER_SEND, BROKER_WRITE
from contract.tool import Effect, ToolSpec
from contract.vocabulary import ProposalDecision

PROPOSAL_ID_PATTERN = r"^P-\d{6,12}$"


class DraftReplyInput(ContractModel):
    inquiry_id: Annotated[InquiryId, Label("Anfrage")]
    text: Annotated[str, Label("Text")] = Field(min_length=1, max_length=4000, description="Die Antwort, wie sie hinausgeht.")
    confirmation_id: Annotated[ConfirmationId | None, Label("Bestätigung")] = Field(
        default=None, description="Einen wartenden Entwurf ändern statt einen neuen anzulegen."
    )
    request_id: Annotated[str, Label("Anfrageschlüssel")] = request_id_field(required=True)

    _normalise = field_validator("inquiry_id", "confirmation_id", mode="before")(normalise_ref)
    _not_blank = field_validator("text")(not_blank)


class DecideProposalInput(ContractModel):
    proposal_id: Annotated[str, Label("Vorschlag")] = Field(pattern=PROPOSAL_ID_PATTERN, description="Nummer des Vorschlags, z. B. P-000007.")
    decision: Annotated[lenient(ProposalDecision), Label("Entscheidung")] = Field(description="accept (annehmen) oder reject (ablehnen).")  # type: ignore[valid-type]
    message: Annotated[str | None, Label("Nachricht")] = Field(
        default=None, max_length=2000, description="Bei accept: ein Satz an die/den Suchende/n zum Exposé."
    )

    _normalise = field_validator("proposal_id", mode="before")(normalise_ref)


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="draft_reply",
        title="Antwort vorbereiten",
        description="Bereitet eine Antwort auf eine Anfrage an dein Büro vor (oder ändert einen Entwurf)." + TOOL_CARD_NOTE,
        input_model=DraftReplyInput,
        output_model=OutboundResult,
        effect=Effect.draft,
        right=BROKER_WRITE,
        extra_meta=CARD_TOOL_META,
    ),
    ToolSpec(
        name="send_reply",
        title="Antwort senden",
        description=(
            "Sendet einen Antwort-Entwurf nach dem Klick: ohne Klick kommt die Karte erneut (Status pending), außer "
            "dein Büro hat Antworten ohne Klick freigegeben." + TOOL_CARD_NOTE
        ),
        input_model=SendInput,
        output_model=OutboundResult,
        effect=Effect.outbound,
        right=BROKER_SEND,
        extra_meta=CARD_TOOL_META,
    ),
    ToolSpec(
        name="decide_proposal",
        title="Vorschlag entscheiden",
        description=(
            "Nimmt einen offenen Vorschlag an (accept: das Exposé geht nach dem Klick an die/den Suchende/n) oder "
            "lehnt ihn ab (reject: gilt sofort, ohne Klick)." + TOOL_CARD_NOTE
        ),
        input_model=DecideProposalInput,
        output_model=OutboundResult,
        effect=Effect.outbound,
        right=BROKER_SEND,
        extra_meta=CARD_TOOL_META,
    ),
    decide_confirmation_tool(BROKER_SEND),
    get_confirmation_tool(BROKER_READ),
]
