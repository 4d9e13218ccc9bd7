"""A page of listings read as plain rows: the columns a summary shows, the office's name in the same statement and
the features in one more, without the ORM's identity map, instrumented attributes and loader strategies.

A page is read to be shown, never changed: `ListingRow` carries what `shared.listing_view` and the publishing rules
read of a `Listing` under the same names (`office.name`, `features[i].feature`), and nothing else. A column the page
did not read (the long free texts) is absent, so reading it fails loudly, as the ORM's raiseload did.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from types import SimpleNamespace
from typing import Any, NamedTuple

from sqlalchemy import Column, ColumnElement, Select, select
from sqlalchemy.orm import Session

from shared.db.models import Listing, ListingFeature, Office

LISTINGS = Listing.__table__
PROVIDER = "office_name"  # the label of the office's name in a page's row (no listing column is called so)


class ListedOffice(NamedTuple):
    name: str


class ListedFeature(NamedTuple):
    feature: str


class ListingRow(SimpleNamespace):
    """One listing of a page: its columns as attributes, `office` (its name) and `features` (in their stored order)."""

    office: ListedOffice
    features: list[ListedFeature]


# What a summary of the public catalog reads (shared.listing_view.summary_fields), with the keys of every order and the
# coordinates of the distance: a public page selects these and no more (an office's stock reads all but the long texts).
SUMMARY_COLUMNS = (
    "id", "ref", "title", "marketing_type", "property_type", "postal_code", "city", "district", "price",
    "price_on_request", "service_charges", "heating_costs", "living_area", "plot_area", "rooms", "energy_status",
    "energy_class", "photos", "photos_note", "description", "latitude", "longitude", "published_at",
)  # fmt: skip


def page_statement(conditions: Sequence[ColumnElement[bool]], columns: Collection[str] | None, unread: Iterable[str]) -> Select[Any]:
    """The listings matching `conditions` with their office's name (one per listing: the join never multiplies):
    `columns` (None: every one) but `unread`."""
    skipped = set(unread)
    chosen: list[Column[Any]] = [c for c in LISTINGS.c if (columns is None or c.key in columns) and c.key not in skipped]
    return (
        select(*chosen, Office.__table__.c.name.label(PROVIDER))
        .join_from(LISTINGS, Office.__table__, Office.__table__.c.id == LISTINGS.c.office_id)
        .where(*conditions)
    )


def listing_rows(session: Session, rows: Sequence[Any], *, with_features: bool) -> list[ListingRow]:
    """`rows` of `page_statement` as ListingRows; their features in one statement (none without `with_features`:
    then reading them fails loudly)."""
    features: dict[int, list[ListedFeature]] = {}
    if with_features and rows:
        table = ListingFeature.__table__
        found = session.execute(
            select(table.c.listing_id, table.c.feature)
            .where(table.c.listing_id.in_([row.id for row in rows]))
            .order_by(table.c.listing_id, table.c.feature)
        )
        for listing_id, feature in found:
            features.setdefault(listing_id, []).append(ListedFeature(feature))
    made = []
    for row in rows:
        fields = row._asdict()
        fields["office"] = ListedOffice(fields.pop(PROVIDER))
        if with_features:
            fields["features"] = features.get(row.id, [])
        made.append(ListingRow(**fields))
    return made
