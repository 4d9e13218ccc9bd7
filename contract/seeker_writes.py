"""Athaus Immobiliensuche: the seeker's account, write side (save_search_order, update_search_order, update_match).

Every tool here requires `suche:konto.schreiben` and acts only on the caller's own rows; each write leaves an audit
row. A saved search's criteria are the filters of search_listings (`CatalogFilters`), stored as the catalog reads
them (places resolved), so a Treffer is exactly what search_listings with these criteria would find.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

from contract.catalog import CatalogFilters
from contract.envelope import ContractModel
from contract.fields import lenient, normalise_ref, request_id_field
from contract.labels import NOT_IN_TEXT, Label
from contract.rights import SEARCH_ACCOUNT_WRITE
from contract.seeker_account import MATCH_ID_PATTERN, SearchOrderItem, SearchOrderRef
from contract.tool import Effect, ToolSpec
from contract.vocabulary import AlertFrequency, MatchState, SearchOrderStatus, WriteResult


class SaveSearchOrderInput(ContractModel):
    search_order_id: Annotated[SearchOrderRef | None, Label("Suchauftrag")] = Field(default=None, description="Weggelassen: neuer Suchauftrag.")
    name: Annotated[str | None, Label("Name")] = Field(default=None, min_length=1, max_length=200, description="Weggelassen: aus den Kriterien.")
    criteria: Annotated[CatalogFilters | None, Label("Kriterien")] = Field(
        default=None, description="Filter wie bei search_listings; ersetzt die bisherigen. Beim Anlegen Pflicht."
    )
    frequency: Annotated[lenient(AlertFrequency) | None, Label("Benachrichtigung")] = Field(  # type: ignore[valid-type]
        default=None, description="instant (sofort bei jedem neuen Treffer), daily (einmal täglich), weekly (einmal wöchentlich); Standard daily."
    )
    approachable: Annotated[bool | None, Label("für Makler ansprechbar")] = Field(
        default=None, description="true: Makler dürfen dir passende Objekte vorschlagen; Standard false."
    )
    request_id: Annotated[str, Label("Anfrageschlüssel")] = request_id_field(required=True)

    _normalise = field_validator("search_order_id", mode="before")(normalise_ref)


class SaveSearchOrderOutput(SearchOrderItem):
    result: Annotated[WriteResult, Label("Ergebnis")]
    result_label: str
    changed_fields: Annotated[list[str], NOT_IN_TEXT] = Field(description="Geänderte Angaben; leer bei unchanged.")
    listings_now: Annotated[int, Label("passende Inserate jetzt")] = Field(description="Veröffentlichte Inserate, die heute passen (search_listings zeigt sie).")
    replayed: Annotated[bool, Label("Wiederholung")]
    summary: Annotated[str, Label("Zusammenfassung", bare=True)]


class UpdateSearchOrderInput(ContractModel):
    search_order_id: Annotated[SearchOrderRef, Label("Suchauftrag")]
    status: Annotated[lenient(SearchOrderStatus), Label("neuer Status")] = Field(  # type: ignore[valid-type]
        description="paused (pausieren), active (fortsetzen), ended (beenden, endgültig)."
    )

    _normalise = field_validator("search_order_id", mode="before")(normalise_ref)


class UpdateSearchOrderOutput(SearchOrderItem):
    result: Annotated[WriteResult, Label("Ergebnis")]
    result_label: str
    summary: Annotated[str, Label("Zusammenfassung", bare=True)]


class UpdateMatchInput(ContractModel):
    match_id: Annotated[str, Label("Treffer"), Field(pattern=MATCH_ID_PATTERN, description="Nummer aus list_matches, z. B. T-000031.")]
    state: Annotated[lenient(MatchState), Label("Markierung")] = Field(  # type: ignore[valid-type]
        description="seen (gesehen), interesting (interessant), not_interested (nicht interessant), new (wieder neu)."
    )

    _normalise = field_validator("match_id", mode="before")(normalise_ref)


class UpdateMatchOutput(ContractModel):
    match_id: Annotated[str, Label("Treffer", bare=True)]
    result: Annotated[WriteResult, Label("Ergebnis")]
    result_label: str
    match_state: Annotated[MatchState, Label("Markierung")]
    match_state_label: str
    previous_state: Annotated[MatchState, NOT_IN_TEXT]
    search_order_id: Annotated[str, Label("Suchauftrag")]
    listing_id: Annotated[str, Label("Inserat")]
    summary: Annotated[str, Label("Zusammenfassung", bare=True)]


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="save_search_order",
        title="Suchauftrag speichern",
        description=(
            "Legt einen Suchauftrag an (ohne search_order_id; criteria Pflicht) oder ändert ihn: Kriterien wie bei "
            "search_listings, Benachrichtigung, ob Makler dir Objekte vorschlagen dürfen. Neue, günstigere oder "
            "geänderte passende Inserate werden danach Treffer (list_matches)."
        ),
        input_model=SaveSearchOrderInput,
        output_model=SaveSearchOrderOutput,
        effect=Effect.save,
        right=SEARCH_ACCOUNT_WRITE,
        destructive=True,
        hints_because="mit search_order_id ersetzt es Kriterien, Name und Benachrichtigung; request_id ist Pflicht, derselbe Aufruf zweimal ändert einmal.",
    ),
    ToolSpec(
        name="update_search_order",
        title="Suchauftrag ändern",
        description="Pausiert einen Suchauftrag (keine Treffer), setzt ihn fort oder beendet ihn endgültig.",
        input_model=UpdateSearchOrderInput,
        output_model=UpdateSearchOrderOutput,
        effect=Effect.update,
        right=SEARCH_ACCOUNT_WRITE,
        destructive=True,
        hints_because="ended beendet den Suchauftrag endgültig; derselbe Status zweimal ändert nichts mehr.",
    ),
    ToolSpec(
        name="update_match",
        title="Treffer markieren",
        description="Markiert einen deiner Treffer als gesehen, interessant oder nicht interessant (oder wieder neu).",
        input_model=UpdateMatchInput,
        output_model=UpdateMatchOutput,
        effect=Effect.update,
        right=SEARCH_ACCOUNT_WRITE,
    ),
]
