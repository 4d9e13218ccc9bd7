"""The scope of one catalog request, shared by the public catalog and an office's own stock.

Both read the same filters (`CatalogFilters`) the same way: place centre, full text, ranges, what a
range filter excludes (rule 14), the warnings and the request-specific part of an empty hint. They
differ only in the fixed scope: the public catalog shows published listings of every office
(`engine.base_conditions`), an office's stock shows its own listings in the statuses the caller asks
for (`StockScope`: status from the argument, office from `OfficeData`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement
from sqlalchemy.orm import Session

from contract.catalog import CatalogFilters
from contract.envelope import ResultWarning, WarningCode
from contract.errors import ErrorCode
from shared.catalog import search as engine
from shared.catalog.query import ParsedQuery, parse
from shared.db.models import Listing
from shared.db.scoped import OfficeData
from shared.runtime.errors import ToolFailure

UNKNOWN_VALUE = {"price": "ohne Preis (Preis auf Anfrage)", "living_area": "ohne Angabe der Wohnfläche", "rooms": "ohne Angabe der Zimmerzahl"}


def resolve_centre(session: Session, filters: CatalogFilters) -> engine.Centre | None:
    near = filters.near
    if near is None:
        return None
    if near.place:
        resolved = engine.resolve_place(session, near.place)
        if resolved is None:
            raise ToolFailure(
                ErrorCode.NOT_FOUND,
                f"Den Ort {near.place!r} kennt der Katalog nicht: bitte einen deutschen Ortsnamen oder eine PLZ "
                "angeben oder near mit latitude und longitude senden.",
            )
        latitude, longitude, name = resolved
        return engine.Centre(latitude, longitude, near.radius_km, name)
    assert near.latitude is not None and near.longitude is not None  # the contract validates the pair
    return engine.Centre(near.latitude, near.longitude, near.radius_km, f"{near.latitude:.4f}, {near.longitude:.4f}")


def filter_warnings(filters: CatalogFilters, parsed: ParsedQuery, excluded: dict[str, int]) -> list[ResultWarning]:
    warnings: list[ResultWarning] = []
    if filters.near is not None and "radius_km" not in filters.near.model_fields_set:
        warnings.append(
            ResultWarning(
                code=WarningCode.DEFAULT_SCOPE_APPLIED,
                message=f"Umkreis nicht angegeben: der Standard von {filters.near.radius_km:g} km wurde verwendet.",
            )
        )
    if parsed.ignored:
        warnings.append(
            ResultWarning(
                code=WarningCode.TERMS_IGNORED,
                message="Nicht gesucht (Füllwort oder Wortanfang unter 3 Zeichen): " + ", ".join(parsed.ignored) + ".",
            )
        )
    for name, n in excluded.items():
        code = WarningCode.PRICE_ON_REQUEST_EXCLUDED if name == "price" else WarningCode.VALUE_UNKNOWN_EXCLUDED
        warnings.append(
            ResultWarning(code=code, message=f"{n} sonst passende Inserate {UNKNOWN_VALUE[name]} fallen durch den Filter auf {name}.")
        )
    return warnings


def empty_hint(filters: CatalogFilters, centre: engine.Centre | None) -> str:
    parts = []
    if filters.query:
        parts.append(f"Volltext {filters.query!r} sucht ganze Wörter; ein Wortanfang mit * findet auch Zusammensetzungen.")
    if centre is not None:
        parts.append(f"Umkreis: {centre.radius_km:g} km um {centre.label}.")
    if not parts:
        parts.append("Jeder gesetzte Filter schränkt ein; die Vorschläge lassen je einen davon weg.")
    return " ".join(parts)


def _is_status_scope(condition: Any) -> bool:
    left = getattr(condition, "left", None)
    return getattr(left, "key", None) == "status" and getattr(left, "table", None) is Listing.__table__


def filter_conditions(filters: CatalogFilters, parsed: ParsedQuery, centre: engine.Centre | None) -> list[ColumnElement[bool]]:
    """`engine.base_conditions` without its fixed public status scope: only what the filters ask for.

    Fails loudly if the engine's conditions no longer carry exactly one status scope, so a change there
    can never silently widen or narrow an office's stock.
    """
    conditions = engine.base_conditions(filters, parsed, centre)
    kept = [c for c in conditions if not _is_status_scope(c)]
    if len(kept) != len(conditions) - 1:
        raise RuntimeError("engine.base_conditions must carry exactly one status condition (the public scope)")
    return kept


class StockScope:
    """The resolved scope of one request over an office's own listings, in the statuses asked for."""

    def __init__(self, session: Session, filters: CatalogFilters, statuses: Sequence[str], office: OfficeData) -> None:
        self.filters = filters
        self.parsed = parse(filters.query) if filters.query else ParsedQuery()
        self.centre = resolve_centre(session, filters)
        office_scope = office.listings().whereclause
        assert office_scope is not None  # OfficeData always filters by the office
        self.base: list[ColumnElement[bool]] = [
            office_scope,
            Listing.status.in_(list(statuses)),
            *filter_conditions(filters, self.parsed, self.centre),
        ]
        self.ranges = engine.range_conditions(filters)
        self.conditions = [*self.base, *(c for parts in self.ranges.values() for c in parts)]
        self.excluded = engine.unknown_value_counts(session, self.base, self.ranges)

    @property
    def warnings(self) -> list[ResultWarning]:
        return filter_warnings(self.filters, self.parsed, self.excluded)
