"""One OpenImmo transfer into an office's stock, every write through `shared.stock_writes`.

Two passes over the same bytes. The first reads the whole transfer without touching the database: a transfer that
cannot be read (too large, a DOCTYPE, not well-formed, no `<uebertragung>`, a name collision in the header) changes
nothing. The second writes object by object, each in its own savepoint (a refused object leaves no trace), a
batch of objects per transaction, so memory stays flat however long the transfer is.

Which listing an object is: (office, feed, objektnr_extern), the feed being the `<anbieter>`'s openimmo_anid. A
listing made in Athaus has no feed and is never touched by an import.

Withdrawing rests on absence, so it needs evidence (seed 002): only a complete transfer (umfang="VOLL") withdraws,
only listings of a feed the transfer carries, and not at all when an object of it had no objektnr_extern (it might
be any of them) or when it holds no object at all.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from sqlalchemy import select
from sqlalchemy.orm import Session

from contract.broker_import import RESULTS_SHOWN, ExcludedCount, ImportCounts, ImportListingsOutput, ObjectResult
from contract.envelope import AbsenceReason, Absent
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import (
    ImportAction,
    ImportOutcome,
    ListingStatus,
    TransferScope,
    TransferSource,
    ValueExclusion,
    WriteResult,
    label,
    labelled,
)
from shared.db.models import Listing
from shared.db.session import Database
from shared.german import plural
from shared.openimmo import Header, ParsedObject, TransferError, read_transfer
from shared.stock_writes import change_status, save_listing
from shared.telemetry.metrics import IMPORT_OBJECTS, IMPORTS_RUNNING

BATCH = 200  # objects per transaction
PROGRESS_EVERY_SECONDS = 0.5
FEED_PREFIX = "openimmo"
# fields a listing always has: an absent value in the transfer leaves them as they are (or to their default)
KEPT_WHEN_ABSENT = frozenset({"state", "latitude", "longitude", "description", "address_published", "price_on_request",
                              "energy_status", "photos"})
GONE = (ListingStatus.withdrawn.value, ListingStatus.sold.value, ListingStatus.let.value)
DELETE_REASON = "Löschung (aktion DELETE) in der OpenImmo-Übertragung"
MISSING_REASON = "Nicht mehr in der vollständigen OpenImmo-Übertragung (umfang VOLL)"
NO_KEY = Absent(reason=AbsenceReason.empty_in_source, note="Das Objekt hat keine objektnr_extern.")
NO_LISTING = Absent(reason=AbsenceReason.empty_in_source, note="Kein Inserat angelegt.")
NO_REASON = Absent(reason=AbsenceReason.empty_in_source, note="Kein besonderer Grund.")

Progress = Callable[[float, float | None, str | None], None]


def feed_of(provider: str | None) -> str:
    return f"{FEED_PREFIX}:{provider}"[:200] if provider else FEED_PREFIX


@dataclass
class _Run:
    header: Header
    total: int
    results: list[ObjectResult] = field(default_factory=list)
    counts: dict[ImportOutcome, int] = field(default_factory=lambda: dict.fromkeys(ImportOutcome, 0))
    excluded: dict[tuple[str, ValueExclusion], list[object]] = field(default_factory=dict)  # → [count, example]
    seen: dict[str, set[str]] = field(default_factory=dict)  # feed → objektnr_extern in this transfer
    keyless: int = 0
    listed: int = 0

    def add(self, result: ObjectResult) -> None:
        self.counts[result.outcome] += 1
        self.listed += 1
        if len(self.results) < RESULTS_SHOWN:
            self.results.append(result)


def survey(source: IO[bytes], *, max_bytes: int) -> tuple[Header, int]:
    """Read the whole transfer once without the database: its header and how many objects it has."""
    header: Header | None = None
    objects = 0
    try:
        for item in read_transfer(source, max_bytes=max_bytes):
            if isinstance(item, Header):
                header = item
            else:
                objects += 1
    except TransferError as error:
        code = ErrorCode.INVALID_ARGUMENT if error.kind in ("too_large", "doctype", "malformed") else ErrorCode.UPSTREAM_SCHEMA
        raise ToolFailure(code, f"{error.german} Nichts wurde geändert.") from None
    assert header is not None  # the reader raises without one
    source.seek(0)
    return header, objects


def import_transfer(
    db: Database,
    source: IO[bytes],
    *,
    source_kind: TransferSource,
    office_id: int,
    user_id: int | None,
    client_id: str | None,
    max_bytes: int,
    publish: bool,
    now: dt.datetime,
    progress: Progress | None = None,
) -> ImportListingsOutput:
    with IMPORTS_RUNNING.track_inprogress():
        return _import(db, source, source_kind, office_id, user_id, client_id, max_bytes, publish, now, progress)


def _import(
    db: Database, source: IO[bytes], source_kind: TransferSource, office_id: int, user_id: int | None, client_id: str | None,
    max_bytes: int, publish: bool, now: dt.datetime, progress: Progress | None,
) -> ImportListingsOutput:
    header, total = survey(source, max_bytes=max_bytes)
    run = _Run(header, total)
    last_report = time.monotonic()
    done = 0
    objects = (item for item in read_transfer(source, max_bytes=max_bytes) if isinstance(item, ParsedObject))
    while True:
        with db.unit_of_work() as session:
            batch = 0
            for obj in objects:
                run.add(_one(session, obj, run, office_id, user_id, client_id, publish, now))
                done += 1
                batch += 1
                IMPORT_OBJECTS.inc()
                if progress is not None and time.monotonic() - last_report >= PROGRESS_EVERY_SECONDS:
                    progress(done, total, f"{done} von {total} Objekten verarbeitet")
                    last_report = time.monotonic()
                if batch >= BATCH:
                    break
        if batch < BATCH:
            break
    warnings = list(header.warnings)
    withdrawn = _withdraw_missing(db, run, office_id, user_id, client_id, now, warnings)
    if progress is not None:
        progress(total, total, f"{total} von {total} Objekten verarbeitet")
    return _output(run, source_kind, withdrawn, warnings)


def _one(
    session: Session, obj: ParsedObject, run: _Run, office_id: int, user_id: int | None, client_id: str | None,
    publish: bool, now: dt.datetime,
) -> ObjectResult:
    feed = feed_of(obj.provider)
    action = ImportAction(obj.action)
    if obj.key is None:
        run.keyless += 1
    else:
        run.seen.setdefault(feed, set()).add(obj.key)

    def result(outcome: ImportOutcome, ref: str | None = None, reason: str | None = None) -> ObjectResult:
        return ObjectResult(
            objektnr_extern=obj.key if obj.key is not None else NO_KEY, position=obj.position, action=action,
            **labelled("outcome", outcome), listing_id=ref or NO_LISTING, reason=reason or NO_REASON,
            excluded_fields=sorted({e.field for e in obj.excluded}) if outcome is not ImportOutcome.refused else [],
        )

    if obj.refusal is not None:
        return result(ImportOutcome.refused, reason=obj.refusal)
    existing = session.execute(
        select(Listing.ref, Listing.status).where(
            Listing.office_id == office_id, Listing.feed == feed, Listing.external_id == obj.key
        ).order_by(Listing.id).limit(1)
    ).first()
    try:
        with session.begin_nested():
            if action is ImportAction.delete:
                if existing is None:
                    return result(
                        ImportOutcome.refused,
                        reason="Löschung eines Objekts, das im Bestand aus diesem Feed nicht vorkommt; nichts zurückgezogen.",
                    )
                if existing.status in GONE:
                    return result(ImportOutcome.unchanged, existing.ref, f"Schon {label(ListingStatus(existing.status))}.")
                change_status(session, office_id=office_id, user_id=user_id, client_id=client_id, listing_ref=existing.ref,
                              status=ListingStatus.withdrawn, reason=DELETE_REASON, now=now)
                return result(ImportOutcome.withdrawn, existing.ref, DELETE_REASON)
            fields = {k: v for k, v in obj.fields.items() if v is not None or k not in KEPT_WHEN_ABSENT}
            fields["features"] = obj.features
            saved = save_listing(
                session, office_id=office_id, user_id=user_id, client_id=client_id, fields=fields,
                listing_ref=existing.ref if existing is not None else None, expected_version=None,
                idempotency_key=None, now=now, feed=feed, external_id=obj.key,
            )
    except ToolFailure as failure:
        return result(ImportOutcome.refused, existing.ref if existing is not None else None, failure.message)
    for excluded in obj.excluded:
        entry = run.excluded.setdefault((excluded.field, excluded.reason), [0, excluded.raw])
        entry[0] = int(entry[0]) + 1  # type: ignore[call-overload]
    ref = saved.listing.ref
    outcome = {
        WriteResult.created: ImportOutcome.created, WriteResult.changed: ImportOutcome.changed,
    }.get(saved.result, ImportOutcome.unchanged)
    if outcome is not ImportOutcome.created or not publish:
        return result(outcome, ref)
    try:
        with session.begin_nested():
            change_status(session, office_id=office_id, user_id=user_id, client_id=client_id, listing_ref=ref,
                          status=ListingStatus.published, reason="OpenImmo-Import", now=now)
    except ToolFailure as failure:
        return result(outcome, ref, f"Als Entwurf angelegt, nicht veröffentlicht: {failure.message}")
    return result(outcome, ref, "Angelegt und veröffentlicht.")


def _withdraw_missing(
    db: Database, run: _Run, office_id: int, user_id: int | None, client_id: str | None, now: dt.datetime,
    warnings: list[str],
) -> list[str]:
    if run.header.scope != "full":
        return []
    if run.keyless:
        warnings.append(
            f"{plural(run.keyless, 'Objekt hat', 'Objekte haben')} keine objektnr_extern; weil "
            "nicht zu erkennen ist, welches Objekt im Bestand gemeint ist, wurde trotz umfang VOLL nichts zurückgezogen."
        )
        return []
    if not run.seen:
        warnings.append("Die vollständige Übertragung enthält kein Objekt; aus Vorsicht wurde nichts zurückgezogen.")
        return []
    withdrawn: list[str] = []
    with db.unit_of_work() as session:
        for feed, keys in sorted(run.seen.items()):
            rows = session.execute(
                select(Listing.ref, Listing.external_id).where(
                    Listing.office_id == office_id, Listing.feed == feed, Listing.status.not_in(GONE)
                ).order_by(Listing.external_id, Listing.id)
            ).all()
            for ref, key in rows:
                if key in keys:
                    continue
                change_status(session, office_id=office_id, user_id=user_id, client_id=client_id, listing_ref=ref,
                              status=ListingStatus.withdrawn, reason=MISSING_REASON, now=now)
                withdrawn.append(key)
                run.add(ObjectResult(
                    objektnr_extern=key, position=0, action=ImportAction.delete, **labelled("outcome", ImportOutcome.withdrawn),
                    listing_id=ref, reason=MISSING_REASON, excluded_fields=[],
                ))
    return withdrawn


def _output(run: _Run, source_kind: TransferSource, withdrawn: list[str], warnings: list[str]) -> ImportListingsOutput:
    counts = ImportCounts(**{outcome.value: n for outcome, n in run.counts.items()})
    excluded = [
        ExcludedCount(field=name, **labelled("reason", reason), count=int(entry[0]), example=str(entry[1]))  # type: ignore[call-overload]
        for (name, reason), entry in sorted(run.excluded.items())
    ]
    scope = TransferScope(run.header.scope)
    parts = [f"{n} {label(outcome)}" for outcome, n in run.counts.items() if n]
    summary = f"{plural(run.total, 'Objekt', 'Objekte')} gelesen ({label(scope)}): {', '.join(parts) or 'nichts zu tun'}."
    if withdrawn:
        summary += f" Davon {len(withdrawn)} zurückgezogen, weil die vollständige Übertragung sie nicht mehr enthielt."
    not_numbers = sum(e.count for e in excluded)
    if not_numbers:
        summary += f" {plural(not_numbers, 'Wert war keine Zahl und wurde', 'Werte waren keine Zahl und wurden')} nicht gespeichert."
    return ImportListingsOutput(
        **labelled("source", source_kind), **labelled("scope", scope), objects_read=run.total, counts=counts,
        withdrawn_missing=withdrawn, excluded_values=excluded, results=run.results,
        results_complete=run.listed <= RESULTS_SHOWN, warnings=warnings, summary=summary,
    )
