"""Handler of check_listing: finds the listing and its comparables; the publishing check (`shared.publishing`)
gives the verdicts."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from broker_server.lookups import own_listing
from contract.broker_stock import CheckListingInput, CheckListingOutput
from contract.envelope import Freshness
from shared import publishing
from shared.catalog import search as engine
from shared.comparables import comparables_in_city
from shared.db.models import Listing
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler


def check_result(session: Session, listing: Listing, now: dt.datetime, freshness: Freshness) -> CheckListingOutput:
    """The publishing check of `listing`; comparables are looked up only where a price per m² can be compared."""
    found = None if publishing.why_not_comparable(listing) else comparables_in_city(session, listing)
    return publishing.check(listing, found, now, freshness)


def check_listing(args: CheckListingInput, ctx: ToolContext) -> CheckListingOutput:
    office = ctx.office()
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session, ctx.catalog)
        listing = own_listing(session, office, args.listing_id)
        return check_result(session, listing, ctx.now(), snap.freshness)


HANDLERS: dict[str, Handler] = {"check_listing": check_listing}
