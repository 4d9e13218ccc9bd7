"""SQLAlchemy 2.x models. The schema itself is only ever created by Alembic (see migrations/)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

from shared.db.geo_cells import GeoCell

# Search terms are ASCII after normalisation; the C collation on PostgreSQL makes the
# prefix range scan (term >= 'balk' AND term < 'ball') behave exactly as on SQLite.
TermString = String(64).with_variant(String(64, collation="C"), "postgresql")


class UTCDateTime(TypeDecorator[dt.datetime]):
    """A point in time, stored in UTC and always read back timezone-aware on both backends (SQLite keeps no
    zone, PostgreSQL does), so no code above the database ever repairs a naive datetime."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: every stored time is aware (UTC)")
        value = value.astimezone(dt.UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Office(Base):
    """A provider of listings: a broker's office (later also with members)."""

    __tablename__ = "offices"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(100))
    phone: Mapped[str | None] = mapped_column(String(50))
    email: Mapped[str | None] = mapped_column(String(200))
    website: Mapped[str | None] = mapped_column(String(200))
    inquiry_email: Mapped[str | None] = mapped_column(String(200))  # where inquiry notices go; NULL: to `email`
    # action kinds (PendingActionKind values) the office owner allowed to run without a person's click
    send_without_click: Mapped[list[Any]] = mapped_column(JSON, default=list, server_default="[]")
    # where import_listings fetches the office's OpenImmo transfer from (http or https); NULL: upload only
    openimmo_feed_url: Mapped[str | None] = mapped_column(String(500))

    listings: Mapped[list[Listing]] = relationship(back_populates="office")


class Place(Base):
    """A real German place with one of its postal codes; used for place filters, radius and completion."""

    __tablename__ = "places"

    id: Mapped[int] = mapped_column(primary_key=True)
    postal_code: Mapped[str] = mapped_column(String(5), index=True)
    name: Mapped[str] = mapped_column(String(100), index=True)
    name_key: Mapped[str] = mapped_column(String(100), index=True)  # normalised for matching
    state: Mapped[str] = mapped_column(String(40))  # Bundesland
    latitude: Mapped[float] = mapped_column(Float)
    longitude: Mapped[float] = mapped_column(Float)


class Listing(Base):
    """A listing shaped after OpenImmo 1.2.x (objektkategorie, geo, preise, flaechen, zustand_angaben)."""

    __tablename__ = "listings"
    __table_args__ = (
        Index("ix_listings_price", "status", "price", "id"),
        Index("ix_listings_area", "status", "living_area", "id"),
        Index("ix_listings_geo", "latitude", "longitude"),
        Index("ix_listings_city_key", "city_key"),
        Index("ix_listings_postal_code", "postal_code"),
        Index("ix_listings_kind", "marketing_type", "property_type"),
        Index("ix_listings_external", "office_id", "feed", "external_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    ref: Mapped[str] = mapped_column(String(20), unique=True)  # public listing number, e.g. "A-000042"
    office_id: Mapped[int] = mapped_column(ForeignKey("offices.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))  # draft, published, reserved, sold, let, withdrawn
    marketing_type: Mapped[str] = mapped_column(String(10))  # buy, rent
    property_type: Mapped[str] = mapped_column(String(20))  # apartment, house, land, commercial, parking
    property_subtype: Mapped[str | None] = mapped_column(String(40))
    title: Mapped[str] = mapped_column(String(300))
    description: Mapped[str] = mapped_column(Text)
    # the other free texts of an OpenImmo object, each as sent (plain text): <lage>, <ausstatt_beschr>, <sonstige_angaben>
    location_text: Mapped[str | None] = mapped_column(Text)
    equipment_text: Mapped[str | None] = mapped_column(Text)
    other_text: Mapped[str | None] = mapped_column(Text)

    # geo
    postal_code: Mapped[str] = mapped_column(String(5))
    city: Mapped[str] = mapped_column(String(100))
    city_key: Mapped[str] = mapped_column(String(100))
    district: Mapped[str | None] = mapped_column(String(100))
    street: Mapped[str | None] = mapped_column(String(200))
    house_number: Mapped[str | None] = mapped_column(String(20))
    address_published: Mapped[bool] = mapped_column(Boolean, default=False)
    state: Mapped[str] = mapped_column(String(40))
    latitude: Mapped[float] = mapped_column(Float)
    longitude: Mapped[float] = mapped_column(Float)
    coordinates_note: Mapped[str | None] = mapped_column(String(300))  # why they are approximate; NULL: as sent

    # prices: `price` is the purchase price (buy) or the cold rent (rent); NULL when on request
    price: Mapped[float | None] = mapped_column(Float)
    price_on_request: Mapped[bool] = mapped_column(Boolean, default=False)
    service_charges: Mapped[float | None] = mapped_column(Float)  # Nebenkosten (rent) / Hausgeld (buy)
    heating_costs: Mapped[float | None] = mapped_column(Float)
    deposit: Mapped[str | None] = mapped_column(String(100))
    commission: Mapped[str | None] = mapped_column(String(200))  # as the listing states it
    commission_percent: Mapped[float | None] = mapped_column(Float)  # buyer's share incl. VAT

    # areas and rooms
    living_area: Mapped[float | None] = mapped_column(Float)
    plot_area: Mapped[float | None] = mapped_column(Float)
    rooms: Mapped[float | None] = mapped_column(Float)
    bedrooms: Mapped[int | None] = mapped_column(Integer)
    bathrooms: Mapped[int | None] = mapped_column(Integer)
    floor: Mapped[int | None] = mapped_column(Integer)
    year_built: Mapped[int | None] = mapped_column(Integer)
    condition: Mapped[str | None] = mapped_column(String(40))

    # energy certificate (GEG §87): status present | at_viewing | not_required | missing
    energy_status: Mapped[str] = mapped_column(String(20))
    energy_certificate_type: Mapped[str | None] = mapped_column(String(20))  # demand | consumption
    energy_value: Mapped[float | None] = mapped_column(Float)  # kWh/(m²·a)
    energy_class: Mapped[str | None] = mapped_column(String(3))
    energy_carrier: Mapped[str | None] = mapped_column(String(40))
    energy_year_built: Mapped[int | None] = mapped_column(Integer)
    energy_valid_until: Mapped[dt.date | None] = mapped_column(Date)

    photos: Mapped[list[Any]] = mapped_column(JSON, default=list)  # [{"url", "caption", "group"}]
    photos_note: Mapped[str | None] = mapped_column(String(300))  # why there are none (an import says); NULL: not known
    available_from: Mapped[dt.date | None] = mapped_column(Date)
    availability_note: Mapped[str | None] = mapped_column(String(100))  # "sofort", "nach Vereinbarung"

    published_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    # optimistic concurrency: every write through shared.stock_writes raises it by one
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    # where an imported listing came from: the feed (or upload) and its objektnr_extern; NULL for listings made here
    feed: Mapped[str | None] = mapped_column(String(200))
    external_id: Mapped[str | None] = mapped_column(String(100))
    # "<version>:<digest of the fields>" of the import's last write (or check) of this listing: the same object again
    # while the version is unchanged changes nothing (shared.stock_import passes over it without comparing)
    import_digest: Mapped[str | None] = mapped_column(String(60))

    office: Mapped[Office] = relationship(back_populates="listings")
    features: Mapped[list[ListingFeature]] = relationship(cascade="all, delete-orphan", order_by="ListingFeature.feature")


# The newest-first order (published_at DESC NULLS LAST, id) read straight from an index, so a page
# stops after `limit` rows. SQLite puts NULLs last in a DESC index and has no NULLS clause in DDL.
Index("ix_listings_newest", Listing.status, Listing.published_at.desc().nulls_last(), Listing.id).ddl_if(dialect="postgresql")
Index("ix_listings_newest", Listing.status, Listing.published_at.desc(), Listing.id).ddl_if(dialect="sqlite")
# The descending orders of search (price_desc, living_area_desc: DESC NULLS LAST, then id ascending), likewise.
for _name, _column in (("ix_listings_price_desc", Listing.price), ("ix_listings_area_desc", Listing.living_area)):
    Index(_name, Listing.status, _column.desc().nulls_last(), Listing.id).ddl_if(dialect="postgresql")
    Index(_name, Listing.status, _column.desc(), Listing.id).ddl_if(dialect="sqlite")
# Price orders within a marketing type (a search sorted by price names one; rents never mix with purchase prices).
for _name, _kind in (("ix_listings_kind_price", (Listing.marketing_type,)), ("ix_listings_type_price", (Listing.marketing_type, Listing.property_type))):
    Index(_name, Listing.status, *_kind, Listing.price, Listing.id)
    Index(f"{_name}_desc", Listing.status, *_kind, Listing.price.desc().nulls_last(), Listing.id).ddl_if(dialect="postgresql")
    Index(f"{_name}_desc", Listing.status, *_kind, Listing.price.desc(), Listing.id).ddl_if(dialect="sqlite")
# A place's listings by status, marketing type and price: the capped count of a city with a price range reads only
# its matches (migration 0017).
Index("ix_listings_city_kind_price", Listing.city_key, Listing.status, Listing.marketing_type, Listing.price, Listing.id)
# A town's listings newest first, and by property type and price: a search in one town reads only that town's
# listings for its page and its count (migration 0023). The newest-first order also holds kind, type and price
# after its key, so a page's keys are found in the index alone (shared.paging.keyset, migration 0024).
_CITY_NEWEST_HELD = (Listing.id, Listing.marketing_type, Listing.property_type, Listing.price)
Index("ix_listings_city_newest", Listing.city_key, Listing.status, Listing.published_at.desc().nulls_last(), *_CITY_NEWEST_HELD).ddl_if(dialect="postgresql")
Index("ix_listings_city_newest", Listing.city_key, Listing.status, Listing.published_at.desc(), *_CITY_NEWEST_HELD).ddl_if(dialect="sqlite")
Index("ix_listings_city_type_price", Listing.city_key, Listing.status, Listing.marketing_type, Listing.property_type, Listing.price, Listing.id)
# A listing's grid cell: a search around a place names the cells of its box (shared.db.geo_cells, migration 0022);
# with the status and the coordinates in the index, its capped count never reads a listing.
LISTING_GEO_CELL = GeoCell(Listing.latitude, Listing.longitude)
Index("ix_listings_geo_cell", LISTING_GEO_CELL, Listing.status, Listing.latitude, Listing.longitude)

# A rental's warm rent: cold rent + service charges + heating costs, NULL unless every part is known (SQL's + does
# exactly that). An expression rather than a stored column, so no writer can leave it disagreeing with its parts;
# the expression index serves min/max_warm_rent as an index on a column would (only rentals are ever asked for it).
LISTING_WARM_RENT = Listing.price + Listing.service_charges + Listing.heating_costs
Index("ix_listings_warm_rent", Listing.status, Listing.marketing_type, LISTING_WARM_RENT, Listing.id)


class ListingFeature(Base):
    __tablename__ = "listing_features"
    __table_args__ = (Index("ix_listing_features_feature", "feature", "listing_id"),)

    listing_id: Mapped[int] = mapped_column(ForeignKey("listings.id", ondelete="CASCADE"), primary_key=True)
    feature: Mapped[str] = mapped_column(String(30), primary_key=True)


class ListingTerm(Base):
    """Inverted full-text index, written by shared.catalog.fulltext; identical on SQLite and PostgreSQL."""

    __tablename__ = "listing_terms"
    __table_args__ = (Index("ix_listing_terms_term", "term", "listing_id", "position"),)

    listing_id: Mapped[int] = mapped_column(ForeignKey("listings.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    term: Mapped[str] = mapped_column(TermString, primary_key=True)


class CatalogState(Base):
    """One row: the catalog's revision (bumped on every listing change) and when it last changed.

    Cursors are bound to the revision, so a page walk never silently spans two catalog states.
    """

    __tablename__ = "catalog_state"

    id: Mapped[int] = mapped_column(primary_key=True)
    revision: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class ServerSecret(Base):
    """Secrets the deployment creates for itself (e.g. the cursor signing key) when settings give none."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(50), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


class User(Base):
    """A person who signs in: a seeker, or a broker who is a member of an office."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(200), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    password_hash: Mapped[str] = mapped_column(String(300))
    kind: Mapped[str] = mapped_column(String(10))  # seeker | broker
    phone: Mapped[str | None] = mapped_column(String(50))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    memberships: Mapped[list[OfficeMember]] = relationship(back_populates="user")


class OfficeMember(Base):
    __tablename__ = "office_members"

    office_id: Mapped[int] = mapped_column(ForeignKey("offices.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, unique=True)  # one office per broker
    role: Mapped[str] = mapped_column(String(10))  # owner | staff

    user: Mapped[User] = relationship(back_populates="memberships")
    office: Mapped[Office] = relationship()


class SearchOrder(Base):
    """A seeker's saved search (Suchauftrag): catalog filters, alert frequency, opt-in to be approached."""

    __tablename__ = "search_orders"

    id: Mapped[int] = mapped_column(primary_key=True)
    ref: Mapped[str] = mapped_column(String(20), unique=True)  # e.g. "S-000012"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    criteria: Mapped[dict[str, Any]] = mapped_column(JSON)  # CatalogFilters as JSON
    frequency: Mapped[str] = mapped_column(String(10))  # instant | daily | weekly
    status: Mapped[str] = mapped_column(String(10))  # active | paused | ended
    approachable: Mapped[bool] = mapped_column(Boolean, default=False)  # brokers may propose listings
    last_alert_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)  # the last e-mail alert of this search
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class Match(Base):
    """A Treffer: a listing event for a saved search (new, price drop, status change, broker proposal)."""

    __tablename__ = "matches"
    __table_args__ = (
        Index("ix_matches_order_created", "search_order_id", "created_at", "id"),
        # one Treffer per saved search and listing event, however many instances handle the event
        UniqueConstraint("search_order_id", "event_id", name="uq_matches_order_event"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    ref: Mapped[str] = mapped_column(String(20), unique=True)  # "T-000001"
    search_order_id: Mapped[int] = mapped_column(ForeignKey("search_orders.id"))
    listing_id: Mapped[int] = mapped_column(ForeignKey("listings.id"))
    kind: Mapped[str] = mapped_column(String(20))  # new_listing | price_drop | status_change | proposal
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # e.g. {"old_price": …, "new_price": …}
    state: Mapped[str] = mapped_column(String(20), default="new")  # new | seen | interesting | not_interested
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    event_id: Mapped[int | None] = mapped_column(ForeignKey("listing_events.id"))  # NULL for demo rows and proposals
    alerted_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)  # when the seeker's e-mail alert took it along


class Inquiry(Base):
    """A seeker's inquiry to a listing; the listing's office sees it as an inquiry to the office."""

    __tablename__ = "inquiries"
    __table_args__ = (Index("ix_inquiries_office_created", "office_id", "created_at", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    ref: Mapped[str] = mapped_column(String(20), unique=True)  # "I-000001"
    listing_id: Mapped[int] = mapped_column(ForeignKey("listings.id"), index=True)
    office_id: Mapped[int] = mapped_column(ForeignKey("offices.id"))
    seeker_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))  # open | answered | closed
    shared_profile: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # what the seeker agreed to share
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_message_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    messages: Mapped[list[InquiryMessage]] = relationship(order_by="InquiryMessage.created_at, InquiryMessage.id")
    listing: Mapped[Listing] = relationship()


class InquiryMessage(Base):
    __tablename__ = "inquiry_messages"

    id: Mapped[int] = mapped_column(primary_key=True)
    inquiry_id: Mapped[int] = mapped_column(ForeignKey("inquiries.id"), index=True)
    author: Mapped[str] = mapped_column(String(10))  # seeker | office
    author_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class Valuation(Base):
    """A stored value estimate of an office, for one of its listings or for an owner lead."""

    __tablename__ = "valuations"

    id: Mapped[int] = mapped_column(primary_key=True)
    ref: Mapped[str] = mapped_column(String(20), unique=True)  # "V-000001"
    office_id: Mapped[int] = mapped_column(ForeignKey("offices.id"), index=True)
    listing_id: Mapped[int | None] = mapped_column(ForeignKey("listings.id"))
    owner_name: Mapped[str | None] = mapped_column(String(200))  # owner lead, when not a listing
    address: Mapped[str | None] = mapped_column(String(300))
    postal_code: Mapped[str] = mapped_column(String(5))
    city: Mapped[str] = mapped_column(String(100))
    property_type: Mapped[str] = mapped_column(String(20))
    marketing_type: Mapped[str] = mapped_column(String(10))
    living_area: Mapped[float | None] = mapped_column(Float)
    value_low: Mapped[float] = mapped_column(Float)
    value_high: Mapped[float] = mapped_column(Float)
    method: Mapped[str] = mapped_column(String(300))
    comparables: Mapped[list[Any]] = mapped_column(JSON, default=list)  # listing refs
    note: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class Proposal(Base):
    """A Vorschlag: a listing of the office matching a saved search whose seeker opted in to be approached."""

    __tablename__ = "proposals"
    __table_args__ = (Index("ix_proposals_office_status", "office_id", "status", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    ref: Mapped[str] = mapped_column(String(20), unique=True)  # "P-000001"
    office_id: Mapped[int] = mapped_column(ForeignKey("offices.id"))
    listing_id: Mapped[int] = mapped_column(ForeignKey("listings.id"))
    search_order_id: Mapped[int] = mapped_column(ForeignKey("search_orders.id"))
    status: Mapped[str] = mapped_column(String(20))  # open | accepted | rejected
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    decided_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    event_id: Mapped[int | None] = mapped_column(ForeignKey("listing_events.id"))  # the event that made it; NULL for demo rows


class ListingStatusChange(Base):
    """The status history of a listing (who changed it, when, from what to what)."""

    __tablename__ = "listing_status_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    listing_id: Mapped[int] = mapped_column(ForeignKey("listings.id"), index=True)
    old_status: Mapped[str | None] = mapped_column(String(20))
    new_status: Mapped[str] = mapped_column(String(20))
    changed_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    changed_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    reason: Mapped[str | None] = mapped_column(String(300))  # why, as the broker said it


class PendingAction(Base):
    """A prepared outbound action (draft reply, inquiry, proposal decision) that waits for a human's click.

    Created by the draft_/send_/decide_ tools, executed once by `shared.confirmations.execute`. The card's token is
    never stored: only its SHA-256 (`token_hash`); `token_salt` lets the server derive the same token again.
    """

    __tablename__ = "pending_actions"

    id: Mapped[int] = mapped_column(primary_key=True)
    ref: Mapped[str] = mapped_column(String(20), unique=True)  # "C-000001"
    kind: Mapped[str] = mapped_column(String(30))  # send_reply | send_inquiry | decide_proposal
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    office_id: Mapped[int | None] = mapped_column(ForeignKey("offices.id"), index=True)
    subject_ref: Mapped[str] = mapped_column(String(20))  # the inquiry / proposal it acts on
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    summary: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(20))  # pending | sent | discarded | expired
    token_hash: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    payload_hash: Mapped[str | None] = mapped_column(String(64))  # SHA-256 of the canonical payload the card shows
    token_salt: Mapped[str | None] = mapped_column(String(64))
    decision: Mapped[str | None] = mapped_column(String(10))  # send | discard
    via: Mapped[str | None] = mapped_column(String(10))  # card | app | no_click
    executed_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    updated_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class OutboxMessage(Base):
    """One e-mail to deliver, written in the same transaction as the message it announces. The worker claims a row
    (queued → sending, conditionally), sends it with its own Message-ID, and marks it sent; a failure goes back to
    queued with a later `next_attempt_at`, and after the last attempt to failed (the sender is told)."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_due", "status", "next_attempt_at", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))  # inquiry | reply | expose | alert
    pending_action_id: Mapped[int | None] = mapped_column(ForeignKey("pending_actions.id"))
    inquiry_id: Mapped[int | None] = mapped_column(ForeignKey("inquiries.id"), index=True)
    sender_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    sender_office_id: Mapped[int | None] = mapped_column(ForeignKey("offices.id"))
    recipient: Mapped[str | None] = mapped_column(String(200))  # e-mail address; None: nobody to write to
    subject: Mapped[str] = mapped_column(String(300))
    body: Mapped[str] = mapped_column(Text)
    message_id: Mapped[str] = mapped_column(String(200), unique=True)
    status: Mapped[str] = mapped_column(String(20))  # queued | sending | sent | failed | skipped
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    claimed_until: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    sent_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class ListingEvent(Base):
    """Something a saved search hears about: a listing published, its price lowered, its status changed.

    Written in the transaction of the write that caused it (shared.stock_writes); matches and proposals hang off it,
    one per saved search and event (unique), so an event handled twice never makes a second Treffer."""

    __tablename__ = "listing_events"
    __table_args__ = (UniqueConstraint("listing_id", "version", "kind", name="uq_listing_events_version_kind"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    listing_id: Mapped[int] = mapped_column(ForeignKey("listings.id"), index=True)
    version: Mapped[int] = mapped_column(Integer)  # the listing's version the event made
    kind: Mapped[str] = mapped_column(String(20))  # published | price_drop | status_change
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class AuditEntry(Base):
    """One write of a tool (or the import): who, with which client, what, the state before and after."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_subject", "subject_ref", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    client_id: Mapped[str | None] = mapped_column(String(200))
    office_id: Mapped[int | None] = mapped_column(ForeignKey("offices.id"), index=True)
    action: Mapped[str] = mapped_column(String(40))  # listing.create | listing.change | listing.status | valuation.save | …
    subject_ref: Mapped[str] = mapped_column(String(20))  # A-…, V-…, S-…, T-…
    subject_version: Mapped[int | None] = mapped_column(Integer)  # a listing's version after the write
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class IdempotencyKey(Base):
    """A write's key under retry: the same key with the same request returns the stored outcome and changes nothing."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("user_id", "operation", "key", name="uq_idempotency_keys_user_operation_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    operation: Mapped[str] = mapped_column(String(40))  # save_listing, update_listing_status, …
    key: Mapped[str] = mapped_column(String(200))
    request_hash: Mapped[str] = mapped_column(String(64))
    outcome: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
