"""Writing an office's stock, without MCP: the one path every listing write takes (the tools save_listing and
update_listing_status, and the OpenImmo import).

    from shared.stock_writes import save_listing, change_status

    with db.unit_of_work() as session:          # one transaction per write; the caller commits
        outcome = save_listing(
            session,
            office_id=1, user_id=7, client_id="chatgpt",   # user_id None: a system write (no idempotency key kept)
            fields={"title": "…", "price": 289000},       # ListingFields names; only sent keys change, None clears
            listing_ref=None,                              # None: create a draft; "A-0000042": change that listing
            expected_version=None,                         # the version the caller read; older → CONFLICT naming fields
            idempotency_key="req-123",                     # same key + same request → stored outcome, nothing twice
            now=now,
            feed=None, external_id=None,                   # the import: where it came from (objektnr_extern)
        )
        outcome.result          # WriteResult.created | changed | unchanged
        outcome.listing         # the Listing row (ref, version, status, …)
        outcome.changed_fields  # field names that changed (all written fields on create)
        outcome.replayed        # True: the key was seen, nothing was done
        outcome.made            # MatchCounts(matches, proposals) the write's listing event made

        change_status(session, office_id=1, user_id=7, client_id=None, listing_ref="A-0000042",
                      status="published", reason=None, now=now, expected_version=None, idempotency_key=None)
        # -> StatusOutcome(result, listing, old_status, new_status, replayed, made)

What a write does, in the caller's transaction:

- validates `fields` against `contract.broker_writes.ListingFields` (German INVALID_ARGUMENT naming the field),
  fills state and coordinates from the postal code, checks what only makes sense together (price vs. "Preis auf
  Anfrage", fields that cannot be cleared, the required ones on create);
- locks the listing row (PostgreSQL `FOR UPDATE`), checks `expected_version` (CONFLICT with the fields changed
  since, read from the audit log), raises `Listing.version` by one on every real change (an unchanged save
  changes nothing, not even the version);
- rewrites the listing's full-text terms when a text field changed (`shared.catalog.indexing`), bumps the
  catalog revision (open cursors end with CURSOR_EXPIRED), writes the status history on create and on every
  status change (with the reason);
- writes one audit row (`shared.write_log.audit`: user, client, office, action, before/after) per real change,
  and stores the outcome under the idempotency key (`shared.write_log`);
- emits the listing event for matching (`shared.matching.events.listing_event`): a published listing whose
  price drops (save_listing), a listing published or leaving published/reserved (change_status); the event makes
  the Treffer and proposals once and NOTIFYs the other instances on PostgreSQL.

Status rules (change_status): publishing refuses a listing that fails a blocking rule of check_listing
(`shared.publishing.failed_blocking_rules`; CONFLICT naming each rule); sold only for buy, let only for rent; back to
draft only from withdrawn; each publication from draft or withdrawn sets `published_at` (a republished listing is new
in the catalog; its first publication stays in the status history). A withdrawn listing is out of the catalog
(not published) and stays in the office's stock. The same status again is `unchanged`.

For the import: `create_listings(session, office_id=, user_id=, client_id=, items=[NewListing(fields, feed,
external_id)], now=, revise=)` creates many drafts as save_listing creates one (save_listing's creation is this with
one item), in a few statements; `plan_change(session, listing, fields)` says what a save would change without writing
(the import passes over unchanged objects with it, and its preview shows the changes); `revise=False` on every write
leaves the one revision bump of a whole transaction to the caller. `listing_by_external_id(session, office_id=, feed=, external_id=)` finds the listing a feed's object
became (pass its ref as `listing_ref` to change it), `feed_refs(session, office_id=, feed=)` maps external_id → ref of
the feed's listings that are not withdrawn (a VOLL transfer withdraws the missing ones with change_status).

`save_valuation(session, *, office_id, user_id, client_id, values, listing_ref, idempotency_key, now)` stores a
valuation (for a listing of the office, whose data then apply, or for an owner lead), with audit row and key.

Errors are `contract.errors.ToolFailure` (NOT_FOUND for a listing outside the office, also another office's).
"""

from shared.matching.events import MatchCounts
from shared.stock_writes.fields import WRITABLE, field_labels, state_of
from shared.stock_writes.listings import (
    ChangePlan,
    NewListing,
    SaveOutcome,
    StatusOutcome,
    change_status,
    create_listings,
    draft_of,
    feed_refs,
    listing_by_external_id,
    locked_listing,
    plan_change,
    save_listing,
)
from shared.stock_writes.valuations import ValuationOutcome, save_valuation

__all__ = [
    "WRITABLE",
    "ChangePlan",
    "MatchCounts",
    "NewListing",
    "SaveOutcome",
    "StatusOutcome",
    "change_status",
    "create_listings",
    "draft_of",
    "feed_refs",
    "field_labels",
    "listing_by_external_id",
    "locked_listing",
    "plan_change",
    "save_listing",
    "save_valuation",
    "state_of",
    "ValuationOutcome",
]
