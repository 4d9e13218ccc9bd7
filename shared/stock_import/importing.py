"""One OpenImmo transfer into an office's stock, every write through `shared.stock_writes`.

Two passes over the same bytes. The first reads the whole transfer without touching the database and without reading
inside the objects (a survey): a transfer that cannot be read (too large, a DOCTYPE, not well-formed, a name collision
in the header) changes nothing. A transfer without `<uebertragung>` (as portal exports come) is read as TEIL, and the
result says so. The second pass maps the objects and writes them a chunk per transaction (`_Chunk`), so memory stays
flat however long the transfer is: the chunk's listings are read in one query (ref, version and `import_digest`
only), an object sending the very fields the import last wrote to a listing nobody has written since (the digest
stored with that version) is passed over without loading it; the others are loaded in one more query and compared
as `save_listing` compares (`plan_change`), an unchanged one written nothing but its digest, new listings are created together,
`PROGRESS_EVERY` at a time so progress keeps coming (`shared.stock_writes.create_listings`), their listing events
made once per chunk, and the catalog revision is bumped once per chunk. With `preview` the same
reading, validation and comparison run on a read-only session: nothing is written.

Which listing an object is: (office, feed, objektnr_extern), the feed being the `<anbieter>`'s openimmo_anid. A
listing made in Athaus has no feed and is never touched by an import.

Withdrawing rests on absence, so it needs evidence (seed 002): only a complete transfer (umfang="VOLL") withdraws,
only listings of a feed the transfer carries, and not at all when an object of it had no objektnr_extern (it might
be any of them) or when it holds no object at all.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import islice
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session, selectinload
from sqlalchemy.orm.attributes import flag_modified

from contract.broker_import import RESULTS_SHOWN, ExcludedCount, ImportCounts, ImportListingsOutput, ImportNote, ObjectResult
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
from shared.matching.events import EventBatch
from shared import publishing
from shared.catalog.indexing import bump_revision
from shared.openimmo import Header, ParsedObject, TransferError, TransferReader, read_transfer
from shared.images import ImageStore
from shared.stock_import.pictures import store_files
from shared.stock_import.placing import place_object
from shared.stock_import.transfer_zip import is_zip, open_transfer_zip
from shared.stock_writes import NewListing, change_status, create_listings, draft_of, field_labels, plan_change, save_listing
from shared.telemetry.metrics import IMPORT_OBJECTS, IMPORTS_RUNNING

CHUNK = 500  # objects per transaction: read in one query, created in a few statements
DIGEST_SCHEME = "2"  # raise when the mapping or save_listing's derivations change: the next import compares everything once
PROGRESS_EVERY = 100  # objects: a note at least this often; new listings are created this many together
PROGRESS_EVERY_SECONDS = 0.5  # and a note when this much time has passed, however few objects were done
FEED_PREFIX = "openimmo"
# fields a listing always has: an absent value in the transfer leaves them as they are (or to their default)
KEPT_WHEN_ABSENT = frozenset({"state", "latitude", "longitude", "description", "address_published", "price_on_request",
                              "energy_status", "photos", "photos_note"})
GONE = (ListingStatus.withdrawn.value, ListingStatus.sold.value, ListingStatus.let.value)
DELETE_REASON = "Löschung (aktion DELETE) in der OpenImmo-Übertragung"
MISSING_REASON = "Nicht mehr in der vollständigen OpenImmo-Übertragung (umfang VOLL)"
NO_KEY = Absent(reason=AbsenceReason.empty_in_source, note="Das Objekt hat keine objektnr_extern.")
NO_LISTING = Absent(reason=AbsenceReason.empty_in_source, note="Kein Inserat angelegt.")
PREVIEW_LABELS = {
    ImportOutcome.created: "würde angelegt", ImportOutcome.changed: "würde geändert", ImportOutcome.unchanged: "unverändert",
    ImportOutcome.withdrawn: "würde zurückgezogen", ImportOutcome.refused: "würde abgelehnt",
}
NO_REASON = Absent(reason=AbsenceReason.empty_in_source, note="Kein besonderer Grund.")

Progress = Callable[[float, float | None, str | None], None]
Planned = tuple[ParsedObject, dict[str, Any] | None, str | None, str | None]  # object, fields, digest, ref if unchanged


def feed_of(provider: str | None) -> str:
    return f"{FEED_PREFIX}:{provider}"[:200] if provider else FEED_PREFIX


def digest_of(fields: dict[str, object]) -> str:
    """A digest of the fields an object sends (Listing.import_digest stores it with the version it left)."""
    text = json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.blake2b((DIGEST_SCHEME + text).encode(), digest_size=16).hexdigest()


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
        for item in TransferReader(source, max_bytes=max_bytes, survey=True):
            if isinstance(item, Header):
                header = item
            else:
                objects += 1
    except TransferError as error:
        code = ErrorCode.INVALID_ARGUMENT if error.kind in ("too_large", "doctype", "malformed") else ErrorCode.UPSTREAM_SCHEMA
        raise ToolFailure(code, f"{error.german} Nichts wurde geändert.") from None
    assert header is not None  # the reader gives one (assumed TEIL when the transfer has none)
    source.seek(0)
    return header, objects


class _Clock:
    """Progress as objects are done (a new listing once it is created): a note every PROGRESS_EVERY objects or
    PROGRESS_EVERY_SECONDS, whichever comes first, and one at the end."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done, self.noted, self.last = progress, total, 0, 0, time.monotonic()

    def tick(self, objects: int = 1) -> None:
        self.done += objects
        IMPORT_OBJECTS.inc(objects)
        if self.progress is None:
            return
        if self.done - self.noted >= PROGRESS_EVERY or time.monotonic() - self.last >= PROGRESS_EVERY_SECONDS:
            self.progress(self.done, self.total, f"{self.done} von {self.total} Objekten verarbeitet")
            self.noted, self.last = self.done, time.monotonic()


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
    preview: bool = False,
    images: ImageStore | None = None,
    public_url: str = "",
) -> ImportListingsOutput:
    """`preview`: the same reading, validation and comparison, nothing written: what would be created, changed,
    withdrawn and refused. `source` may be a ZIP transfer (the XML and its photos): the photos go to `images`, shown
    under `public_url`."""
    attachments = None
    if is_zip(source):
        source, attachments = open_transfer_zip(source, max_bytes=max_bytes)
    with IMPORTS_RUNNING.track_inprogress():
        return _import(db, source, source_kind, office_id, user_id, client_id, max_bytes, publish, now, progress, preview,
                       lambda obj: store_files(place_object(obj), attachments, images, public_url, preview=preview))


def _import(
    db: Database, source: IO[bytes], source_kind: TransferSource, office_id: int, user_id: int | None, client_id: str | None,
    max_bytes: int, publish: bool, now: dt.datetime, progress: Progress | None, preview: bool,
    prepare: Callable[[ParsedObject], ParsedObject],
) -> ImportListingsOutput:
    header, total = survey(source, max_bytes=max_bytes)
    if progress is not None:  # the transfer is read through once: say so before the first chunk is mapped and written
        progress(0, total, f"Übertragung geprüft: {plural(total, 'Objekt', 'Objekte')}, 0 von {total} verarbeitet")
    run = _Run(header, total)
    clock = _Clock(progress, total)
    objects = (prepare(item) for item in read_transfer(source, max_bytes=max_bytes) if isinstance(item, ParsedObject))
    while chunk := list(islice(objects, CHUNK)):
        if preview:
            with db.read_only() as session:
                _Chunk(session, run, office_id, user_id, client_id, publish, now, clock, preview=True).write(chunk)
        else:
            with db.unit_of_work() as session:
                _Chunk(session, run, office_id, user_id, client_id, publish, now, clock, preview=False).write(chunk)
    warnings = list(header.warnings)
    withdrawn = _withdraw_missing(db, run, office_id, user_id, client_id, now, warnings, preview)
    if progress is not None:
        progress(total, total, f"{total} von {total} Objekten verarbeitet")
    return _output(run, source_kind, withdrawn, warnings, preview)


@contextmanager
def _planned_for_their_values(session: Session) -> Iterator[None]:
    """PostgreSQL: the chunk's reads planned for their own values. psycopg prepares a statement run five times, and
    the server then reuses a generic plan when it looks no dearer; right after a first import its statistics still
    count the few listings there were before, so the generic plan of the chunk's read (500 objektnr_extern in IN)
    filters every listing of the office against the whole list (about a second per chunk at 10,000 listings) where
    the plan for the values probes the index. Only around the reads: the foreign-key checks of the chunk's COPY
    (one per row) keep their cached plans."""
    postgresql = session.get_bind().dialect.name == "postgresql"
    if postgresql:
        session.execute(text("SET LOCAL plan_cache_mode = force_custom_plan"))
    yield
    if postgresql:
        session.execute(text("SET LOCAL plan_cache_mode TO DEFAULT"))


class _Chunk:
    """One transaction's worth of objects (CHUNK): the listings they name read in one query, unchanged objects passed
    over without a write, new ones created together (`create_listings`, PROGRESS_EVERY at a time), changes and deletions one by one through
    `save_listing` and `change_status`, one revision bump at the end. A refused object writes nothing: every write
    function refuses before it writes, so no savepoint is needed."""

    def __init__(self, session: Session, run: _Run, office_id: int, user_id: int | None, client_id: str | None,
                 publish: bool, now: dt.datetime, clock: _Clock, *, preview: bool) -> None:
        self.session, self.run, self.office_id, self.user_id, self.client_id = session, run, office_id, user_id, client_id
        self.publish, self.now, self.clock, self.preview = publish, now, clock, preview
        self.slots: list[ObjectResult | None] = []
        self.pending: list[tuple[int, ParsedObject, NewListing]] = []
        self.pending_keys: set[tuple[str, str]] = set()
        self.existing: dict[tuple[str, str], Listing] = {}
        self.events = EventBatch()  # the publications' Treffer made together, one query per saved search
        self.created = False  # since the events were last made
        self.wrote = False

    def write(self, chunk: list[ParsedObject]) -> None:
        feeds = {feed_of(obj.provider) for obj in chunk}
        keys = {obj.key for obj in chunk if obj.key is not None}
        with _planned_for_their_values(self.session):
            planned = self._read(chunk, feeds, keys)
        for obj, fields, digest, same in planned:
            result = self._one(obj, fields, digest, same)
            self.slots.append(result)
            if result is not None:
                self.clock.tick()
            elif len(self.pending) >= PROGRESS_EVERY:  # created PROGRESS_EVERY at a time, so progress keeps coming
                self._create()
        self._create()
        self._make_events()
        if self.wrote and not self.preview:
            bump_revision(self.session, self.now)
        for result in self.slots:
            assert result is not None
            self.run.add(result)

    def _read(self, chunk: list[ParsedObject], feeds: set[str], keys: set[str]) -> list[Planned]:
        """The chunk's listings in one query (ref, version, digest); those the objects may change loaded in one more."""
        stored: dict[tuple[str, str], Any] = {}  # (feed, key) → (ref, version, import_digest) of the first such listing
        if keys:
            for row in self.session.execute(
                select(Listing.feed, Listing.external_id, Listing.ref, Listing.version, Listing.import_digest)
                .where(Listing.office_id == self.office_id, Listing.feed.in_(feeds), Listing.external_id.in_(keys))
                .order_by(Listing.id)
            ):
                stored.setdefault((row.feed or "", row.external_id or ""), row)
        counted = Counter((feed_of(obj.provider), obj.key) for obj in chunk if obj.key is not None)
        planned: list[Planned] = []
        compare: set[tuple[str, str]] = set()  # listings to load and compare as save_listing would
        for obj in chunk:
            fields = digest = same = None
            if obj.refusal is None and obj.key is not None:
                key = (feed_of(obj.provider), obj.key)
                row = stored.get(key)
                if obj.action != ImportAction.delete.value:
                    fields = {k: v for k, v in obj.fields.items() if v is not None or k not in KEPT_WHEN_ABSENT}
                    fields["features"] = obj.features
                    digest = digest_of(fields)
                    # the same fields as the import's last write, nothing written since, the key once in this chunk
                    if row is not None and row.import_digest == f"{row.version}:{digest}" and counted[key] == 1:
                        same = row.ref
                if row is not None and same is None:
                    compare.add(key)
            planned.append((obj, fields, digest, same))
        if compare:
            for listing in self.session.scalars(
                select(Listing)
                .where(Listing.office_id == self.office_id, Listing.feed.in_({f for f, _ in compare}),
                       Listing.external_id.in_({k for _, k in compare}))
                .options(selectinload(Listing.features))
                .order_by(Listing.id)
            ):
                key = (listing.feed or "", listing.external_id or "")
                if key in compare:
                    self.existing.setdefault(key, listing)
        return planned

    def _result(self, obj: ParsedObject, outcome: ImportOutcome, ref: str | None = None, reason: str | None = None) -> ObjectResult:
        if outcome is not ImportOutcome.refused:
            for excluded in obj.excluded:
                entry = self.run.excluded.setdefault((excluded.field, excluded.reason), [0, excluded.raw])
                entry[0] = int(entry[0]) + 1  # type: ignore[call-overload]
        shown = PREVIEW_LABELS[outcome] if self.preview else label(outcome)
        return ObjectResult(
            objektnr_extern=obj.key if obj.key is not None else NO_KEY, position=obj.position, action=ImportAction(obj.action),
            outcome=outcome, outcome_label=shown, listing_id=ref or NO_LISTING, reason=reason or NO_REASON,
            excluded_fields=sorted({e.field for e in obj.excluded}) if outcome is not ImportOutcome.refused else [],
            assumptions=[ImportNote(field=f, note=n) for f, n in obj.assumptions] if outcome is not ImportOutcome.refused else [],
            not_imported=[ImportNote(field=f, note=n) for f, n in sorted(obj.not_imported)] if outcome is not ImportOutcome.refused else [],
        )

    def _listing(self, feed: str, key: str) -> Listing | None:
        if (feed, key) in self.pending_keys:
            self._create()  # the same object twice in one chunk: the second changes what the first created
            self._make_events()
        return self.existing.get((feed, key))

    def _one(self, obj: ParsedObject, fields: dict[str, Any] | None, digest: str | None, same: str | None) -> ObjectResult | None:
        """`same`: the ref of the listing the import last wrote with these very fields (nothing to compare)."""
        feed = feed_of(obj.provider)
        if obj.key is None:
            self.run.keyless += 1
        else:
            self.run.seen.setdefault(feed, set()).add(obj.key)
        if obj.refusal is not None:
            return self._result(obj, ImportOutcome.refused, reason=obj.refusal)
        assert obj.key is not None
        if same is not None:
            return self._result(obj, ImportOutcome.unchanged, same)
        listing = self._listing(feed, obj.key)
        if obj.action == ImportAction.delete.value:
            return self._delete(obj, listing)
        assert fields is not None and digest is not None
        if listing is None:
            self.pending.append((len(self.slots), obj, NewListing(fields, feed, obj.key, digest)))
            self.pending_keys.add((feed, obj.key))
            return None
        try:
            plan = plan_change(self.session, listing, fields)
            if not plan.changed:
                self._remember(listing, digest)  # written since by someone else, now as the object says: next time quick
                return self._result(obj, ImportOutcome.unchanged, listing.ref)
            if not self.preview:
                save_listing(
                    self.session, office_id=self.office_id, user_id=self.user_id, client_id=self.client_id, fields=fields,
                    listing_ref=listing.ref, expected_version=None, idempotency_key=None, now=self.now, revise=False,
                )
                self.wrote = True
                self._remember(listing, digest)
        except ToolFailure as failure:
            return self._result(obj, ImportOutcome.refused, listing.ref, failure.message)
        return self._result(obj, ImportOutcome.changed, listing.ref, _changed(plan.changed) if self.preview else None)

    def _remember(self, listing: Listing, digest: str) -> None:
        """Store the digest with the version the listing has now (bookkeeping: neither version nor updated_at move)."""
        stamp = f"{listing.version}:{digest}"
        if self.preview or listing.import_digest == stamp:
            return
        listing.import_digest = stamp
        flag_modified(listing, "updated_at")  # written as it is, or its onupdate would take the clock

    def _delete(self, obj: ParsedObject, listing: Listing | None) -> ObjectResult:
        if listing is None:
            return self._result(
                obj, ImportOutcome.refused,
                reason="Löschung eines Objekts, das im Bestand aus diesem Feed nicht vorkommt; nichts zurückgezogen.",
            )
        if listing.status in GONE:
            return self._result(obj, ImportOutcome.unchanged, listing.ref, f"Schon {label(ListingStatus(listing.status))}.")
        if not self.preview:
            change_status(self.session, office_id=self.office_id, user_id=self.user_id, client_id=self.client_id,
                          listing_ref=listing.ref, status=ListingStatus.withdrawn, reason=DELETE_REASON, now=self.now,
                          revise=False)
            self.wrote = True
        return self._result(obj, ImportOutcome.withdrawn, listing.ref, DELETE_REASON)

    def _create(self) -> None:
        pending, self.pending = self.pending, []
        self.pending_keys = set()
        if not pending:
            return
        if self.preview:
            for slot, obj, item in pending:
                self.slots[slot] = self._would_create(obj, item)
            self.clock.tick(len(pending))
            return
        outcomes = create_listings(self.session, office_id=self.office_id, user_id=self.user_id, client_id=self.client_id,
                                   items=[item for _, _, item in pending], now=self.now, revise=False)
        self.created = True
        for (slot, obj, item), outcome in zip(pending, outcomes, strict=True):
            if isinstance(outcome, ToolFailure):
                self.slots[slot] = self._result(obj, ImportOutcome.refused, reason=outcome.message)
                continue
            self.wrote = True
            self.existing[(item.feed or "", item.external_id or "")] = outcome.listing
            self.slots[slot] = self._published(obj, outcome.listing, self.events)
        self.clock.tick(len(pending))

    def _make_events(self) -> None:
        """The listing events of what was created and published since they were last made (once per chunk, unless the
        same object comes twice)."""
        if self.created:
            self.events.make(self.session, self.now)
            self.created = False

    def _published(self, obj: ParsedObject, listing: Listing, events: EventBatch) -> ObjectResult:
        ref = listing.ref
        if obj.draft_only:
            return self._result(obj, ImportOutcome.created, ref, _draft_only(obj))
        if not self.publish:
            return self._result(obj, ImportOutcome.created, ref)
        try:
            change_status(self.session, office_id=self.office_id, user_id=self.user_id, client_id=self.client_id,
                          listing_ref=ref, status=ListingStatus.published, reason="OpenImmo-Import", now=self.now,
                          revise=False, listing=listing, events=events)
        except ToolFailure as failure:
            return self._result(obj, ImportOutcome.created, ref, f"Als Entwurf angelegt, nicht veröffentlicht: {failure.message}")
        return self._result(obj, ImportOutcome.created, ref, "Angelegt und veröffentlicht.")

    def _would_create(self, obj: ParsedObject, item: NewListing) -> ObjectResult:
        try:
            listing = draft_of(self.session, item.fields)
        except ToolFailure as failure:
            return self._result(obj, ImportOutcome.refused, reason=failure.message)
        if obj.draft_only:
            return self._result(obj, ImportOutcome.created, reason="Würde " + _draft_only(obj)[0].lower() + _draft_only(obj)[1:])
        if not self.publish:
            return self._result(obj, ImportOutcome.created, reason="Würde als Entwurf angelegt.")
        failed = publishing.failed_blocking_rules(listing, self.now.date())
        if failed:
            rules = "; ".join(f"{r.rule_label}: {r.message}" for r in failed)
            return self._result(obj, ImportOutcome.created, reason=f"Würde als Entwurf angelegt, nicht veröffentlicht: {rules}")
        return self._result(obj, ImportOutcome.created, reason="Würde angelegt und veröffentlicht.")


def _draft_only(obj: ParsedObject) -> str:
    return ("Als Entwurf angelegt, nicht veröffentlicht: in der Übertragung fehlt " + ", ".join(obj.draft_only)
            + "; bitte prüfen und ergänzen, dann veröffentlichen.")


def _changed(fields: list[str]) -> str:
    return "Würde ändern: " + ", ".join(field_labels(fields)) + "."


def _withdraw_missing(
    db: Database, run: _Run, office_id: int, user_id: int | None, client_id: str | None, now: dt.datetime,
    warnings: list[str], preview: bool,
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
    with (db.read_only() if preview else db.unit_of_work()) as session:
        for feed, keys in sorted(run.seen.items()):
            rows = session.execute(
                select(Listing.ref, Listing.external_id).where(
                    Listing.office_id == office_id, Listing.feed == feed, Listing.status.not_in(GONE)
                ).order_by(Listing.external_id, Listing.id)
            ).all()
            for ref, key in rows:
                if key in keys:
                    continue
                if not preview:
                    change_status(session, office_id=office_id, user_id=user_id, client_id=client_id, listing_ref=ref,
                                  status=ListingStatus.withdrawn, reason=MISSING_REASON, now=now, revise=False)
                withdrawn.append(key)
                run.add(ObjectResult(
                    objektnr_extern=key, position=0, action=ImportAction.delete, outcome=ImportOutcome.withdrawn,
                    outcome_label=PREVIEW_LABELS[ImportOutcome.withdrawn] if preview else label(ImportOutcome.withdrawn),
                    listing_id=ref, reason=MISSING_REASON, excluded_fields=[],
                ))
        if withdrawn and not preview:
            bump_revision(session, now)
    return withdrawn


def _numerus(verb: str, n: int) -> str:
    """'würde angelegt' for one object, 'würden angelegt' for several (the preview's verbs are singular)."""
    return verb.replace("würde ", "würden ", 1) if n != 1 else verb


def _output(run: _Run, source_kind: TransferSource, withdrawn: list[str], warnings: list[str], preview: bool) -> ImportListingsOutput:
    counts = ImportCounts(**{outcome.value: n for outcome, n in run.counts.items()})
    excluded = [
        ExcludedCount(field=name, **labelled("reason", reason), count=int(entry[0]), example=str(entry[1]))  # type: ignore[call-overload]
        for (name, reason), entry in sorted(run.excluded.items())
    ]
    scope = TransferScope(run.header.scope)
    shown = PREVIEW_LABELS if preview else {outcome: label(outcome) for outcome in ImportOutcome}
    parts = [f"{n} {_numerus(shown[outcome], n)}" for outcome, n in run.counts.items() if n]
    assumed = ", angenommen, weil ‹uebertragung› fehlt" if run.header.assumed else ""
    summary = f"{plural(run.total, 'Objekt', 'Objekte')} gelesen ({label(scope)}{assumed}): {', '.join(parts) or 'nichts zu tun'}."
    if preview:
        summary = "Vorschau, nichts wurde geändert. " + summary
    if withdrawn:
        verb = ("würde" if len(withdrawn) == 1 else "würden") + " zurückgezogen" if preview else "zurückgezogen"
        summary += f" Davon {len(withdrawn)} {verb}, weil die vollständige Übertragung sie nicht mehr enthielt."
    not_numbers = sum(e.count for e in excluded)
    if not_numbers:
        summary += f" {plural(not_numbers, 'Wert war keine Zahl und wurde', 'Werte waren keine Zahl und wurden')} nicht gespeichert."
    return ImportListingsOutput(
        **labelled("source", source_kind), **labelled("scope", scope), scope_assumed=run.header.assumed, preview=preview,
        objects_read=run.total, counts=counts, withdrawn_missing=withdrawn, excluded_values=excluded, results=run.results,
        results_complete=run.listed <= RESULTS_SHOWN, warnings=warnings, summary=summary,
    )
