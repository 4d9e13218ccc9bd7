"""What goes out, and the click that lets it go (SPEC section 7): the confirmation block every draft_/send_/decide_
result carries, the card's own tools (the click, its state) only the card can see, and the card itself as `ui://`
resources.

The card is one HTML page served under two URIs, one content each (a host reads exactly one): `ui://athaus/
bestaetigung.html` as an MCP App (`text/html;profile=mcp-app`, `_meta.ui` with CSP and prefersBorder, no `domain`: its
format belongs to each host, and without it the host gives the card its own sandbox origin), and `ui://athaus/
bestaetigung-chatgpt.html` in the form of the ChatGPT Apps SDK (`text/html+skybridge`, `_meta["openai/widgetCSP"]`,
`openai/widgetDomain`). Tools that show the card name them in `_meta.ui.resourceUri` (MCP Apps) and
`_meta["openai/outputTemplate"]` (Apps SDK). Both servers declare the MCP Apps extension in their capabilities
(`extensions["io.modelcontextprotocol/ui"]`). The card's single-use token travels only in the result's
`_meta["athaus/confirmation"]`, never in the text or in structuredContent: the model never sees it, only the card does.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from pydantic import Field, field_validator

from contract.envelope import ContractModel
from contract.fields import lenient, normalise_ref
from contract.labels import Label
from contract.rights import Right
from contract.tool import Effect, ToolSpec
from contract.vocabulary import ConfirmationStatus, ConfirmedVia, Decision, PendingActionKind

CARD_URI = "ui://athaus/bestaetigung.html"
CARD_CHATGPT_URI = "ui://athaus/bestaetigung-chatgpt.html"
MCP_APP_MIME = "text/html;profile=mcp-app"
SKYBRIDGE_MIME = "text/html+skybridge"
# The MCP Apps extension (SEP-1865, 2026-01-26) as both servers declare it in their capabilities, and as a host that
# renders the card declares it in its client capabilities.
UI_EXTENSION = "io.modelcontextprotocol/ui"
UI_EXTENSION_SETTINGS: dict[str, Any] = {"mimeTypes": [MCP_APP_MIME]}
# Where an app's HTML names the origins it may load from: the runtime writes there, as JSON, exactly the resourceDomains
# of the app's CSP for this deployment (the card has no such place: it loads nothing).
RESOURCE_DOMAINS_SLOT = "/*ATHAUS_RESOURCE_DOMAINS*/"
CONFIRMATION_META_KEY = "athaus/confirmation"  # in a result's _meta: {"token", "payload_hash", "confirmation_id"}
APP_PATH = "/app/"  # the web app's page of pending confirmations
CONFIRM_PAGE_PATH = "/app/bestaetigungen/"  # + the confirmation's number: Athaus's own page of that one draft


def confirm_page_url(public_url: str, confirmation_id: str) -> str:
    """Where a person confirms this draft in the browser (logged in to Athaus), whatever client the model uses."""
    return f"{public_url.rstrip('/')}{CONFIRM_PAGE_PATH}{confirmation_id}"
CONFIRMATION_ID_PATTERN = r"^C-\d{6,12}$"
PAYLOAD_HASH_PATTERN = r"^[0-9a-f]{64}$"

ConfirmationId = Annotated[str, Field(pattern=CONFIRMATION_ID_PATTERN, description="Nummer der Bestätigung, z. B. C-000007.")]

# _meta of every tool whose result shows the card (both hosts' forms).
CARD_TOOL_META: dict[str, Any] = {
    "ui": {"resourceUri": CARD_URI},
    "openai/outputTemplate": CARD_CHATGPT_URI,
    "openai/widgetAccessible": True,
    "openai/toolInvocation/invoking": "Bereite vor …",
    "openai/toolInvocation/invoked": "Vorbereitet: wartet auf deinen Klick",
}
# _meta of the card's own tools (the click, its state): callable by the card only, hidden from the model.
CLICK_TOOL_META: dict[str, Any] = {
    "ui": {"resourceUri": CARD_URI, "visibility": ["app"]},
    "openai/visibility": "private",
    "openai/widgetAccessible": True,
}


@dataclass(frozen=True)
class AppResourceSpec:
    """A `ui://` HTML resource shown by the host (MCP Apps and the Apps SDK alike)."""

    uri: str  # the MCP App
    chatgpt_uri: str  # the same HTML in the Apps SDK form
    name: str
    title: str  # German
    description: str  # German
    prefers_border: bool = True  # the host draws the frame; the page draws none of its own
    # True for an app that shows the listings' photos: it loads images from the deployment's public origin (the photos
    # it shows are only those served there, /bilder/…) and from nowhere else.
    loads_images: bool = False

    def resource_domains(self, domain: str) -> list[str]:
        """The origins the app loads from: the deployment's public origin for an app that shows photos, else none."""
        if not self.loads_images:
            return []
        scheme, _, rest = domain.partition("://")
        return [f"{scheme}://{rest.split('/', 1)[0]}"]

    def ui_meta(self, domain: str = "") -> dict[str, Any]:
        """`_meta.ui` of the MCP App content: no external connections; resources only from the deployment's public
        origin, and only for an app that shows photos. No `domain`: the extension leaves its format to each host (a
        hash or URL-derived subdomain of the host's own), so the host's default sandbox origin is the right one, never
        the deployment's own origin (the web app's)."""
        return {"csp": {"connectDomains": [], "resourceDomains": self.resource_domains(domain)}, "prefersBorder": self.prefers_border}

    def skybridge_meta(self, domain: str) -> dict[str, Any]:
        """`_meta` of the Apps SDK content; ChatGPT derives the card's own sandbox subdomain of its content domain from
        `widgetDomain` (the deployment's URL), it never renders the card on that origin."""
        return {
            "openai/widgetDescription": self.description,
            "openai/widgetPrefersBorder": self.prefers_border,
            "openai/widgetCSP": {"connect_domains": [], "resource_domains": self.resource_domains(domain)},
            "openai/widgetDomain": domain,
        }


CARD = AppResourceSpec(
    uri=CARD_URI,
    chatgpt_uri=CARD_CHATGPT_URI,
    name="bestaetigung",
    title="Bestätigungskarte",
    description="Zeigt, was hinausgeht, an wen und von wem, mit zwei Knöpfen: senden oder verwerfen.",
)


# What draws nothing on its own: spaces and line breaks (Z*), controls (Cc), format characters (Cf: zero-width space
# U+200B, word joiner U+2060, soft hyphen U+00AD, BOM, bidi marks, tags), and the blank glyphs Unicode files as
# letters, symbols or marks: Braille blank U+2800, the Hangul fillers, the combining grapheme joiner, Khmer's inherent
# vowels, variation selectors. The card reads the same set (shared.confirmations.card puts it into its script).
BLANK_CATEGORIES = ("Cc", "Cf", "Zs", "Zl", "Zp")
BLANK_GLYPHS: tuple[tuple[int, int], ...] = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)


def is_blank(text: str) -> bool:
    """True if `text` has no character a person can read (see BLANK_CATEGORIES and BLANK_GLYPHS)."""
    return all(
        char.isspace() or unicodedata.category(char) in BLANK_CATEGORIES or any(low <= ord(char) <= high for low, high in BLANK_GLYPHS)
        for char in text
    )


def not_blank(value: object) -> object:
    """A text that goes out has a character to read: one of only spaces, line breaks or invisible characters is refused
    (INVALID_ARGUMENT), so no card can offer to send an empty message."""
    if isinstance(value, str) and is_blank(value):
        raise ValueError(
            "enthält nur Leerzeichen, Zeilenumbrüche oder unsichtbare Zeichen; bitte den Text schreiben, der hinausgehen soll"
        )
    return value


class Refusal(StrEnum):
    """Why a click was refused with CONFLICT (`_meta["athaus/reason"]`): the card gives each its own heading."""

    changed = "changed"  # the draft changed since the card showed it
    listing_withdrawn = "listing_withdrawn"  # the listing is no longer published
    inquiry_closed = "inquiry_closed"  # the inquiry was closed
    proposal_decided = "proposal_decided"  # the proposal was decided meanwhile


class ConfirmationBlock(ContractModel):
    """What waits for a click (or what became of it)."""

    confirmation_id: Annotated[str, Label("Bestätigung", bare=True)] = Field(description="Nummer der Bestätigung.")
    action: Annotated[PendingActionKind, Label("Art")] = Field(description="send_inquiry (Anfrage senden), send_reply (Antwort senden) oder decide_proposal (Vorschlag entscheiden).")
    summary: Annotated[str, Label("Inhalt", bare=True)] = Field(description="Was hinausgeht, an wen, in einem Satz.")
    status: Annotated[ConfirmationStatus, Label("Status")] = Field(
        description="pending (wartet auf den Klick), sent (gesendet), discarded (verworfen), expired (abgelaufen), sent_without_click (vom Büro ohne Klick freigegeben)."
    )
    expires_at: Annotated[dt.datetime, Label("gültig bis")] = Field(description="Bis dahin kann geklickt werden.")
    where_to_click: Annotated[str, Label("Bestätigen")] = Field(
        description="Wo der Mensch klickt: die Karte in einem Chat, der sie zeigt, die Athaus-Bestätigungsseite (confirm_url) oder die Web-App."
    )
    confirm_url: Annotated[str, Label("Bestätigungsseite")] = Field(
        description="Athaus-Seite dieses Entwurfs: dort bestätigt die Person im Browser (angemeldet), was genau hinausgeht."
    )
    confirmed_via: Annotated[ConfirmedVia | None, Label("bestätigt über")] = Field(
        description="Wie die Person entschieden hat: card (Karte), page (Athaus-Bestätigungsseite), app (Web-App), "
        "no_click (vom Büro ohne Klick freigegeben); null, solange nichts entschieden ist."
    )


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
    decision: Annotated[lenient(Decision), Label("Entscheidung")] = Field(description="send (senden) oder discard (verwerfen).")  # type: ignore[valid-type]
    payload_hash: Annotated[str, Label("Prüfsumme")] = Field(pattern=PAYLOAD_HASH_PATTERN, description="Die Prüfsumme, die die Karte gezeigt hat.")

    _normalise = field_validator("confirmation_id", mode="before")(normalise_ref)


def decide_confirmation_tool(right: Right) -> ToolSpec:
    """The click tool of one server, with the right of that server's send tool; only the card calls it."""
    return ToolSpec(
        name="decide_confirmation",
        title="Bestätigung ausführen",
        description=(
            "Nur für die Bestätigungskarte in einem Host, der MCP Apps zeigt: führt den Klick eines Menschen aus (send) "
            "oder verwirft (discard). Verlangt das Token und die Prüfsumme der Karte; jeden anderen Aufruf weist es ab "
            "(CONFIRMATION_INVALID, mit Verweis auf die Bestätigungsseite)."
        ),
        input_model=DecideConfirmationInput,
        output_model=OutboundResult,
        effect=Effect.outbound,
        right=right,
        extra_meta=CLICK_TOOL_META,
    )


def get_confirmation_tool(right: Right) -> ToolSpec:
    """The card's question when it starts, on one server: the confirmation's state now (a card shown again later, in a
    reopened conversation, shows what became of it instead of live buttons). Only the card calls it."""
    return ToolSpec(
        name="get_confirmation",
        title="Bestätigung abrufen",
        description=(
            "Nur für die Bestätigungskarte: zeigt, was aus einer Bestätigung geworden ist (wartet, gesendet, verworfen, "
            "abgelaufen), damit eine später wieder geöffnete Karte nur für Wartendes Knöpfe zeigt."
        ),
        input_model=SendInput,
        output_model=OutboundResult,
        effect=Effect.read,
        right=right,
        extra_meta=CLICK_TOOL_META,
    )


TOOL_CARD_NOTE = (
    " Hinaus geht es erst nach dem Klick eines Menschen: in der Karte, wenn der Chat sie zeigt, sonst auf der "
    "Seite confirmation.confirm_url."
)
