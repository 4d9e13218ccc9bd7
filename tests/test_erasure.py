"""Deleting a seeker's account (shared/accounts/personal_data.py) reaches everything that named them: every form of
their name, the phone number and e-mail address they typed into their own messages, the office's reply drafted to
them (discarded, never sendable afterwards) and the outbox (no body, no address of theirs). Scanned over every text
of every table, on the database the run uses (SQLite, or PostgreSQL with ATHAUS_TEST_DATABASE_URL)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.accounts.personal_data import ERASED, TYPED_CONTACT, delete_account
from shared.db.models import Base, Inquiry, InquiryMessage, OutboxMessage, PendingAction, User
from shared.db.session import Database
from tests.confirmation_helpers import APPS_META, OWNER, SEEKER, card_of, click, principal_of, published_listing
from tests.conftest import FIXED_NOW, Caller, make_context, request_key

TYPED_PHONE, TYPED_EMAIL = "0171 2345678", "lena.privat@web.example"
FORMS = ("Lena Hartwig", "Frau Hartwig", "Hartwig", "Lena", SEEKER.email, TYPED_PHONE, TYPED_EMAIL)


def every_text(db: Database, person_id: int) -> Iterator[tuple[str, str, str]]:
    """(table, column, text) for every non-empty value of every table the models know, JSON columns as their text;
    of `users` only the person's own row (other demo accounts may share a first name: "Lena Vogel" is not her)."""
    with db.read_only() as session:
        for table in Base.metadata.sorted_tables:
            for row in session.execute(select(table)).mappings():
                if table.name == "users" and row["id"] != person_id:
                    continue
                for column, value in row.items():
                    if isinstance(value, (dict, list)):
                        value = json.dumps(value, ensure_ascii=False)
                    if isinstance(value, str) and value:
                        yield table.name, column, value


def traces(db: Database, person_id: int) -> list[tuple[str, str, str]]:
    return sorted({(table, column, form) for table, column, text in every_text(db, person_id) for form in FORMS if form.lower() in text.lower()})


def test_a_deleted_seeker_leaves_no_name_form_no_typed_contact_no_sendable_draft_and_no_mail_body(scratch_db: Database) -> None:
    context = make_context(scratch_db)
    seeker = Caller(SEARCH, context, principal_of(scratch_db, SEEKER.email), APPS_META)
    owner = Caller(BROKER, context, principal_of(scratch_db, OWNER.email), APPS_META)
    message = f"Guten Tag, ich bin tagsüber unter {TYPED_PHONE} erreichbar oder unter {TYPED_EMAIL}. Besichtigung am 01.03.2027?"
    card = card_of(seeker.raw("draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(scratch_db), "message": message, "share": ["name", "email", "phone"]}))
    inquiry_ref = str(seeker("decide_confirmation", click(card))["inquiry_id"])
    sent_reply = card_of(owner.raw("draft_reply", {"request_id": request_key(), "inquiry_id": inquiry_ref, "text": "Guten Tag Frau Hartwig, gern am Freitag."}))
    owner("decide_confirmation", click(sent_reply))
    pending = card_of(owner.raw("draft_reply", {"request_id": request_key(), "inquiry_id": inquiry_ref, "text": "Liebe Lena, anbei der Grundriss."}))
    with scratch_db.read_only() as session:
        inquiry = session.scalar(select(Inquiry).where(Inquiry.ref == inquiry_ref))
        assert inquiry is not None
        mails = list(session.scalars(select(OutboxMessage).where(OutboxMessage.inquiry_id == inquiry.id)))
        assert sorted(m.kind for m in mails) == ["inquiry", "reply"] and all(m.body for m in mails)
        seeker_id, inquiry_id = inquiry.seeker_id, inquiry.id
        typed = session.scalar(select(InquiryMessage.body).where(InquiryMessage.inquiry_id == inquiry.id, InquiryMessage.author == "seeker"))
        assert typed == message
    assert {form for _, _, form in traces(scratch_db, seeker_id)} == set(FORMS)  # the scan finds them before

    with scratch_db.unit_of_work() as session:
        delete_account(session, seeker_id, FIXED_NOW)

    assert traces(scratch_db, seeker_id) == []
    with scratch_db.read_only() as session:
        assert session.scalar(select(InquiryMessage.body).where(InquiryMessage.inquiry_id == inquiry_id, InquiryMessage.author == "seeker")) == (
            "Guten Tag, ich bin tagsüber unter [gelöscht] erreichbar oder unter [gelöscht]. Besichtigung am 01.03.2027?"
        )
        # the reply queued to them is gone; the inquiry e-mail to the office keeps recipient, subject and time only
        kept = [(m.kind, m.body, m.status, m.last_error) for m in session.scalars(select(OutboxMessage).where(OutboxMessage.inquiry_id == inquiry_id))]
        assert kept == [("inquiry", "", "skipped", "Konto gelöscht")]
        draft = session.scalar(select(PendingAction).where(PendingAction.ref == pending["confirmation_id"]))
        assert draft is not None and (draft.status, draft.decision, draft.via) == ("discarded", "discard", None)
        user = session.get(User, seeker_id)
        assert user is not None and user.email == f"geloescht-{seeker_id}@konto.invalid"

    gone = (
        f"Die suchende Person der Anfrage {inquiry_ref} hat ihr Konto gelöscht: eine Antwort geht nicht mehr hinaus, "
        "der Entwurf ist verworfen. Die Anfrage bleibt zur Aufbewahrung beim Büro."
    )
    assert owner.error("decide_confirmation", click(pending)) == ("CONFLICT", gone)
    assert owner.error("draft_reply", {"request_id": request_key(), "inquiry_id": inquiry_ref, "text": "Noch eine Frage?"}) == ("CONFLICT", gone)
    with scratch_db.read_only() as session:  # nothing written back, nothing queued to the placeholder address
        assert [m.author for m in session.scalars(select(InquiryMessage).where(InquiryMessage.inquiry_id == inquiry_id).order_by(InquiryMessage.id))] == [
            "seeker", "office"
        ]
        assert session.scalars(select(OutboxMessage.recipient).where(OutboxMessage.recipient.like("%konto.invalid"))).all() == []


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Rufen Sie an: +49 171 2345678.", "Rufen Sie an: [gelöscht]."),
        ("Tel. 0171/2345678 oder (0711) 123456", "Tel. [gelöscht] oder ([gelöscht]"),
        ("Mail an lena.privat@web.example bitte", "Mail an [gelöscht] bitte"),
        ("Zu A-0000034 und I-000047: am 01.03.2027, bis 350.000 €, in 01067 Dresden", "Zu A-0000034 und I-000047: am 01.03.2027, bis 350.000 €, in 01067 Dresden"),
    ],
)
def test_what_counts_as_contact_a_person_typed(typed: str, kept: str) -> None:
    assert TYPED_CONTACT.sub(ERASED, typed) == kept
