"""`search` and `fetch`: the two tools ChatGPT's research and company-knowledge connectors require, on both servers.

ChatGPT adds a remote MCP server outside developer mode (deep research; company knowledge in Business and
Enterprise workspaces) only if it offers exactly these two tools. Their shape is OpenAI's, documented in
"Building MCP servers for ChatGPT and API integrations" (platform.openai.com/docs/mcp, sections "search tool",
"fetch tool" and "Citation behavior", as read on 2026-12-01):

- `search` takes one string `query` and returns `{"results": [{"id", "title", "url"}, …]}`;
- `fetch` takes one string `id` and returns `{"id", "title", "text", "url", "metadata"}`;
- each returns exactly one text content item holding that object as JSON, and may return the same object as
  structuredContent; a result becomes a citation only with a non-empty `url`.

These are the one declared exception to the verb_object name rule (`contract.tool.CONNECTOR_TOOLS`). The
structured result carries more than the shape needs, where the shape allows extra keys: how many results there
are, whether the list is complete and why not, what the one string was read as, the data's freshness.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from contract.envelope import ContractModel, Envelope
from contract.labels import NOT_IN_TEXT, Label
from contract.rights import BROKER_READ, SEARCH_PUBLIC
from contract.tool import Effect, ToolSpec

RESULTS_SHOWN = 10  # results of one `search` call; the shape has no paging, so the rest is said, not dropped
LINE_READ = (
    "Die Zeile wird gelesen wie in Inseraten üblich (Ort oder Umkreis, Zimmer, Fläche, Preis oder Miete mit Grenzen "
    "und Bereichen, Kauf/Miete, Objektart, Ausstattung), der Rest als Volltext; read_as sagt, wie. Was nicht "
    "verstanden wurde, nennt completeness (NOT_UNDERSTOOD) mit Zeilen zum erneuten Senden."
)


class ConnectorSearchInput(ContractModel):
    query: Annotated[str, Label("Suche")] = Field(
        min_length=1,
        max_length=200,
        description="Eine Zeile in Worten, wie ein Mensch sie tippt.",
    )


class ConnectorFetchInput(ContractModel):
    id: Annotated[str, Label("Nummer")] = Field(
        min_length=1, max_length=40, description="Die id eines Ergebnisses von search."
    )


class ConnectorHit(ContractModel):
    nouns: ClassVar[tuple[str, str]] = ("Ergebnis", "Ergebnisse")

    id: Annotated[str, Label("Nummer", bare=True)] = Field(description="Für fetch.")
    title: Annotated[str, Label("Titel", bare=True)]
    url: Annotated[str, Label("Adresse", bare=True)] = Field(description="Die Seite, die ein Mensch öffnet.")
    kind: Annotated[str, NOT_IN_TEXT] = Field(description="listing (Inserat) oder inquiry (Anfrage).")


class ConnectorSearchOutput(Envelope):
    items_key: ClassVar[str] = "results"  # OpenAI's name for the list; the envelope builder puts the items here

    returned: Annotated[int, Label("geliefert")]
    total: Annotated[int | None, Label("insgesamt")] = Field(description="Alle Treffer, wo genau gezählt; sonst null.")
    total_exact: Annotated[bool, NOT_IN_TEXT] = Field(description="true: total ist genau gezählt.")
    total_at_least: Annotated[int | None, NOT_IN_TEXT] = Field(default=None, description="Untergrenze, wo total null ist.")
    sort_key: Annotated[str, NOT_IN_TEXT]
    sort_key_label: Annotated[str | None, NOT_IN_TEXT] = None
    read_as: Annotated[str, Label("gelesen als")] = Field(description="Wie die Zeile gelesen wurde, auf Deutsch.")
    results: Annotated[list[ConnectorHit], Label("Ergebnisse")]


class ConnectorDocument(ContractModel):
    id: Annotated[str, Label("Nummer")]
    title: Annotated[str, Label("Titel")]
    text: Annotated[str, Label("Text")] = Field(description="Der ganze Datensatz als deutscher Text.")
    url: Annotated[str, Label("Adresse")]
    metadata: Annotated[dict[str, str], Label("Angaben")] = Field(description="Art, Ort, Stand und ähnliches, als Text.")


SEARCH_CATALOG = ToolSpec(
    name="search",
    title="Katalog durchsuchen (Recherche)",
    description=(
        "Für ChatGPTs Recherche: sucht mit einer Zeile in allen veröffentlichten Inseraten, z. B. '2-3 Zimmer Balkon "
        f"Leipzig bis 900 € warm'. {LINE_READ} Höchstens {RESULTS_SHOWN} Ergebnisse, neueste zuerst; gibt es mehr, "
        "sagt es completeness. "
        "Jedes Ergebnis hat eine Adresse zum Öffnen; das Exposé liefert fetch."
    ),
    input_model=ConnectorSearchInput,
    output_model=ConnectorSearchOutput,
    effect=Effect.read,
    right=SEARCH_PUBLIC,
    json_text=True,
)

FETCH_CATALOG = ToolSpec(
    name="fetch",
    title="Exposé holen (Recherche)",
    description=(
        "Für ChatGPTs Recherche: das ganze Exposé eines veröffentlichten Inserats zu einer id von search "
        "(Inseratsnummer, z. B. A-0000042), als Text, mit Adresse und Angaben."
    ),
    input_model=ConnectorFetchInput,
    output_model=ConnectorDocument,
    effect=Effect.read,
    right=SEARCH_PUBLIC,
    json_text=True,
)

SEARCH_OFFICE = ToolSpec(
    name="search",
    title="Büro durchsuchen (Recherche)",
    description=(
        "Für ChatGPTs Recherche: sucht mit einer Zeile im Bestand des eigenen Büros (jeder Status) und in seinen "
        "Anfragen. Eine Objekt- oder Anfragenummer liefert genau diesen Datensatz. "
        f"{LINE_READ} Anfragen: nach Suchwörtern und Ausstattung in ihren Nachrichten. Je Art höchstens {RESULTS_SHOWN} "
        "Ergebnisse; gibt es mehr, sagt es completeness. Den ganzen Datensatz liefert fetch."
    ),
    input_model=ConnectorSearchInput,
    output_model=ConnectorSearchOutput,
    effect=Effect.read,
    right=BROKER_READ,
    json_text=True,
)

FETCH_OFFICE = ToolSpec(
    name="fetch",
    title="Datensatz holen (Recherche)",
    description=(
        "Für ChatGPTs Recherche und Unternehmenswissen: ein Objekt (A-…) oder eine Anfrage (I-…) des eigenen Büros "
        "zu einer id von search, als ganzer Text mit Adresse in der Web-App und Angaben. Eine Anfrage zeigt "
        "personenbezogene Daten; das Lesen wird protokolliert wie bei get_inquiry."
    ),
    input_model=ConnectorFetchInput,
    output_model=ConnectorDocument,
    effect=Effect.read,
    right=BROKER_READ,
    json_text=True,
)

SEARCH_TOOLS: list[ToolSpec] = [SEARCH_CATALOG, FETCH_CATALOG]
BROKER_TOOLS: list[ToolSpec] = [SEARCH_OFFICE, FETCH_OFFICE]
