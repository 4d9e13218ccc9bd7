"""Leaving with one's data (DSGVO Art. 15, 17, 20): everything Athaus holds about an account as JSON, and deleting a
seeker's account in one transaction.

Deletion erases what is personal and signs the account out everywhere: search orders with their Treffer and
proposals, prepared actions, e-mail links, idempotency records and the account's sessions go; the account row stays
as an anonymous placeholder (no name, no address, no usable password) that the office's records point to. Inquiries
and their messages stay with the office, because business letters must be kept (§ 257 HGB, § 147 AO), but without
the person: every form of their name (full, first, last: "Frau Hartwig" too), their address and phone are removed
from the shared profile, the messages, prepared drafts and e-mail subjects; phone numbers and e-mail addresses they
typed into their own messages go as well. E-mails to or about them keep no body and no address. A reply the office
drafted to them and had not sent is discarded (`SEEKER_GONE` says so to whoever clicks it).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from contract.errors import ErrorCode, ToolFailure
from shared.accounts.links import normal_email, user_ref
from shared.accounts.reset import DELETED_DOMAIN
from shared.audit import PersonalDataRead
from shared.auth.models import AccountToken, OAuthGrant
from shared.auth.sessions import sign_out_everywhere
from contract.vocabulary import MessageAuthor, PendingActionKind
from shared.db.models import (
    AuditEntry,
    IdempotencyKey,
    Inquiry,
    InquiryMessage,
    Listing,
    ListingFeature,
    Match,
    Office,
    OfficeMember,
    OutboxMessage,
    PendingAction,
    Proposal,
    SearchOrder,
    User,
)
from shared.openimmo.writer import transfer_chunks
from shared.write_log import audit, json_safe

ERASED = "[gelöscht]"
# What a person may type of themselves into a message: an e-mail address, a phone number (+49 …, 0049 …, 0171 …;
# no dots, so that dates and prices stay)
TYPED_CONTACT = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?<![\w+-])(?:\+|0)\d[\d \t/()-]{4,}\d(?!\w)")
KEPT_FOR_OFFICES = (
    "Anfragen an Maklerbüros und ihre Nachrichten bleiben beim jeweiligen Büro, weil Geschäftsbriefe aufbewahrt werden "
    "müssen (§ 257 HGB, § 147 AO); dein Name, deine E-Mail-Adresse und deine Telefonnummer werden daraus entfernt."
)


def row_dict(row: Any, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    return {column.key: json_safe(getattr(row, column.key)) for column in row.__table__.columns if column.key not in leave_out}


def export_account(session: Session, user_id: int) -> dict[str, Any]:
    """Everything about the account, as JSON-safe data (Art. 15 and 20)."""
    user = session.get(User, user_id)
    if user is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, "Dieses Konto gibt es nicht mehr.")
    searches = list(session.scalars(select(SearchOrder).where(SearchOrder.user_id == user_id).order_by(SearchOrder.id)))
    search_ids = [search.id for search in searches]
    inquiries = list(session.scalars(select(Inquiry).where(Inquiry.seeker_id == user_id).order_by(Inquiry.id)))
    messages = {
        inquiry.id: [row_dict(m) for m in session.scalars(select(InquiryMessage).where(InquiryMessage.inquiry_id == inquiry.id).order_by(InquiryMessage.id))]
        for inquiry in inquiries
    }
    refs = [inquiry.ref for inquiry in inquiries]
    membership = session.scalar(select(OfficeMember).where(OfficeMember.user_id == user_id))
    return {
        "konto": {**row_dict(user, ("password_hash",)), "buero": row_dict(membership) if membership else None},
        "suchauftraege": [row_dict(s) for s in searches],
        "treffer": [row_dict(m) for m in session.scalars(select(Match).where(Match.search_order_id.in_(search_ids)).order_by(Match.id))],
        "vorschlaege": [row_dict(p) for p in session.scalars(select(Proposal).where(Proposal.search_order_id.in_(search_ids)).order_by(Proposal.id))],
        "anfragen": [{**row_dict(inquiry), "nachrichten": messages[inquiry.id]} for inquiry in inquiries],
        "vorbereitete_aktionen": [
            row_dict(p, ("token_hash", "token_salt")) for p in session.scalars(select(PendingAction).where(PendingAction.user_id == user_id).order_by(PendingAction.id))
        ],
        "e_mails": [
            row_dict(o, ("message_id", "claimed_until"))
            for o in session.scalars(
                select(OutboxMessage).where(or_(OutboxMessage.recipient == user.email, OutboxMessage.sender_user_id == user_id)).order_by(OutboxMessage.id)
            )
        ],
        "verbundene_anwendungen": [
            row_dict(g) for g in session.scalars(select(OAuthGrant).where(OAuthGrant.user_id == user_id).order_by(OAuthGrant.id))
        ],
        "wer_deine_daten_gesehen_hat": [
            row_dict(r, ("user_id",)) for r in session.scalars(select(PersonalDataRead).where(PersonalDataRead.record_ref.in_(refs)).order_by(PersonalDataRead.id))
        ],
        "protokoll": [row_dict(a) for a in session.scalars(select(AuditEntry).where(AuditEntry.user_id == user_id).order_by(AuditEntry.id))],
        "hinweis": KEPT_FOR_OFFICES,
    }


def office_stock(session: Session, office_id: int, now: dt.datetime) -> Iterator[str]:
    """The office's whole stock (every listing, any status) as an OpenImmo transfer, in text chunks (DSGVO Art. 20 for
    the office's data; `shared.openimmo.writer`)."""
    office = session.get(Office, office_id)
    if office is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, "Dieses Büro gibt es nicht.")
    features: dict[int, list[str]] = {}
    for listing_id, feature in session.execute(
        select(ListingFeature.listing_id, ListingFeature.feature)
        .join(Listing, Listing.id == ListingFeature.listing_id)
        .where(Listing.office_id == office_id)
        .order_by(ListingFeature.listing_id, ListingFeature.feature)
    ):
        features.setdefault(listing_id, []).append(feature)
    listings = session.scalars(select(Listing).where(Listing.office_id == office_id).order_by(Listing.id)).yield_per(500)
    return transfer_chunks(office, listings, features, now=now)


def delete_account(session: Session, user_id: int, now: dt.datetime, *, brokers_without_office: bool = False) -> None:
    """Erases a seeker's personal data in the caller's transaction (Art. 17); see the module's docstring. The operator
    (`brokers_without_office`) erases a broker's account the same way once they belong to no office."""
    user = session.get(User, user_id)
    if user is None or user.email.endswith("@" + DELETED_DOMAIN):
        raise ToolFailure(ErrorCode.NOT_FOUND, "Dieses Konto gibt es nicht mehr.")
    if (user.kind != "seeker" and not brokers_without_office) or session.scalar(select(OfficeMember).where(OfficeMember.user_id == user_id)) is not None:
        raise ToolFailure(
            ErrorCode.MISSING_RIGHT,
            "Konten von Maklerinnen und Maklern entfernt die Inhaberin oder der Inhaber des Büros; danach können sie hier gelöscht werden.",
        )
    scrub = _scrubber(user)
    sign_out_everywhere(session, user_id, now)
    search_ids = select(SearchOrder.id).where(SearchOrder.user_id == user_id)
    session.execute(delete(Match).where(Match.search_order_id.in_(search_ids)))
    session.execute(delete(Proposal).where(Proposal.search_order_id.in_(search_ids)))
    session.execute(delete(SearchOrder).where(SearchOrder.user_id == user_id))
    actions = select(PendingAction.id).where(PendingAction.user_id == user_id)
    session.execute(update(OutboxMessage).where(OutboxMessage.pending_action_id.in_(actions)).values(pending_action_id=None))
    session.execute(delete(PendingAction).where(PendingAction.user_id == user_id))
    session.execute(delete(OutboxMessage).where(OutboxMessage.recipient == user.email, OutboxMessage.status.in_(("queued", "sending"))))
    inquiries = list(session.scalars(select(Inquiry).where(Inquiry.seeker_id == user_id)))
    inquiry_ids = [inquiry.id for inquiry in inquiries]
    for inquiry in inquiries:
        inquiry.shared_profile = {"geloescht": True}
        for message in session.scalars(select(InquiryMessage).where(InquiryMessage.inquiry_id == inquiry.id)):
            typed = message.author == MessageAuthor.seeker.value
            message.body = scrub(TYPED_CONTACT.sub(ERASED, message.body) if typed else message.body)
        # the office's drafts to them: never sendable now, and without their name
        for draft in session.scalars(select(PendingAction).where(PendingAction.office_id == inquiry.office_id, PendingAction.subject_ref == inquiry.ref)):
            if draft.status == "pending" and draft.kind == PendingActionKind.send_reply.value:
                draft.status, draft.decision, draft.via, draft.executed_at, draft.updated_at = "discarded", "discard", None, now, now
            draft.payload = _scrubbed(draft.payload, scrub)
            draft.summary = scrub(draft.summary)
    # e-mails to them, from them or about their inquiries: recipient, subject and time stay (the office's delivery
    # record), the body and their address go
    for mail in session.scalars(
        select(OutboxMessage).where(
            or_(OutboxMessage.recipient == user.email, OutboxMessage.sender_user_id == user_id, OutboxMessage.inquiry_id.in_(inquiry_ids))
        )
    ):
        mail.recipient = None if mail.recipient == user.email else mail.recipient
        mail.subject, mail.body = scrub(mail.subject), ""
        if mail.status in ("queued", "sending"):  # nothing left to send
            mail.status, mail.claimed_until, mail.last_error = "skipped", None, "Konto gelöscht"
    session.execute(update(AuditEntry).where(AuditEntry.user_id == user_id).values(before=None, after=None))
    session.execute(delete(IdempotencyKey).where(IdempotencyKey.user_id == user_id))
    session.execute(delete(AccountToken).where(or_(AccountToken.user_id == user_id, AccountToken.email == normal_email(user.email))))
    user.email = f"geloescht-{user_id}@{DELETED_DOMAIN}"
    user.name = "Gelöschtes Konto"
    user.phone = None
    user.password_hash = "!"  # no scheme: no password ever matches
    audit(
        session, now=now, user_id=user_id, client_id=None, office_id=None, action="account.delete", subject_ref=user_ref(user_id),
        before=None, after=None,
    )


def _scrubber(user: User) -> Any:
    """Replaces every form of the person in a text: their address, their phone (however spaced), their full name and
    each part of it of three letters or more (so "Frau Hartwig" and "Lena" go, not only "Lena Hartwig")."""
    words = [part for part in re.split(r"[\s,]+", user.name or "") if len(part) >= 3]
    forms = [re.escape(value.strip()) for value in (user.email, user.name) if value and len(value.strip()) >= 3]
    forms += [rf"\b{re.escape(word)}\b" for word in words]
    digits = re.sub(r"\D", "", user.phone or "")
    if len(digits) >= 6:
        forms.append(r"[\s/().-]*".join(re.escape(d) for d in (user.phone or "").strip() if d.isdigit() or d == "+"))
    pattern = re.compile("|".join(sorted(forms, key=len, reverse=True)), re.IGNORECASE) if forms else None

    def scrub(text: str | None) -> str:
        return pattern.sub(ERASED, text or "") if pattern else (text or "")

    return scrub


def _scrubbed(value: Any, scrub: Any) -> Any:
    """A JSON value with every string in it scrubbed."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_scrubbed(item, scrub) for item in value]
    if isinstance(value, dict):
        return {key: _scrubbed(item, scrub) for key, item in value.items()}
    return value
