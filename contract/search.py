"""Athaus Immobiliensuche (/suche/mcp): its tools, resource templates and prompts."""

from __future__ import annotations

from contract.catalog import (
    CalculatePurchaseCostsInput,
    CountListingsInput,
    CountListingsOutput,
    GetListingInput,
    ListingDetail,
    SearchListingsInput,
    SearchListingsOutput,
)
from contract.purchase_costs import PurchaseCostsOutput
from contract.primitives import PromptArgumentSpec, PromptSpec, ResourceTemplateSpec
from contract import seeker_account
from contract.rights import SEARCH_ACCOUNT_READ, SEARCH_PUBLIC, ServerName
from contract.tool import Effect, ToolSpec, declare_tools

TITLE = "Athaus Immobiliensuche"
SUMMARY = "Katalog, Exposé, Anfragen an Anbieter, Suchaufträge, Treffer."
INSTRUCTIONS = (
    "Athaus Immobiliensuche durchsucht die veröffentlichten Inserate von Athaus (Kauf und Miete in Deutschland). "
    "Jede Liste sagt in completeness, ob sie vollständig ist; eine leere Antwort ist nur dann ein Beleg, dass es "
    "nichts gibt, wenn completeness.complete true ist. Vorschläge (suggestions) sind ungeprüft."
)

SEARCH_TOOLS = declare_tools(
    ServerName.search,
    [
        ToolSpec(
            name="search_listings",
            title="Inserate suchen",
            description=(
                "Durchsucht alle veröffentlichten Inserate (Kauf und Miete) mit Volltext und Filtern: Vermarktungsart, "
                "Objektart, Ort, PLZ, Umkreis um einen Ort oder Punkt, Preis, Wohnfläche, Zimmer, Ausstattung. Ein "
                "weggelassener Filter heißt: alles davon; die ausgeführte Anfrage steht im Ergebnis unter request. "
                "Die Reihenfolge ist total (bei Gleichstand Inseratsnummer aufsteigend); sort_key nennt sie. Ergebnisse "
                "kommen seitenweise: solange completeness.complete false ist und next_cursor gesetzt, mit denselben "
                "Argumenten und cursor weiterblättern. Findet die Suche nichts, stehen dort die ausgeführte Anfrage, ein "
                "nächster Schritt (hint) und ungeprüfte Vorschläge aus deiner Eingabe; der Server erweitert nie selbst. "
                "Ob es ein Inserat wirklich nicht gibt, folgt erst aus einer leeren Antwort mit complete true. "
                "Volltext-Syntax siehe Argument query. Für Anzahlen und Aufschlüsselungen vorher count_listings nutzen."
            ),
            input_model=SearchListingsInput,
            output_model=SearchListingsOutput,
            effect=Effect.read,
            right=SEARCH_PUBLIC,
        ),
        ToolSpec(
            name="count_listings",
            title="Inserate zählen",
            description=(
                "Zählt die veröffentlichten Inserate, die zu den Filtern passen (dieselben Filter und dieselbe "
                "Volltext-Syntax wie search_listings), und schlüsselt sie auf: nach Vermarktungsart, Objektart, Ort und "
                "Preisband (Inserate mit 'Preis auf Anfrage' in einem eigenen Band). Gut, um eine Suche einzugrenzen, "
                "bevor man blättert. Die Zahlen sind vollständig für den Katalogstand unter freshness."
            ),
            input_model=CountListingsInput,
            output_model=CountListingsOutput,
            effect=Effect.read,
            right=SEARCH_PUBLIC,
        ),
        ToolSpec(
            name="get_listing",
            title="Exposé abrufen",
            description=(
                "Ein veröffentlichtes Inserat mit allem, was man zum Entscheiden braucht: Kosten, Flächen, "
                "Energieausweis mit den Pflichtangaben nach GEG §87, Ausstattung, Anbieter, Fotos, Verfügbarkeit. "
                "Jedes fehlende Feld sagt, warum es fehlt: keine Angabe des Anbieters (empty_in_source) oder "
                "zurückgehalten (withheld, z. B. 'Preis auf Anfrage' oder die genaue Adresse, die der Anbieter erst auf "
                "Anfrage nennt). listing_id ist die Inseratsnummer aus search_listings, z. B. A-0000042."
            ),
            input_model=GetListingInput,
            output_model=ListingDetail,
            effect=Effect.read,
            right=SEARCH_PUBLIC,
        ),
        ToolSpec(
            name="calculate_purchase_costs",
            title="Kaufnebenkosten berechnen",
            description=(
                "Berechnet die Kaufnebenkosten eines Kaufs: Grunderwerbsteuer nach dem Satz des Bundeslands, der am "
                "Vertragsdatum gilt (mit Satz und Gültigkeitsbeginn), Notar und Grundbuch, Maklerprovision so, wie das "
                "Inserat sie angibt, und die Summe. Mit listing_id werden Kaufpreis, Bundesland und Provision aus dem "
                "Inserat genommen; price, state und commission_percent überschreiben sie. Ist die Provision unbekannt, "
                "ist sie in der Summe nicht enthalten, und das Ergebnis sagt es. Fehlt der Kaufpreis (etwa 'Preis auf "
                "Anfrage'), stellt das Werkzeug genau eine Rückfrage."
            ),
            input_model=CalculatePurchaseCostsInput,
            output_model=PurchaseCostsOutput,
            effect=Effect.read,
            right=SEARCH_PUBLIC,
        ),
        *seeker_account.TOOLS,
    ],
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
