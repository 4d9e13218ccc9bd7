"""How the situation report counts, without a database: the sections (waiting inquiries by age, waiting and
expired confirmations, listings that fail the publishing check, due energy certificates, open proposals) and the
key figures over 7 and 30 days, each with its German summary.

The handler selects the rows (all of them: every count covers the whole office) and passes them here in
their natural order, oldest or most urgent first; a section shows the first `limit` of them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from contract.broker_report import (
    AgeBand,
    BlockedListing,
    ConfirmationSection,
    DueCertificate,
    EnergySection,
    InquirySection,
    KeyFigures,
    ProposalSection,
    UnpublishableSection,
    WaitingConfirmation,
    WaitingInquiry,
    WaitingProposal,
)
from contract.envelope import AbsenceReason, Absent
from contract.vocabulary import ListingStatus, labelled
from shared.db.models import Listing
from shared.german import plural, whole_days
from shared.partial_lists import shown, shown_note
from shared.pending_actions import ShownAction, action_fields
from shared.publishing import failed_blocking_rules

EXPIRED_LOOKBACK = dt.timedelta(days=30)  # expired confirmations are counted this far back
# The listings the publishing check is run on: those online (they must keep the rules) and those meant to go online.
CHECKED_STATUSES = (ListingStatus.published, ListingStatus.reserved, ListingStatus.draft)
KEY_FIGURE_WINDOWS = (7, 30)
NOTHING_OPEN = (
    "Im Büro liegt jetzt nichts an: keine offene Anfrage, keine wartende Bestätigung, kein Objekt, das nicht "
    "veröffentlicht werden kann, kein fälliger Energieausweis, kein offener Vorschlag."
)


@dataclass(frozen=True)
class OpenInquiry:
    """An open inquiry that waits for the office."""

    inquiry_id: str
    listing_id: str
    title: str
    waiting_since: dt.datetime  # the seeker's first message the office has not answered
    first_contact: bool  # the office never replied


@dataclass(frozen=True)
class Certificate:
    """The energy certificate of a published listing."""

    listing_id: str
    title: str
    valid_until: dt.date


@dataclass(frozen=True)
class OpenProposal:
    proposal_id: str
    listing_id: str
    title: str
    created_at: dt.datetime


@dataclass(frozen=True)
class Activity:
    """What happened in the office since `activity_since(now)`: inquiries received (with the office's first reply,
    if any), messages the office sent, listings first published."""

    inquiries: Sequence[tuple[dt.datetime, dt.datetime | None]]
    replies: Sequence[dt.datetime]
    published: Sequence[dt.datetime]


def hours(now: dt.datetime, then: dt.datetime) -> float:
    return round((now - then).total_seconds() / 3600, 1)


def age_text(waited_hours: float) -> str:
    if waited_hours < 48:
        return f"{waited_hours:.0f} Stunden"
    return f"{whole_days(waited_hours)} Tagen"


def _section_tail(items: list[Any], total: int, summary: str, which: str) -> dict[str, Any]:
    """What every section ends with: its summary (naming `which` items it shows when not all), the total of open
    points, and the first items."""
    return {"summary": summary + shown_note(len(items), total, which), "total": total, **shown(items, total), "items": items}


def inquiry_section(waiting: Sequence[OpenInquiry], now: dt.datetime, limit: int) -> InquirySection:
    """Waiting inquiries, new (never answered) or follow-ups, by age: under 24 hours, 1 to 3 days, over 3 days."""
    waiting = sorted(waiting, key=lambda w: w.waiting_since)
    day, three_days = now - dt.timedelta(hours=24), now - dt.timedelta(hours=72)
    total = len(waiting)
    new = sum(w.first_contact for w in waiting)
    items = [
        WaitingInquiry(
            inquiry_id=w.inquiry_id,
            listing_id=w.listing_id,
            title=w.title,
            first_contact=w.first_contact,
            waiting_since=w.waiting_since,
            waiting_hours=hours(now, w.waiting_since),
        )
        for w in waiting[:limit]
    ]
    if total:
        summary = (
            f"{plural(total, 'offene Anfrage wartet', 'offene Anfragen warten')} auf eine Antwort, davon {new} neu und "
            f"{total - new} Rückfragen; die älteste wartet seit {age_text(hours(now, waiting[0].waiting_since))}."
        )
    else:
        summary = "Keine offene Anfrage wartet auf eine Antwort."
    return InquirySection(
        title="Neue und unbeantwortete Anfragen",
        new=new,
        follow_ups=total - new,
        by_age=[
            AgeBand(label="unter 24 Stunden", count=sum(w.waiting_since > day for w in waiting)),
            AgeBand(label="1 bis 3 Tage", count=sum(three_days < w.waiting_since <= day for w in waiting)),
            AgeBand(label="über 3 Tage", count=sum(w.waiting_since <= three_days for w in waiting)),
        ],
        **_section_tail(items, total, summary, "die am längsten wartenden"),
    )


def confirmation_section(actions: Sequence[ShownAction], now: dt.datetime, limit: int) -> ConfirmationSection:
    """Of the office's prepared actions (pending or expired, oldest first): those still waiting for a click, and,
    counted apart, those that expired within EXPIRED_LOOKBACK without being executed."""
    waiting = sorted((a for a in actions if a.status == "pending" and a.expires_at > now), key=lambda a: a.created_at)
    expired = sum(
        1 for a in actions if a.status in {"pending", "expired"} and now - EXPIRED_LOOKBACK < a.expires_at <= now
    )
    total = len(waiting)
    items = [
        WaitingConfirmation(**action_fields(a), waiting_hours=hours(now, a.created_at)) for a in waiting[:limit]
    ]
    summary = (
        f"{plural(total, 'Bestätigung wartet', 'Bestätigungen warten')} auf einen Klick"
        if total
        else "Keine Bestätigung wartet auf einen Klick"
    )
    summary += f"; {expired} in den letzten {EXPIRED_LOOKBACK.days} Tagen abgelaufen, ohne ausgeführt zu sein."
    return ConfirmationSection(
        title="Wartende Bestätigungen",
        expired=expired,
        **_section_tail(items, total, summary, "die ältesten"),
    )


def unpublishable_section(candidates: Sequence[Listing], checked: int, today: dt.date, limit: int) -> UnpublishableSection:
    """Of the `checked` listings in CHECKED_STATUSES, those among `candidates` that fail a blocking rule of the
    publishing check on `today`: the published and reserved ones first (they are already online), then the drafts,
    each oldest first."""
    failing = [(listing, failed) for listing in candidates if (failed := failed_blocking_rules(listing, today))]
    failing.sort(key=lambda pair: (pair[0].status == ListingStatus.draft.value, pair[0].created_at, pair[0].ref))
    items = [
        BlockedListing(
            listing_id=listing.ref,
            title=listing.title,
            **labelled("status", ListingStatus(listing.status)),
            created_at=listing.created_at,
            failed_rules=[r.rule for r in failed],
            failed_rule_labels=[r.rule_label for r in failed],
            reasons=[r.message for r in failed],
        )
        for listing, failed in failing[:limit]
    ]
    total = len(failing)
    drafts = sum(listing.status == ListingStatus.draft.value for listing, _ in failing)
    summary = (
        f"{total} von {plural(checked, 'geprüften Objekt', 'geprüften Objekten')} {'besteht' if total == 1 else 'bestehen'} "
        "check_listing heute nicht: "
        f"{total - drafts} veröffentlicht oder reserviert, {plural(drafts, 'Entwurf', 'Entwürfe')}."
        if checked
        else "Das Büro hat keine Entwürfe und keine veröffentlichten oder reservierten Objekte."
    )
    return UnpublishableSection(
        title="Objekte, die nicht veröffentlicht werden können",
        checked=checked,
        published_or_reserved=total - drafts,
        drafts=drafts,
        **_section_tail(items, total, summary, "die ersten"),
    )


def due_by(today: dt.date, window_days: int) -> dt.date:
    """Certificates valid until this day or earlier are due (expired ones included)."""
    return today + dt.timedelta(days=window_days)


def energy_section(certificates: Sequence[Certificate], today: dt.date, limit: int, window_days: int) -> EnergySection:
    """Certificates of published listings that expired or expire by `due_by`, the earliest first."""
    due = sorted((c for c in certificates if c.valid_until <= due_by(today, window_days)), key=lambda c: c.valid_until)
    total = len(due)
    expired = sum(c.valid_until < today for c in due)
    items = [
        DueCertificate(
            listing_id=c.listing_id,
            title=c.title,
            valid_until=c.valid_until,
            days_left=(c.valid_until - today).days,
            expired=c.valid_until < today,
        )
        for c in due[:limit]
    ]
    summary = (
        f"{plural(total, 'Energieausweis', 'Energieausweise')} veröffentlichter Inserate: {expired} abgelaufen, "
        f"{total - expired} laufen in den nächsten {window_days} Tagen ab."
        if total
        else f"Kein Energieausweis eines veröffentlichten Inserats ist abgelaufen oder läuft in den nächsten {window_days} Tagen ab."
    )
    return EnergySection(
        title="Energieausweise abgelaufen oder bald fällig",
        expired=expired,
        expiring=total - expired,
        window_days=window_days,
        **_section_tail(items, total, summary, "die frühesten"),
    )


def proposal_section(proposals: Sequence[OpenProposal], now: dt.datetime, limit: int) -> ProposalSection:
    """Open proposals, the oldest first."""
    proposals = sorted(proposals, key=lambda p: p.created_at)
    total = len(proposals)
    items = [
        WaitingProposal(
            proposal_id=p.proposal_id,
            listing_id=p.listing_id,
            title=p.title,
            created_at=p.created_at,
            waiting_hours=hours(now, p.created_at),
        )
        for p in proposals[:limit]
    ]
    summary = (
        f"{plural(total, 'offener Vorschlag wartet', 'offene Vorschläge warten')} auf eine Entscheidung."
        if total
        else "Kein offener Vorschlag."
    )
    return ProposalSection(
        title="Offene Vorschläge",
        **_section_tail(items, total, summary, "die ältesten"),
    )


def activity_since(now: dt.datetime) -> dt.datetime:
    """The start of the longest key-figure window: the activity the key figures need."""
    return now - dt.timedelta(days=max(KEY_FIGURE_WINDOWS))


def key_figures(activity: Activity, now: dt.datetime) -> list[KeyFigures]:
    """Per window: inquiries received, replies sent, listings published, and the mean time to the first reply
    over the inquiries received and answered in it (unanswered ones are counted apart, not as zero)."""
    figures = []
    for days in KEY_FIGURE_WINDOWS:
        since = now - dt.timedelta(days=days)
        received = [(at, reply) for at, reply in activity.inquiries if since < at <= now]
        waited = [(reply - at).total_seconds() / 3600 for at, reply in received if reply is not None and reply <= now]
        figures.append(
            KeyFigures(
                days=days,
                days_label=f"letzte {days} Tage",
                since=since,
                new_inquiries=len(received),
                replies_sent=sum(since < at <= now for at in activity.replies),
                listings_published=sum(since < at <= now for at in activity.published),
                average_first_response_hours=round(sum(waited) / len(waited), 1)
                if waited
                else Absent(reason=AbsenceReason.empty_in_source, note="Keine im Zeitraum eingegangene Anfrage ist beantwortet."),
                answered_inquiries=len(waited),
                unanswered_excluded=len(received) - len(waited),
            )
        )
    return figures
