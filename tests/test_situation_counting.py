"""How the situation report counts (`shared.situation`), on plain rows: the age bands at their edges, what is
waiting and what expired, which drafts are blocked, which certificates are due, the key-figure windows."""

from __future__ import annotations

import datetime as dt
from typing import Any

from contract.broker_stock import CheckRule
from contract.envelope import Absent
from shared.db.models import Listing, PendingAction
from shared.situation import (
    Activity,
    Certificate,
    OpenInquiry,
    OpenProposal,
    confirmation_section,
    due_by,
    energy_section,
    inquiry_section,
    key_figures,
    proposal_section,
    unpublishable_section,
)

NOW = dt.datetime(2026, 11, 2, 12, 0, tzinfo=dt.UTC)
TODAY = NOW.date()
HOUR = dt.timedelta(hours=1)
DAY = dt.timedelta(days=1)


def waiting(ref: str, hours_ago: float, first_contact: bool = True) -> OpenInquiry:
    return OpenInquiry(ref, "A-0000001", "Wohnung", NOW - hours_ago * HOUR, first_contact)


def test_inquiries_by_age_band_at_the_edges() -> None:
    rows = [waiting("I-1", 23.9), waiting("I-2", 24), waiting("I-3", 71.9, False), waiting("I-4", 72), waiting("I-5", 100, False)]
    section = inquiry_section(rows, NOW, 10)
    assert [(band.label, band.count) for band in section.by_age] == [("unter 24 Stunden", 1), ("1 bis 3 Tage", 2), ("über 3 Tage", 2)]
    assert (section.total, section.new, section.follow_ups) == (5, 3, 2)
    assert section.summary == "5 offene Anfragen warten auf eine Antwort, davon 3 neu und 2 Rückfragen; die älteste wartet seit 4 Tagen."


def test_the_longest_waiting_come_first_and_the_rest_is_named() -> None:
    section = inquiry_section([waiting("I-1", 2), waiting("I-2", 30), waiting("I-3", 5)], NOW, 2)
    assert [i.inquiry_id for i in section.items] == ["I-2", "I-3"]
    assert (section.shown, section.all_shown) == (2, False)
    assert section.items[0].waiting_hours == 30.0
    assert section.summary.endswith("die älteste wartet seit 30 Stunden. Gezeigt: die am längsten wartenden 2 von 3.")


def test_no_waiting_inquiry() -> None:
    section = inquiry_section([], NOW, 5)
    assert (section.total, section.summary, section.all_shown) == (0, "Keine offene Anfrage wartet auf eine Antwort.", True)


def action(ref: str, status: str, expires_in: dt.timedelta, created_ago: dt.timedelta = DAY) -> PendingAction:
    return PendingAction(
        ref=ref, kind="send_reply", subject_ref="I-1", summary="Antwort", status=status, created_at=NOW - created_ago, expires_at=NOW + expires_in
    )


def test_pending_before_expiry_waits_and_after_it_counts_as_expired_for_thirty_days() -> None:
    actions = [
        action("C-1", "pending", HOUR, created_ago=2 * DAY),
        action("C-2", "pending", 2 * HOUR, created_ago=3 * DAY),
        action("C-3", "pending", dt.timedelta(0)),  # expires now: no longer waiting
        action("C-4", "expired", -29 * DAY),
        action("C-5", "expired", -30 * DAY),  # exactly 30 days ago: outside the look-back
        action("C-6", "executed", HOUR),
        action("C-7", "cancelled", -DAY),
    ]
    section = confirmation_section(actions, NOW, 5)
    assert [i.confirmation_id for i in section.items] == ["C-2", "C-1"]  # the oldest first
    assert (section.total, section.expired) == (2, 2)
    assert section.summary == "2 Bestätigungen warten auf einen Klick; 2 in den letzten 30 Tagen abgelaufen, ohne ausgeführt zu sein."
    assert section.items[0].kind_label and section.items[0].waiting_hours == 72.0


def test_no_waiting_confirmation() -> None:
    section = confirmation_section([action("C-1", "pending", -HOUR)], NOW, 5)
    assert (section.total, section.expired) == (0, 1)
    assert section.summary.startswith("Keine Bestätigung wartet auf einen Klick; 1 in den letzten 30 Tagen")


def draft(ref: str, **changes: Any) -> Listing:
    values: dict[str, Any] = {
        "ref": ref,
        "status": "draft",
        "marketing_type": "buy",
        "property_type": "apartment",
        "title": "Wohnung",
        "description": "x" * 200,
        "price": 200_000.0,
        "living_area": 60.0,
        "rooms": 2.0,
        "photos": [{"url": "a"}],
        "energy_status": "present",
        "energy_certificate_type": "demand",
        "energy_value": 90.0,
        "energy_class": "C",
        "energy_carrier": "Gas",
        "energy_year_built": 1990,
        "energy_valid_until": TODAY + 400 * DAY,
        "created_at": NOW - DAY,
    }
    values.update(changes)
    return Listing(**values)


def test_only_listings_failing_a_blocking_rule_are_unpublishable_the_online_ones_first() -> None:
    candidates = [
        draft("A-1", photos=[], energy_status="missing"),
        draft("A-2"),
        draft("A-3", title=""),
        draft("A-4", status="published", energy_valid_until=TODAY - DAY, created_at=NOW - 9 * DAY),
        draft("A-5", status="reserved", photos=[], created_at=NOW - 2 * DAY),
    ]
    section = unpublishable_section(candidates, 7, TODAY, 3)
    assert (section.total, section.checked, section.published_or_reserved, section.drafts) == (4, 7, 2, 2)
    assert [(i.listing_id, i.status) for i in section.items] == [("A-4", "published"), ("A-5", "reserved"), ("A-1", "draft")]
    assert section.items[2].failed_rules == [CheckRule.energy_certificate, CheckRule.photos]
    assert section.items[2].failed_rule_labels == ["Energieausweis (GEG §87)", "Fotos"]
    assert section.items[0].reasons == [
        "Der Energieausweis ist seit dem 01.11.2026 abgelaufen: bitte einen neuen Ausweis ausstellen lassen und seine Angaben eintragen."
    ]
    assert section.summary == (
        "4 von 7 geprüften Objekten bestehen check_listing heute nicht: 2 veröffentlicht oder reserviert, 2 Entwürfe. "
        "Gezeigt: die ersten 3 von 4."
    )
    empty = unpublishable_section([], 0, TODAY, 5)
    assert (empty.total, empty.summary) == (0, "Das Büro hat keine Entwürfe und keine veröffentlichten oder reservierten Objekte.")
    one = unpublishable_section([draft("A-2"), draft("A-3", title="")], 1, TODAY, 5)
    assert one.summary == "1 von 1 geprüften Objekt besteht check_listing heute nicht: 0 veröffentlicht oder reserviert, 1 Entwurf."


def test_certificates_due_within_the_window_expired_ones_included() -> None:
    window = 60
    certificates = [
        Certificate("A-1", "a", TODAY + 60 * DAY),  # the last day of the window
        Certificate("A-2", "b", TODAY + 61 * DAY),  # beyond it
        Certificate("A-3", "c", TODAY - 3 * DAY),
        Certificate("A-4", "d", TODAY),  # valid today: not expired
    ]
    section = energy_section(certificates, TODAY, 10, window)
    assert due_by(TODAY, window) == TODAY + 60 * DAY
    assert [(c.listing_id, c.days_left, c.expired) for c in section.items] == [("A-3", -3, True), ("A-4", 0, False), ("A-1", 60, False)]
    assert (section.total, section.expired, section.expiring) == (3, 1, 2)
    assert section.summary == "3 Energieausweise veröffentlichter Inserate: 1 abgelaufen, 2 laufen in den nächsten 60 Tagen ab."
    assert energy_section([], TODAY, 10, 7).summary == (
        "Kein Energieausweis eines veröffentlichten Inserats ist abgelaufen oder läuft in den nächsten 7 Tagen ab."
    )


def test_open_proposals_oldest_first() -> None:
    proposals = [OpenProposal("P-2", "A-1", "a", NOW - HOUR), OpenProposal("P-1", "A-1", "a", NOW - 5 * HOUR)]
    section = proposal_section(proposals, NOW, 5)
    assert [p.proposal_id for p in section.items] == ["P-1", "P-2"]
    assert section.summary == "2 offene Vorschläge warten auf eine Entscheidung."
    assert proposal_section(proposals[:1], NOW, 5).summary == "1 offener Vorschlag wartet auf eine Entscheidung."
    assert proposal_section([], NOW, 5).summary == "Kein offener Vorschlag."


def test_key_figures_per_window_average_only_over_answered_inquiries() -> None:
    activity = Activity(
        inquiries=[
            (NOW - 2 * DAY, NOW - 2 * DAY + 4 * HOUR),  # answered after 4 hours
            (NOW - 3 * DAY, None),  # unanswered: counted apart
            (NOW - 10 * DAY, NOW - 10 * DAY + 10 * HOUR),  # only in the 30-day window
            (NOW - DAY, NOW + HOUR),  # a reply after now does not count
        ],
        replies=[NOW - DAY, NOW - 8 * DAY, NOW - 30 * DAY],  # exactly 30 days ago: outside
        published=[NOW, NOW - 6 * DAY],
    )
    week, month = key_figures(activity, NOW)
    assert (week.days, week.days_label, week.since) == (7, "letzte 7 Tage", NOW - 7 * DAY)
    assert (week.new_inquiries, week.replies_sent, week.listings_published) == (3, 1, 2)
    assert (week.average_first_response_hours, week.answered_inquiries, week.unanswered_excluded) == (4.0, 1, 2)
    assert (month.new_inquiries, month.replies_sent, month.average_first_response_hours, month.answered_inquiries) == (4, 2, 7.0, 2)


def test_no_answered_inquiry_leaves_the_average_absent() -> None:
    week, _ = key_figures(Activity(inquiries=[(NOW - DAY, None)], replies=[], published=[]), NOW)
    assert isinstance(week.average_first_response_hours, Absent)
    assert (week.answered_inquiries, week.unanswered_excluded) == (0, 1)
