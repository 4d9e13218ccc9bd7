"""Athaus für Makler: the OpenImmo import (import_listings).

A transfer is OpenImmo 1.2.x XML, passed as `xml`, as a ZIP (the XML with its photos, `zip_base64`) or fetched
from the office's configured feed URL (XML or ZIP). The result is
per object (created, changed, unchanged, withdrawn, refused with reason), the values that were excluded because
they are no number (data-fidelity rule 14) counted per field, and the listings a complete transfer withdrew.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from contract.envelope import Absent, ContractModel
from contract.labels import NOT_IN_TEXT, Label
from contract.rights import BROKER_WRITE
from contract.tool import Effect, ToolSpec
from contract.vocabulary import ImportAction, ImportOutcome, TransferScope, TransferSource, ValueExclusion

# An inline transfer travels in one MCP request, whose body the edge bounds (ATHAUS_MAX_REQUEST_BYTES, 1 MiB):
# larger transfers come from the office's feed URL, bounded by ATHAUS_OPENIMMO_MAX_BYTES.
MAX_XML_CHARS = 900_000
IMPORT_TIME_BUDGET_SECONDS = 600.0  # a full transfer of a large office; progress notifications say how far it got
RESULTS_SHOWN = 200  # per-object results listed; the counts are always complete


class ImportListingsInput(ContractModel):
    xml: Annotated[str | None, Label("OpenImmo-XML")] = Field(
        default=None,
        max_length=MAX_XML_CHARS,
        description="Die Übertragung als OpenImmo-XML (1.2.x), bis 900.000 Zeichen; größere über from_feed.",
    )
    zip_base64: Annotated[str | None, Label("ZIP-Übertragung")] = Field(
        default=None,
        max_length=MAX_XML_CHARS,
        description="Die Übertragung als ZIP (XML mit Fotos), Base64, bis 900.000 Zeichen; größere über from_feed.",
    )
    from_feed: Annotated[bool, Label("von der Feed-Adresse")] = Field(
        default=False, description="true: von der eingestellten Feed-Adresse des Büros laden statt xml."
    )
    publish: Annotated[bool, Label("veröffentlichen")] = Field(
        default=True,
        description="true: neue Objekte veröffentlichen, wenn check_listing es erlaubt; sonst bleiben sie Entwurf.",
    )
    preview: Annotated[bool, Label("Vorschau")] = Field(
        default=False,
        description="true: nichts schreiben, nur zeigen, was angelegt, geändert, abgelehnt und (VOLL) zurückgezogen würde.",
    )


class ImportNote(ContractModel):
    field: Annotated[str, Label("Feld", bare=True)] = Field(
        description="Das Feld des Inserats (bei Annahmen) oder der Pfad des Elements in der Übertragung (nicht übernommen)."
    )
    note: Annotated[str, Label("Hinweis", bare=True)] = Field(description="Deutsch: was angenommen wurde oder warum es fehlt.")


class ObjectResult(ContractModel):
    objektnr_extern: Annotated[str | Absent, Label("Objektnr.", bare=True)] = Field(
        description="verwaltung_techn/objektnr_extern; fehlt, wenn das Objekt keine hat."
    )
    position: Annotated[int, Label("Nr. in der Datei", brief=False)] = Field(description="0: nicht in der Datei (VOLL).")
    action: Annotated[ImportAction, NOT_IN_TEXT]
    outcome: Annotated[ImportOutcome, Label("Ergebnis", bare=True)]
    outcome_label: str
    listing_id: Annotated[str | Absent, Label("Inserat")]
    reason: Annotated[str | Absent, Label("Grund")] = Field(description="Deutsch: warum abgelehnt, zurückgezogen oder nicht veröffentlicht.")
    excluded_fields: Annotated[list[str], Label("nicht übernommen")] = Field(
        description="Felder, deren Wert keine Zahl war (rule 14); gespeichert ist kein Wert."
    )
    assumptions: Annotated[list[ImportNote], Label("Annahmen")] = Field(
        default_factory=list,
        description="Was die Übertragung nicht ausdrücklich sagt und angenommen wurde (Ort aus Ortsteil, Koordinaten aus "
        "der PLZ, Warmmiete abgeleitet, fehlende Vermarktungs- oder Objektart).",
    )
    not_imported: Annotated[list[ImportNote], Label("ohne Platz im Inserat")] = Field(
        default_factory=list, description="Elemente mit Angaben, für die ein Inserat kein Feld hat: genannt, nicht still verworfen."
    )


class ImportCounts(ContractModel):
    created: Annotated[int, Label("angelegt")]
    changed: Annotated[int, Label("geändert")]
    unchanged: Annotated[int, Label("unverändert")]
    withdrawn: Annotated[int, Label("zurückgezogen")]
    refused: Annotated[int, Label("abgelehnt")]


class ExcludedCount(ContractModel):
    field: Annotated[str, Label("Feld", bare=True)]
    reason: Annotated[ValueExclusion, Label("Grund")]
    reason_label: str
    count: Annotated[int, Label("Anzahl")]
    example: Annotated[str, Label("Beispiel")] = Field(description="Ein Wert, wie die Datei ihn schreibt.")


class ImportListingsOutput(ContractModel):
    source: Annotated[TransferSource, Label("Quelle")]
    source_label: str
    scope: Annotated[TransferScope, Label("Umfang")] = Field(description="full (vollständige Übertragung, VOLL) oder partial (Teilübertragung, TEIL).")
    scope_label: str
    scope_assumed: Annotated[bool, Label("Umfang angenommen")] = Field(
        description="true: die Datei hat kein uebertragung-Element; gelesen als TEIL (zieht nichts zurück außer aktion DELETE)."
    )
    preview: Annotated[bool, Label("nur Vorschau")] = Field(description="true: nichts wurde geschrieben.")
    objects_read: Annotated[int, Label("Objekte in der Datei")]
    counts: Annotated[ImportCounts, Label("Ergebnis")]
    withdrawn_missing: Annotated[list[str], Label("zurückgezogen, weil nicht übertragen")] = Field(
        description="objektnr_extern der Objekte desselben Feeds, die eine VOLL-Übertragung nicht mehr enthielt."
    )
    excluded_values: Annotated[list[ExcludedCount], Label("Werte ohne Zahl")] = Field(
        description="Nicht gespeicherte Werte je Feld und Grund, mit Anzahl."
    )
    results: Annotated[list[ObjectResult], Label("Objekte")] = Field(
        description=f"Je Objekt in Dateireihenfolge, dann VOLL-Rückzüge; höchstens {RESULTS_SHOWN}."
    )
    results_complete: Annotated[bool, Label("alle Objekte gezeigt")]
    warnings: Annotated[list[str], Label("Hinweise")]
    summary: Annotated[str, Label("Zusammenfassung", bare=True)]


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="import_listings",
        title="Bestand importieren",
        description=(
            "Importiert eine OpenImmo-Übertragung (1.2.x) in den Bestand deines Büros: als xml, als ZIP mit Fotos "
            "(zip_base64) oder mit from_feed von der Feed-Adresse des Büros. Schlüssel ist objektnr_extern; aktion "
            "DELETE zieht ein Objekt zurück. umfang=VOLL zieht auch fehlende Objekte desselben Feeds zurück und nennt "
            "sie, TEIL (auch ohne uebertragung-Element) nicht. preview true zeigt, was geschähe, ohne zu schreiben. "
            "Werte, die keine Zahl sind ('ca. 85'), werden nicht gespeichert, sondern je Feld gezählt. Dieselbe "
            "Übertragung zweimal ändert beim zweiten Mal nichts."
        ),
        input_model=ImportListingsInput,
        output_model=ImportListingsOutput,
        time_budget_seconds=IMPORT_TIME_BUDGET_SECONDS,
        effect=Effect.save,
        right=BROKER_WRITE,
        open_world=True,
        destructive=True,
        idempotent=True,
        hints_because="VOLL und DELETE ziehen Objekte zurück; dieselbe Übertragung zweimal ändert beim zweiten Mal nichts.",
    ),
]
