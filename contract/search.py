"""Athaus Immobiliensuche (/suche/mcp): its tools, resource templates and prompts."""

from __future__ import annotations

from contract import catalog, connectors, purchase_costs, seeker_account, seeker_contact, seeker_writes
from contract.envelope import HOW_TO_READ
from contract.confirmations import CARD
from contract.primitives import PromptArgumentSpec, PromptSpec, ResourceTemplateSpec
from contract.rights import SEARCH_ACCOUNT_READ, SEARCH_PUBLIC, ServerName
from contract.server import declare_server

TITLE = "Athaus Immobiliensuche"
SUMMARY = "Katalog, Exposé, Anfragen an Anbieter, Suchaufträge, Treffer."
INSTRUCTIONS = (
    "Athaus Immobiliensuche durchsucht die veröffentlichten Inserate von Athaus (Kauf und Miete in Deutschland) und "
    "führt dein Konto: Suchaufträge, Treffer, Anfragen. " + HOW_TO_READ
)


LISTING_RESOURCE = ResourceTemplateSpec(
    name="listing",
    uri_template="athaus://suche/inserate/{listing_id}",
    title="Exposé",
    description="Das Exposé eines veröffentlichten Inserats (dieselben Daten wie get_listing), als Text und JSON.",
    mime_type="text/markdown",
    right=SEARCH_PUBLIC,
)

OWN_INQUIRY_RESOURCE = ResourceTemplateSpec(
    name="own_inquiry",
    uri_template="athaus://suche/anfragen/{inquiry_id}",
    title="Eigene Anfrage",
    description="Eine eigene Anfrage an ein Inserat mit dem ganzen Verlauf (dieselben Daten wie get_inquiry), als Text und JSON.",
    mime_type="text/markdown",
    right=SEARCH_ACCOUNT_READ,
)

START_SEARCH_PROMPT = PromptSpec(
    name="start_home_search",
    title="Wohnungssuche beginnen",
    description="Beginnt eine Suche nach einem Zuhause: fragt nach dem Nötigen und sucht dann im Katalog.",
    arguments=(
        PromptArgumentSpec("place", "Ort oder PLZ, in dem gesucht wird (wird aus dem Katalog ergänzt).", True, "places"),
        PromptArgumentSpec("marketing_type", "buy (Kauf) oder rent (Miete).", False, "marketing_types"),
        PromptArgumentSpec("budget", "Höchstpreis in EUR (Kaufpreis oder Kaltmiete).", False),
    ),
)


SERVER = declare_server(
    ServerName.search,
    title=TITLE,
    summary=SUMMARY,
    instructions=INSTRUCTIONS,
    tools=[*catalog.TOOLS, *connectors.SEARCH_TOOLS, *purchase_costs.TOOLS, *seeker_account.TOOLS, *seeker_writes.TOOLS, *seeker_contact.TOOLS],
    resources=(LISTING_RESOURCE, OWN_INQUIRY_RESOURCE),
    prompts=(START_SEARCH_PROMPT,),
    apps=(CARD, catalog.RESULTS_APP),
    docs_page="suche.md",
)
