"""Handlers of the stock's write side: save_listing and update_listing_status, thin over `shared.stock_writes`."""

from __future__ import annotations

from sqlalchemy.orm import Session

from contract.broker_writes import SaveListingInput, SaveListingOutput, UpdateListingStatusInput, UpdateListingStatusOutput
from contract.vocabulary import ListingStatus, WriteResult, label, labelled
from shared import german, publishing
from shared.catalog.search import PUBLIC_STATUSES
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.stock_writes import change_status, save_listing
from shared.stock_writes.fields import field_labels
from shared.write_log import in_one_transaction

def _made_text(matches: int, proposals: int = 0) -> str:
    parts = []
    if matches:
        parts.append(german.plural(matches, "neuer Treffer", "neue Treffer") + " für Suchaufträge")
    if proposals:
        parts.append(german.plural(proposals, "neuer Vorschlag", "neue Vorschläge"))
    return (" " + " und ".join(parts) + ".") if parts else ""


def save_listing_tool(args: SaveListingInput, ctx: ToolContext) -> SaveListingOutput:
    office = ctx.office()
    caller = ctx.caller
    assert caller is not None
    now = ctx.now()

    def write(session: Session) -> SaveListingOutput:
        outcome = save_listing(
            session,
            office_id=office.office_id,
            user_id=caller.user_id,
            client_id=caller.client_id,
            fields=args.fields.model_dump(mode="json", exclude_unset=True),
            listing_ref=args.listing_id,
            expected_version=args.version,
            idempotency_key=args.request_id,
            now=now,
        )
        listing = outcome.listing
        failed = publishing.failed_blocking_rules(listing, now.date())
        if outcome.result is WriteResult.unchanged:
            sentence = f"{listing.ref} ist unverändert: die gesendeten Angaben stimmen schon."
        elif outcome.result is WriteResult.created:
            sentence = f"{listing.ref} ist als Entwurf angelegt (Version {listing.version})."
        else:
            sentence = f"{listing.ref} ist geändert (Version {listing.version}): {', '.join(field_labels(outcome.changed_fields))}."
        if outcome.replayed:
            sentence = "Wiederholung (request_id): nichts erneut geändert. " + sentence
        if failed:
            sentence += " Zum Veröffentlichen fehlt noch: " + ", ".join(r.rule_label for r in failed) + "."
        elif listing.status == ListingStatus.draft.value:
            sentence += " Es kann mit update_listing_status veröffentlicht werden."
        return SaveListingOutput(
            listing_id=listing.ref,
            **labelled("result", outcome.result),
            version=listing.version,
            changed_fields=outcome.changed_fields,
            changed_field_labels=field_labels(outcome.changed_fields),
            **labelled("status", ListingStatus(listing.status)),
            publishable=not failed,
            failed_rule_labels=[r.rule_label for r in failed],
            replayed=outcome.replayed,
            matches_made=outcome.made.matches,
            summary=sentence + _made_text(outcome.made.matches),
        )

    return in_one_transaction(ctx.db, write)


def update_listing_status(args: UpdateListingStatusInput, ctx: ToolContext) -> UpdateListingStatusOutput:
    office = ctx.office()
    caller = ctx.caller
    assert caller is not None
    now = ctx.now()

    def write(session: Session) -> UpdateListingStatusOutput:
        outcome = change_status(
            session,
            office_id=office.office_id,
            user_id=caller.user_id,
            client_id=caller.client_id,
            listing_ref=args.listing_id,
            status=args.status,
            reason=args.reason,
            now=now,
            expected_version=args.version,
            idempotency_key=args.request_id,
        )
        listing = outcome.listing
        old, new = outcome.old_status, outcome.new_status
        in_catalog = listing.status in PUBLIC_STATUSES
        if outcome.result is WriteResult.unchanged:
            sentence = f"{listing.ref} ist schon {label(new)}: nichts geändert."
        else:
            where = "steht im Katalog" if in_catalog else "ist nicht im Katalog und bleibt im Bestand deines Büros"
            sentence = f"{listing.ref}: {label(old)} → {label(new)}; es {where}."
        if outcome.replayed:
            sentence = "Wiederholung (request_id): nichts erneut geändert. " + sentence
        return UpdateListingStatusOutput(
            listing_id=listing.ref,
            **labelled("result", outcome.result),
            old_status=old,
            new_status=new,
            status_label=f"{label(old)} → {label(new)}" if old is not new else label(new),
            version=listing.version,
            in_catalog=in_catalog,
            replayed=outcome.replayed,
            matches_made=outcome.made.matches,
            proposals_made=outcome.made.proposals,
            summary=sentence + _made_text(outcome.made.matches, outcome.made.proposals),
        )

    return in_one_transaction(ctx.db, write)


HANDLERS: dict[str, Handler] = {"save_listing": save_listing_tool, "update_listing_status": update_listing_status}
