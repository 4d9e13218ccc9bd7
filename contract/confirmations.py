"""What goes out, and the click that lets it go (SPEC section 7): the confirmation block every draft_/send_/decide_
result carries, the click tool only the card can see, and the card itself as a `ui://` resource.

The card is one resource, `ui://athaus/bestaetigung.html`. `resources/read` answers with the same HTML twice: as an MCP
App (`text/html;profile=mcp-app`, `_meta.ui` with CSP and domain) and in the form of the ChatGPT Apps SDK
(`text/html+skybridge`, `_meta["openai/widgetCSP"]`, `openai/widgetDomain`); each host takes the content of its MIME
type. Tools that show the card name it in `_meta.ui.resourceUri` (MCP Apps) and `_meta["openai/outputTemplate"]`
(Apps SDK). The card's single-use token travels only in the result's `_meta["athaus/confirmation"]`, never in the text
or in structuredContent: the model never sees it, only the card does.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, field_validator

from contract.envelope import ContractModel
from contract.fields import lenient, normalise_ref
from contract.labels import Label
from contract.rights import Right
from contract.tool import Effect, ToolSpec
from contract.vocabulary import ConfirmationStatus, Decision, PendingActionKind

CARD_URI = "ui://athaus/bestaetigung.html"
MCP_APP_MIME = "text/html;profile=mcp-app"
SKYBRIDGE_MIME = "text/html+skybridge"
CONFIRMATION_META_KEY = "athaus/confirmation"  # in a result's _meta: {"token", "payload_hash", "confirmation_id"}
APP_PATH = "/app/"  # the web app's page of pending confirmations
CONFIRMATION_ID_PATTERN = r"^C-\d{6,}$"
PAYLOAD_HASH_PATTERN = r"^[0-9a-f]{64}$"

ConfirmationId = Annotated[str, Field(pattern=CONFIRMATION_ID_PATTERN, description="Nummer der Bestätigung, z. B. C-000007.")]

# _meta of every tool whose result shows the card (both hosts' forms).
CARD_TOOL_META: dict[str, Any] = {
    "ui": {"resourceUri": CARD_URI},
    "openai/outputTemplate": CARD_URI,
    "openai/widgetAccessible": True,
    "openai/toolInvocation/invoking": "Bereite vor …",
    "openai/toolInvocation/invoked": "Vorbereitet: wartet auf deinen Klick",
}
# _meta of the click tool: callable by the card only, hidden from the model.
CLICK_TOOL_META: dict[str, Any] = {
    "ui": {"resourceUri": CARD_URI, "visibility": ["app"]},
    "openai/visibility": "private",
    "openai/widgetAccessible": True,
}


@dataclass(frozen=True)
class AppResourceSpec:
    """A `ui://` HTML resource shown by the host (MCP Apps and the Apps SDK alike)."""

    uri: str
    name: str
    title: str  # German
    description: str  # German
    prefers_border: bool = True

    def ui_meta(self, domain: str) -> dict[str, Any]:
        """`_meta.ui` of the MCP App content: no external connections or resources, the deployment's domain."""
        return {"csp": {"connectDomains": [], "resourceDomains": []}, "domain": domain, "prefersBorder": self.prefers_border}

    def skybridge_meta(self, domain: str) -> dict[str, Any]:
        """`_meta` of the Apps SDK content."""
        return {
            "openai/widgetDescription": self.description,
            "openai/widgetPrefersBorder": self.prefers_border,
            "openai/widgetCSP": {"connect_domains": [], "resource_domains": []},
            "openai/widgetDomain": domain,
        }


CARD = AppResourceSpec(
    uri=CARD_URI,
    name="bestaetigung",
    title="Bestätigungskarte",
    description="Zeigt, was hinausgeht, an wen und von wem, mit zwei Knöpfen: senden oder verwerfen.",
)


class ConfirmationBlock(ContractModel):
    """What waits for a click (or what became of it)."""

    confirmation_id: Annotated[str, Label("Bestätigung", bare=True)] = Field(description="Nummer der Bestätigung.")
    action: Annotated[PendingActionKind, Label("Art")] = Field(description="send_inquiry, send_reply oder decide_proposal.")
    summary: Annotated[str, Label("Inhalt", bare=True)] = Field(description="Was hinausgeht, an wen, in einem Satz.")
    status: Annotated[ConfirmationStatus, Label("Status")] = Field(
        description="pending (wartet auf den Klick), sent, discarded, expired, sent_without_click (vom Büro ohne Klick freigegeben)."
    )
    expires_at: Annotated[dt.datetime, Label("gültig bis")] = Field(description="Bis dahin kann geklickt werden.")
    where_to_click: Annotated[str, Label("Bestätigen")] = Field(description="Wo der Mensch klickt: Karte im Chat oder Web-App.")


class ProfileLine(ContractModel):
    label: Annotated[str, Label("Angabe", bare=True)]
    value: Annotated[str, Label("Wert", bare=True)]


class OutboundResult(ContractModel):
    """What a draft_/send_/decide_ tool prepared or did: the message as it goes out, and its confirmation."""

    outcome: Annotated[str, Label("Ergebnis", bare=True)] = Field(description="Was geschehen ist und was als Nächstes zu tun ist, deutsch.")
    recipient: Annotated[str, Label("An")] = Field(description="Wer die Nachricht bekommt.")
    sender: Annotated[str, Label("Von")] = Field(description="In wessen Namen sie hinausgeht.")
    subject: Annotated[str, Label("Betreff")]
    text: Annotated[str | None, Label("Text")] = Field(description="Der Text, wie er hinausgeht; null ohne Text.")
    shared_contact: Annotated[list[ProfileLine], Label("Freigegebene Angaben")] = Field(
        description="Nur bei einer Anfrage: was die/der Suchende dem Anbieter mitteilt."
    )
    inquiry_id: Annotated[str | None, Label("Anfrage")] = Field(description="Die Anfrage, in deren Verlauf die Nachricht steht (nach dem Senden).")
    confirmation: Annotated[ConfirmationBlock | None, Label("Bestätigung")] = Field(
        description="Was auf den Klick wartet; null, wenn nichts wartet (eine Ablehnung gilt sofort)."
    )


class SendInput(ContractModel):
    confirmation_id: Annotated[ConfirmationId, Label("Bestätigung")]

    _normalise = field_validator("confirmation_id", mode="before")(normalise_ref)


class DecideConfirmationInput(ContractModel):
    confirmation_id: Annotated[ConfirmationId, Label("Bestätigung")]
    token: Annotated[str, Label("Token")] = Field(min_length=16, max_length=200, description="Das Token der Karte.")
    decision: Annotated[lenient(Decision), Label("Entscheidung")] = Field(description="send oder discard.")  # type: ignore[valid-type]
    payload_hash: Annotated[str, Label("Prüfsumme")] = Field(pattern=PAYLOAD_HASH_PATTERN, description="Die Prüfsumme, die die Karte gezeigt hat.")

    _normalise = field_validator("confirmation_id", mode="before")(normalise_ref)


def decide_confirmation_tool(right: Right) -> ToolSpec:
    """The click tool of one server, with the right of that server's send tool; only the card calls it."""
    return ToolSpec(
        name="decide_confirmation",
        title="Bestätigung ausführen",
        description=(
            "Nur für die Bestätigungskarte: führt den Klick eines Menschen aus (send) oder verwirft (discard). "
            "Verlangt das Token und die Prüfsumme der Karte."
        ),
        input_model=DecideConfirmationInput,
        output_model=OutboundResult,
        effect=Effect.outbound,
        right=right,
        extra_meta=CLICK_TOOL_META,
    )


TOOL_CARD_NOTE = (
    " Hinaus geht erst der Klick eines Menschen in der Karte im Chat oder in der Web-App; confirmation nennt, was wartet."
)
